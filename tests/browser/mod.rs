//! Driving headless Chromium through ChromeDriver's WebDriver protocol, for the browser
//! tests (the replay viewer's and the table's). Needs `chromium` and `chromedriver`
//! (`.ci/install-browser.sh`); [`tools`] says whether they are there, and a test without
//! them says SKIPPED and passes unless `RALLY_REQUIRE_BROWSER=1` (CI, after installing).
#![allow(dead_code)]

use serde_json::{json, Value};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Chromium and ChromeDriver, or `None` after saying why the test `name` is skipped (a
/// failure instead with `RALLY_REQUIRE_BROWSER=1`).
pub fn tools(name: &str) -> Option<(PathBuf, PathBuf)> {
    match (
        find("chromium").or_else(|| find("chromium-browser")),
        find("chromedriver"),
    ) {
        (Some(c), Some(d)) => Some((c, d)),
        _ => {
            let message =
                "no chromium/chromedriver on PATH (install them with .ci/install-browser.sh)";
            if std::env::var_os("RALLY_REQUIRE_BROWSER").is_some_and(|v| v == "1") {
                panic!("RALLY_REQUIRE_BROWSER=1 but {message}");
            }
            eprintln!("SKIPPED {name}: {message}");
            None
        }
    }
}

fn find(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

/// A ChromeDriver process with one headless Chromium session; both end when it drops.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
}

impl Browser {
    pub fn start(chromium: &Path, chromedriver: &Path) -> Browser {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        while ureq::get(&format!("{base}/status")).call().is_err() {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not answer in 20 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut browser = Browser {
            driver,
            base,
            session: String::new(),
        };
        let created = browser.post(
            "/session",
            json!({"capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {
                    "binary": chromium,
                    "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                             "--disable-dev-shm-usage", "--window-size=1400,1000"]
                }
            }}}),
        );
        browser.session = created["sessionId"]
            .as_str()
            .expect("a WebDriver session id")
            .to_string();
        browser
    }

    pub fn post(&self, path: &str, body: Value) -> Value {
        let url = if self.session.is_empty() {
            format!("{}{path}", self.base)
        } else {
            format!("{}/session/{}{path}", self.base, self.session)
        };
        let mut response = ureq::post(&url)
            .send_json(&body)
            .unwrap_or_else(|e| panic!("WebDriver {path}: {e}"));
        let reply: Value = response.body_mut().read_json().expect("WebDriver JSON");
        reply["value"].clone()
    }

    pub fn open(&self, url: &str) {
        self.post("/url", json!({ "url": url }));
    }

    pub fn run(&self, script: &str) -> Value {
        self.post("/execute/sync", json!({ "script": script, "args": [] }))
    }

    pub fn click(&self, css: &str) {
        let element = self.post("/element", json!({"using": "css selector", "value": css}));
        let id = element
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}"))
            .to_string();
        self.post(&format!("/element/{id}/click"), json!({}));
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = ureq::delete(&format!("{}/session/{}", self.base, self.session)).call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Browser {
    pub fn get(&self, path: &str) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let mut response = ureq::get(&url)
            .call()
            .unwrap_or_else(|e| panic!("WebDriver {path}: {e}"));
        let reply: Value = response.body_mut().read_json().expect("WebDriver JSON");
        reply["value"].clone()
    }

    /// Runs `script` (a function body returning a value) until it returns something other
    /// than `null`/`false`, and returns that; fails after `patience`.
    pub fn wait_for(&self, what: &str, script: &str, patience: Duration) -> Value {
        let deadline = Instant::now() + patience;
        loop {
            let value = self.run(script);
            if !value.is_null() && value != json!(false) {
                return value;
            }
            assert!(Instant::now() < deadline, "waited {patience:?} for {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A PNG of the window.
    pub fn screenshot(&self) -> Vec<u8> {
        let data = self.get("/screenshot");
        decode_base64(data.as_str().expect("a base64 screenshot"))
    }
}

fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = text.bytes().filter(|&c| c != b'=' && c != b'\n').collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &c)| acc | (value(c) as u32) << (18 - 6 * i));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}
