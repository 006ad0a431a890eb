//! Links and LAN, and playtesters elsewhere: `rally serve --host 0.0.0.0` prints links with
//! the machine's addresses, `--base-url` links behind a proxy; the table plays through Caddy
//! under a path prefix (pages, WebSockets, the start page), when Caddy is installed; and the
//! recipe in deploy/ names the flags and the port `rally serve` has.

use crate::support::browser;
use crate::support::table_client::{serve, Client, Workspace};
use rally::table::protocol::Settings;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The links a `rally serve` in `dir` prints, up to the start page's, then stops it.
fn printed(dir: &Path, args: &[&str]) -> Vec<String> {
    let (mut child, rx) = crate::support::spawn_with_lines(dir, args);
    let mut lines = Vec::new();
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(30)) {
        let start_page = line.contains("/#");
        lines.push(line);
        if start_page {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    lines
}

fn links(lines: &[String]) -> Vec<&str> {
    lines
        .iter()
        .filter_map(|l| l.find("http").map(|i| l[i..].trim()))
        .filter(|l| l.contains('#'))
        .collect()
}

#[test]
fn rally_serve_prints_links_others_can_open_on_the_lan_and_behind_a_proxy() {
    let ws = Workspace::new();
    let base = [
        "serve",
        "table.toml",
        "--saves",
        "saves",
        "--port",
        "0",
        "--no-reload",
        "--new",
    ];
    let lan = printed(ws.dir.path(), &[&base[..], &["--host", "0.0.0.0"]].concat());
    let shown = links(&lan);
    assert_eq!(
        shown.len(),
        6,
        "3 seats, spectators, host, start page: {lan:#?}"
    );
    assert!(
        shown
            .iter()
            .all(|l| l.starts_with("http://") && !l.contains("0.0.0.0")),
        "{lan:#?}"
    );
    let proxied = printed(
        ws.dir.path(),
        &[
            &base[..],
            &["--base-url", "https://play.example.org/rally/"],
        ]
        .concat(),
    );
    let shown = links(&proxied);
    assert_eq!(shown.len(), 6, "{proxied:#?}");
    assert!(
        shown[..5]
            .iter()
            .all(|l| l.starts_with("https://play.example.org/rally/t/table#")),
        "{proxied:#?}"
    );
    assert!(
        shown[5].starts_with("https://play.example.org/rally/#"),
        "{proxied:#?}"
    );
    let refused =
        crate::support::rally_refused(ws.dir.path(), &["serve", "--base-url", "play.example.org"]);
    assert!(
        refused.contains("not an http:// or https:// URL"),
        "{refused}"
    );
}

/// A free port on loopback (nothing listens there once this returns).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Caddy on loopback proxying `/rally/*` to `upstream`, until dropped.
struct Caddy(std::process::Child);

impl Drop for Caddy {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn caddy() -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("caddy"))
            .find(|p| p.is_file())
    })
}

#[test]
fn the_table_plays_behind_caddy_under_a_path_prefix() {
    let Some(caddy_bin) = caddy() else {
        eprintln!("SKIPPED the_table_plays_behind_caddy_under_a_path_prefix: no caddy on PATH (apt-get install caddy)");
        return;
    };
    let ws = Workspace::new();
    let (server, infos) = serve(vec![ws.launch("t", Settings::default(), false)]);
    let tokens = infos[0].tokens();
    let port = free_port();
    let config = ws.path("Caddyfile");
    std::fs::write(
        &config,
        format!(
            "{{\n\tadmin off\n\tauto_https off\n\tstorage file_system {{\n\t\troot {}\n\t}}\n}}\n:{port} {{\n\thandle_path /rally/* {{\n\t\treverse_proxy {}\n\t}}\n}}\n",
            ws.path("caddy").display(),
            server.addr
        ),
    )
    .unwrap();
    let _caddy = Caddy(
        std::process::Command::new(caddy_bin)
            .args(["run", "--adapter", "caddyfile", "--config"])
            .arg(&config)
            .env("HOME", ws.path("caddy"))
            .env("XDG_DATA_HOME", ws.path("caddy"))
            .env("XDG_CONFIG_HOME", ws.path("caddy"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let proxy = format!("127.0.0.1:{port}/rally");
    let deadline = Instant::now() + Duration::from_secs(20);
    while ureq::get(&format!("http://{proxy}/api/tables"))
        .call()
        .is_err()
    {
        assert!(Instant::now() < deadline, "caddy did not come up");
        std::thread::sleep(Duration::from_millis(100));
    }
    // The WebSocket through the prefix.
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let ann = Client::try_connect_at(&proxy, "t", &tokens.seats[0])
                .await
                .unwrap();
            assert_eq!(ann.state["seat"], "Ann");
        });
    let Some(page) = browser::session("the_table_plays_behind_caddy_under_a_path_prefix") else {
        return;
    };
    // A guest at the start page behind the prefix watches the table, then takes a seat.
    page.open(&format!("http://{proxy}/"));
    page.wait_for(
        "the table",
        "return document.querySelector('a.watch') !== null;",
        Duration::from_secs(60),
    );
    page.click("a.watch");
    page.wait_for(
        "the spectators' page, connected through the proxy",
        "return document.getElementById('link').textContent === 'connected' && document.querySelectorAll('#free-seats button.sit').length > 0;",
        Duration::from_secs(60),
    );
    assert_eq!(
        page.run("return location.href;"),
        serde_json::json!(format!("http://{proxy}/t/t#{}", tokens.spectator))
    );
    page.run("document.getElementById('name').value = 'Bo'; return null;");
    page.click("#free-seats button.sit");
    page.wait_for(
        "Bob's seat",
        "return document.getElementById('who').textContent === 'you play Bob';",
        Duration::from_secs(60),
    );
    assert_eq!(page.errors(), Vec::<String>::new());
}

/// The `--flags` a text names.
fn flags(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn the_deploy_recipe_names_flags_and_a_port_rally_serve_has() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let dockerfile = read("deploy/Dockerfile");
    let compose = read("deploy/compose.yaml");
    let caddyfile = read("deploy/Caddyfile");
    let guide = read("docs/deploy.md");
    let help = crate::support::rally_ok(root, &["serve", "--help"]);
    let docker_only = [
        "--adapter",
        "--build",
        "--config",
        "--create-home",
        "--from",
        "--locked",
        "--release",
        "--bin",
        "--uid",
        "--chown",
    ];
    for (file, text) in [
        ("deploy/Dockerfile", &dockerfile),
        ("deploy/compose.yaml", &compose),
        ("docs/deploy.md", &guide),
    ] {
        for flag in flags(text) {
            if docker_only.contains(&flag.as_str()) {
                continue;
            }
            assert!(
                help.contains(&flag),
                "{file} names {flag}, which `rally serve --help` does not have"
            );
        }
    }
    assert!(dockerfile
        .contains(r#"ENTRYPOINT ["rally", "serve", "--host", "0.0.0.0", "--port", "8080""#));
    assert!(dockerfile.contains("EXPOSE 8080"));
    assert!(compose.contains("--base-url") && compose.contains("RALLY_UPSTREAM: rally:8080"));
    assert!(caddyfile.contains("reverse_proxy {$RALLY_UPSTREAM:rally:8080}"));
    let Some(caddy_bin) = caddy() else { return };
    // Caddy reads the Caddyfile as written: a site for the domain, proxied to rally:8080.
    let adapted = std::process::Command::new(caddy_bin)
        .args(["adapt", "--adapter", "caddyfile", "--config"])
        .arg(root.join("deploy/Caddyfile"))
        .env("RALLY_DOMAIN", "play.example.org")
        .output()
        .unwrap();
    assert!(
        adapted.status.success(),
        "{}",
        String::from_utf8_lossy(&adapted.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&adapted.stdout).unwrap();
    let text = json.to_string();
    assert!(text.contains(r#""host":["play.example.org"]"#), "{text}");
    assert!(text.contains(r#""dial":"rally:8080""#), "{text}");
    assert!(text.contains(r#""listen":[":443"]"#), "HTTPS: {text}");
}
