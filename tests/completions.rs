//! `rally completions SHELL` and `rally man` come from the same clap definition as the
//! command line: they know every command.

use std::process::Command;

fn rally(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_rally"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "rally {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn completion_scripts_know_the_commands_and_options() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = rally(&["completions", shell]);
        for word in ["render", "replay", "test", "variant"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
}

#[test]
fn the_man_page_covers_every_command() {
    let page = rally(&["man"]);
    assert!(
        page.starts_with(".ie") || page.contains(".TH rally 1"),
        "roff"
    );
    for title in [".TH rally-render", ".TH rally-replay", ".TH rally-run"] {
        assert!(page.contains(title), "no {title}");
    }
}
