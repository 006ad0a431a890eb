//! `rally completions SHELL` and `rally man` come from the same clap definition as the
//! command line: they know every command. Completions are dynamic (`COMPLETE=SHELL rally`),
//! so they offer the element and variant names of the folder the shell is in.

use crate::support;

use std::path::Path;

fn rally(args: &[&str]) -> String {
    support::rally_ok(Path::new("."), args)
}

/// What the shell is offered for the last word of `words` (fish's protocol: one per line,
/// `value<TAB>help`), typed in `dir`.
fn complete(dir: &Path, words: &[&str]) -> Vec<String> {
    let out = support::finish(
        support::rally_command(dir, &["--", "rally"])
            .env("COMPLETE", "fish")
            .args(words),
    );
    assert!(out.status.success(), "{}", support::text(&out));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn every_shell_gets_a_script_that_asks_rally() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = rally(&["completions", shell]);
        assert!(
            script.contains("COMPLETE") && script.contains("rally"),
            "{shell}: {script}"
        );
    }
}

#[test]
fn completions_offer_commands_options_and_the_folder_s_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let commands = complete(d, &["re"]);
    for c in ["render", "replay"] {
        assert!(commands.contains(&c.to_string()), "{commands:?}");
    }
    assert!(complete(d, &["run", "--j"]).contains(&"--json".to_string()));
    // The built-in names, then the folder's own once it has them.
    assert!(complete(d, &["run", "--variant", ""]).contains(&"ice-rink".to_string()));
    assert!(complete(d, &["elements", "con"]).contains(&"conveyor".to_string()));
    support::rally_ok(d, &["-q", "new", "variant", "house-rule"]);
    support::rally_ok(d, &["-q", "new", "element", "spring_pad"]);
    let variants = complete(d, &["test", "--variant", "h"]);
    assert_eq!(variants, ["house-rule"]);
    assert_eq!(complete(d, &["elements", "spr"]), ["spring_pad"]);
    assert!(complete(d, &["options", "bra"]).contains(&"brakes".to_string()));
}

#[test]
fn the_man_page_covers_every_command_with_examples_environment_and_exit_status() {
    let page = rally(&["man"]);
    assert!(
        page.starts_with(".ie") || page.contains(".TH rally 1"),
        "roff"
    );
    for title in [
        ".TH rally-render",
        ".TH rally-replay",
        ".TH rally-run",
        ".TH rally-new",
    ] {
        assert!(page.contains(title), "no {title}");
    }
    for section in ["EXAMPLES", "ENVIRONMENT", "EXIT STATUS"] {
        let count = page.matches(&format!(".SH \"{section}\"")).count()
            + page.matches(&format!(".SH {section}\n")).count();
        assert!(count > 1, "{section} appears {count} times");
    }
    for word in [
        "NO_COLOR",
        "RALLY_LOG",
        "RUST_LOG",
        "rally run boards/tour.toml",
    ] {
        assert!(page.contains(word), "the man page never says {word}");
    }
}

/// Every command's `--help` ends with examples (src/commands/help.rs).
#[test]
fn every_command_has_examples_in_its_help() {
    let help = rally(&["--help"]);
    let commands: Vec<String> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap()
        .lines()
        // A command starts its line; wrapped descriptions are indented further.
        .filter_map(|l| l.strip_prefix("  ").filter(|rest| !rest.starts_with(' ')))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() > 10, "{commands:?}");
    for c in &commands {
        let text = rally(&[c, "--help"]);
        assert!(
            text.contains("Examples:"),
            "`rally {c} --help` has no examples: add them in src/commands/help.rs"
        );
    }
    for word in ["Examples:", "Environment:", "NO_COLOR", "Exit status:"] {
        assert!(help.contains(word), "rally --help lacks {word}");
    }
}

#[test]
fn run_help_shows_the_scenario_as_required_unless_replaying() {
    let help = rally(&["run", "--help"]);
    assert!(help.contains("rally run [OPTIONS] <SCENARIO>"), "{help}");
    assert!(
        help.contains("rally run [OPTIONS] --replay <LOG>"),
        "{help}"
    );
}
