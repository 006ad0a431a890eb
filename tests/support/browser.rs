//! Driving headless Chromium through ChromeDriver's WebDriver protocol, for the browser
//! tests (the replay viewer's and the table's). Needs `chromium` and `chromedriver`
//! (`.ci/install-browser.sh`); [`tools`] says whether they are there, and a test without
//! them says SKIPPED and passes unless `RALLY_REQUIRE_BROWSER=1` (CI, after installing).

use base64::Engine;
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

/// A browser session for the test `name`, or `None` as [`tools`] says.
pub fn session(name: &str) -> Option<Browser> {
    tools(name).map(|(chromium, chromedriver)| Browser::start(&chromium, &chromedriver))
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
                // The page's console, so a test can fail on a script error (`errors`).
                "goog:loggingPrefs": { "browser": "ALL" },
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
        self.try_post(path, body)
            .unwrap_or_else(|(status, value)| panic!("WebDriver {path}: {status}: {value}"))
    }

    /// [`Browser::post`], with WebDriver's refusal (its status and error) as an error.
    fn try_post(&self, path: &str, body: Value) -> Result<Value, (u16, Value)> {
        let url = if self.session.is_empty() {
            format!("{}{path}", self.base)
        } else {
            format!("{}/session/{}{path}", self.base, self.session)
        };
        let mut response = ureq::post(&url)
            .config()
            .http_status_as_error(false)
            .build()
            .send_json(&body)
            .unwrap_or_else(|e| panic!("WebDriver {path}: {e}"));
        let status = response.status();
        let reply: Value = response.body_mut().read_json().expect("WebDriver JSON");
        // A failing script or a missing element: WebDriver says what went wrong.
        if status.is_success() {
            Ok(reply["value"].clone())
        } else {
            Err((status.as_u16(), reply["value"].clone()))
        }
    }

    pub fn open(&self, url: &str) {
        self.post("/url", json!({ "url": url }));
    }

    pub fn run(&self, script: &str) -> Value {
        self.post("/execute/sync", json!({ "script": script, "args": [] }))
    }

    /// Clicks the element `css` as a user would. A page that redrew the element between
    /// finding and clicking it (a state frame came) is clicked again on the new one.
    pub fn click(&self, css: &str) {
        for _ in 0..20 {
            let element = self.post("/element", json!({"using": "css selector", "value": css}));
            let id = element
                .as_object()
                .and_then(|o| o.values().next())
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("no element {css}"))
                .to_string();
            match self.try_post(&format!("/element/{id}/click"), json!({})) {
                Ok(_) => return,
                Err((_, e)) if e["error"] == "stale element reference" => continue,
                Err((status, e)) => panic!("WebDriver click {css}: {status}: {e}"),
            }
        }
        panic!("{css} was redrawn at every click");
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

/// What a page shows, for a failed wait's message: its `data-` attributes and its text.
const SHOWN: &str = "return { data: Object.assign({}, document.body.dataset), text: document.body.innerText.slice(0, 2000) };";

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
            if Instant::now() >= deadline {
                panic!(
                    "waited {patience:?} for {what}; the page's script errors: {:?}; the page: {:#}",
                    self.errors(),
                    self.run(SHOWN)
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The page's script errors so far (uncaught exceptions, failed loads): the console's
    /// SEVERE entries. Reading them empties the log.
    pub fn errors(&self) -> Vec<String> {
        let entries = self.post("/se/log", json!({ "type": "browser" }));
        entries
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| e["message"].as_str().unwrap_or("").to_string())
            .collect()
    }

    pub fn resize(&self, width: u32, height: u32) {
        self.post("/window/rect", json!({ "width": width, "height": height }));
    }

    /// With `RALLY_SCREENSHOTS=DIR`, saves what the browser shows as DIR/NAME.png.
    pub fn screenshot(&self, name: &str) {
        let Some(dir) = std::env::var_os("RALLY_SCREENSHOTS") else {
            return;
        };
        let data = self.get("/screenshot");
        let png = base64::engine::general_purpose::STANDARD
            .decode(data.as_str().expect("a base64 PNG"))
            .expect("a base64 PNG");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(Path::new(&dir).join(format!("{name}.png")), png).unwrap();
    }

    /// Presses `key` (a character, or a WebDriver key code such as `"\u{E007}"`, Enter)
    /// on the element that has the focus.
    pub fn press(&self, key: &str) {
        self.post(
            "/actions",
            json!({"actions": [{"type": "key", "id": "keys", "actions": [
                {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]}]}),
        );
    }

    /// Drags with a finger (a touch pointer) from the centre of the element `from` to the
    /// centre of `to` (CSS selectors), in small steps as a hand would.
    pub fn touch_drag(&self, from: &str, to: &str) {
        let element = |css: &str| {
            let found = self.post("/element", json!({"using": "css selector", "value": css}));
            found
                .as_object()
                .and_then(|o| o.values().next())
                .cloned()
                .unwrap_or_else(|| panic!("no element {css}"))
        };
        let (a, b) = (element(from), element(to));
        let key = "element-6066-11e4-a52e-4f735466cecf";
        let mut steps = vec![
            json!({"type": "pointerMove", "duration": 0, "origin": {key: a}, "x": 0, "y": 0}),
            json!({"type": "pointerDown", "button": 0}),
            json!({"type": "pointerMove", "duration": 50, "origin": "pointer", "x": 10, "y": 10}),
        ];
        steps.push(
            json!({"type": "pointerMove", "duration": 200, "origin": {key: b}, "x": 0, "y": 0}),
        );
        steps.push(json!({"type": "pointerUp", "button": 0}));
        self.post(
            "/actions",
            json!({"actions": [{"type": "pointer", "id": "finger", "parameters": {"pointerType": "touch"}, "actions": steps}]}),
        );
    }

    /// Makes the page's viewport `width`×`height` CSS pixels, as a phone's (touch, mobile
    /// layout) or a desktop's, whatever the window's size.
    pub fn viewport(&self, width: u32, height: u32, mobile: bool) {
        self.post(
            "/goog/cdp/execute",
            json!({"cmd": "Emulation.setDeviceMetricsOverride", "params": {
                "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}}),
        );
        self.post(
            "/goog/cdp/execute",
            json!({"cmd": "Emulation.setTouchEmulationEnabled", "params": {"enabled": mobile, "maxTouchPoints": 5}}),
        );
    }
}
