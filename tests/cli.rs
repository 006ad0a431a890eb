//! The command-line conventions every command follows (docs/cli.md, "Conventions"):
//! colour only where it belongs, `-q` for no chatter, logs through RALLY_LOG / RUST_LOG,
//! `--json` with a format version, exit statuses 0/1/2.

use crate::support::{self, rally};
use std::path::Path;
use std::process::Output;

/// `rally ARGS` in `dir` with the variables `env` set.
fn rally_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    support::finish(support::rally_command(dir, args).envs(env.iter().copied()))
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A project with a passing and a failing scenario of a new element whose step prints.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(rally(d, &["-q", "new", "element", "probe"])
        .status
        .success());
    let script = d.join("scripts/elements/probe.lua");
    let text = std::fs::read_to_string(&script).unwrap();
    std::fs::write(
        &script,
        text.replace(
            "ctx:queue_push(robot, tile.dir, \"the probe\")",
            "print(\"probe pushes \" .. robot.name)\n      ctx:queue_push(robot, tile.dir)",
        ),
    )
    .unwrap();
    let scenario = std::fs::read_to_string(d.join("tests/scenarios/probe.toml")).unwrap();
    std::fs::write(
        d.join("tests/scenarios/wrong.toml"),
        scenario.replace("damage = 1 ", "damage = 5 "),
    )
    .unwrap();
    dir
}

const ESC: char = '\u{1b}';

#[test]
fn colour_only_on_request_or_on_a_terminal() {
    let dir = project();
    let d = dir.path();
    // Piped (as here): no escape codes, by default and with --color never.
    for args in [
        &["test"][..],
        &["--color", "never", "test"],
        &["test", "--color=auto"],
    ] {
        let (out, err) = text(&rally(d, args));
        assert!(
            !out.contains(ESC) && !err.contains(ESC),
            "{args:?}: {out:?}"
        );
        assert!(out.contains("1 passed, 1 failed"), "{out}");
    }
    // Asked for: pass and fail are coloured, and so is the error prefix.
    let (out, _) = text(&rally(d, &["test", "--color", "always"]));
    assert!(out.contains(&format!("{ESC}[")), "{out:?}");
    assert!(out.contains("FAIL") && out.contains("1 passed"), "{out}");
    // NO_COLOR wins over auto; CLICOLOR_FORCE colours a pipe.
    let (out, _) = text(&rally_env(
        d,
        &["test"],
        &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")],
    ));
    assert!(!out.contains(ESC), "{out:?}");
    let (out, _) = text(&rally_env(d, &["test"], &[("CLICOLOR_FORCE", "1")]));
    assert!(out.contains(ESC), "{out:?}");
    let (_, err) = text(&rally(d, &["--color", "always", "run", "nowhere.toml"]));
    assert!(
        err.contains(&format!("{ESC}[")) && err.contains("error:"),
        "{err:?}"
    );
}

#[test]
fn logs_follow_rally_log_then_rust_log_and_the_flags() {
    let dir = project();
    let d = dir.path();
    let run = ["run", "tests/scenarios/probe.toml"];
    let logged = |env: &[(&str, &str)], flags: &[&str]| {
        let mut args: Vec<&str> = flags.to_vec();
        args.extend(run);
        let (_, err) = text(&rally_env(d, &args, env));
        assert!(
            !err.contains(ESC),
            "logs to a pipe carry no escape codes: {err:?}"
        );
        err.contains("probe pushes A")
    };
    assert!(!logged(&[], &[]), "warnings only by default");
    assert!(logged(&[("RUST_LOG", "script=info")], &[]));
    assert!(logged(&[("RALLY_LOG", "info")], &[]));
    assert!(
        !logged(&[("RALLY_LOG", "warn"), ("RUST_LOG", "info")], &[]),
        "RALLY_LOG first"
    );
    assert!(logged(&[], &["-v"]));
    assert!(!logged(&[("RUST_LOG", "info")], &["-q"]), "-q wins");
    let (_, err) = text(&rally_env(
        d,
        &["--color", "always", "-v", run[0], run[1]],
        &[],
    ));
    assert!(
        err.contains(ESC),
        "--color always colours the logs too: {err:?}"
    );
}

#[test]
fn quiet_leaves_only_results_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (out, err) = text(&rally(d, &["-q", "new", "element", "pad"]));
    assert!(out.is_empty() && err.is_empty(), "{out}{err}");
    let (_, err) = text(&rally(d, &["new", "element", "gate"]));
    assert!(err.contains("created"), "{err}");
    let (out, err) = text(&rally(d, &["-q", "types", "-o", "t"]));
    assert!(out.is_empty() && err.is_empty(), "{out}{err}");
    // Commands that write a file say which, unless -q.
    let scenario = "tests/scenarios/pad.toml";
    for (args, wrote) in [
        (&["render", scenario][..], "wrote pad.svg"),
        (
            &["replay", scenario, "-o", "pad.html"][..],
            "wrote pad.html",
        ),
        (&["tiled-types", "-o", "types.json"][..], "wrote types.json"),
    ] {
        let (out, err) = text(&rally(d, args));
        assert!(
            out.is_empty() && err.trim() == wrote,
            "rally {args:?}: {out}{err}"
        );
        let (out, err) = text(&rally(d, &[&["-q"][..], args].concat()));
        assert!(
            out.is_empty() && err.is_empty(),
            "rally -q {args:?}: {out}{err}"
        );
    }
    // `sim` says what it runs and how fast it went: chatter.
    let sprint = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/games/sprint.toml");
    let sprint = sprint.to_str().unwrap();
    let sim = ["sim", sprint, "--games", "2", "--threads", "1"];
    let (out, err) = text(&rally(d, &sim));
    assert!(err.contains("bot game(s)"), "{err}");
    let (quiet, err) = text(&rally(d, &[&["-q"][..], &sim].concat()));
    assert!(err.is_empty(), "{err}");
    let table = |t: &str| -> Vec<String> {
        // Everything but the timing, which differs from run to run.
        t.lines()
            .filter(|l| !l.starts_with("games per minute"))
            .map(String::from)
            .collect()
    };
    assert_eq!(table(&quiet), table(&out), "the table is the result");
    // Results stay.
    let (out, _) = text(&rally(d, &["-q", "test"]));
    assert!(out.contains("2 passed, 0 failed"), "{out}");
    // Errors stay.
    let out = rally(d, &["-q", "run", "missing.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("missing.toml"));
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn json_everywhere_with_a_version() {
    let dir = project();
    let d = dir.path();
    let out = rally(d, &["test", "--json"]);
    assert_eq!(out.status.code(), Some(1), "a failure still exits 1");
    let report = json(&out);
    assert_eq!(report["version"], 1);
    assert_eq!(
        (report["passed"].as_u64(), report["failed"].as_u64()),
        (Some(1), Some(1))
    );
    let failed = report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["status"] == "failed")
        .unwrap();
    assert!(failed["file"].as_str().unwrap().ends_with("wrong.toml"));
    assert_eq!(failed["failures"][0]["key"], "damage");
    assert_eq!(failed["failures"][0]["expected"], "5");

    let elements = json(&rally(d, &["elements", "--json"]));
    assert_eq!(elements["version"], 1);
    let probe = elements["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "probe")
        .unwrap();
    let damage = probe["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "damage")
        .unwrap();
    assert_eq!(
        (damage["kind"].as_str(), damage["max"].as_i64()),
        (Some("int"), Some(3))
    );
    assert!(elements["steps"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["name"] == "pushers"));

    let variants = json(&rally(d, &["variants", "ice-rink", "--json"]));
    assert_eq!(variants["version"], 1);
    assert_eq!(variants["variants"].as_array().unwrap().len(), 1);
    let options = json(&rally(d, &["options", "--json"]));
    assert_eq!(options["version"], 1);
    assert!(options["options"]
        .as_array()
        .unwrap()
        .iter()
        .any(|o| o["name"] == "brakes"));

    // `run --json` keeps the contract's keys (events included) and adds the version.
    let state = json(&rally(d, &["run", "tests/scenarios/probe.toml", "--json"]));
    assert_eq!(state["version"], 1);
    for key in ["register", "turn", "robots", "events"] {
        assert!(state.get(key).is_some(), "no {key}");
    }
    assert!(state["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["what"] == "damaged" || e["what"] == "damage"));
}

#[test]
fn run_json_register_is_the_last_register_resolved() {
    // The contract's example: `"register": 2` after two registers. The end of the turn, which
    // the engine runs outside the registers, does not turn it into 0.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let scenario = "[board]\ngrid = \". .\"\n[board.legend]\n\".\" = \"floor\"\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"E\"\n";
    for (extra, register) in [
        ("registers = 2\n", 2),
        ("registers = 3\nend_of_turn = true\n", 3),
    ] {
        std::fs::write(d.join("s.toml"), format!("{extra}{scenario}")).unwrap();
        let state = json(&rally(d, &["run", "s.toml", "--json"]));
        assert_eq!(state["register"], register, "{extra}");
        assert_eq!(state["turn"], 1, "{extra}");
    }
}

#[test]
fn listing_names_keeps_them_and_an_unknown_one_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (out, _) = text(&rally(d, &["elements", "gear", "pit"]));
    assert!(out.contains("Elements (2):") && out.contains("gear") && !out.contains("conveyor"));
    let out = rally(d, &["elements", "geer"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).1.contains("did you mean `gear`"),
        "{}",
        text(&out).1
    );
    assert_eq!(rally(d, &["variants", "nope"]).status.code(), Some(2));
    assert_eq!(rally(d, &["options", "nope"]).status.code(), Some(2));
}

#[test]
fn exit_statuses_are_0_1_2() {
    let dir = project();
    let d = dir.path();
    assert_eq!(
        rally(d, &["test", "tests/scenarios/probe.toml"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(rally(d, &["test"]).status.code(), Some(1));
    assert_eq!(
        rally(d, &["run", "tests/scenarios/wrong.toml"])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(rally(d, &["run", "nope.toml"]).status.code(), Some(2));
    assert_eq!(rally(d, &["--no-such-flag"]).status.code(), Some(2));
}

/// No command writes its output over one of its inputs, however the path is spelled: the
/// input is left as it was and the command stops with status 2.
#[test]
fn outputs_never_replace_inputs() {
    let dir = project();
    let d = dir.path();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir(d.join("games")).unwrap();
    std::fs::copy(root.join("tests/games/sprint.toml"), d.join("games/g.toml")).unwrap();
    assert!(rally(
        d,
        &[
            "-q",
            "sim",
            "games/g.toml",
            "--games",
            "2",
            "--out",
            "shard.json"
        ]
    )
    .status
    .success());
    let cases: &[(&[&str], &str)] = &[
        (
            &["play", "games/g.toml", "--save", "games/../games/g.toml"],
            "games/g.toml",
        ),
        (
            &[
                "run",
                "tests/scenarios/probe.toml",
                "--record",
                "./tests/scenarios/probe.toml",
            ],
            "tests/scenarios/probe.toml",
        ),
        (
            &[
                "replay",
                "tests/scenarios/probe.toml",
                "-o",
                "tests/scenarios/probe.toml",
            ],
            "tests/scenarios/probe.toml",
        ),
        (
            &[
                "sim",
                "games/g.toml",
                "--games",
                "2",
                "--out",
                "games/g.toml",
            ],
            "games/g.toml",
        ),
        (
            &["sim", "merge", "shard.json", "--out", "shard.json"],
            "shard.json",
        ),
        (
            &["tiled-types", "-o", "scripts/elements/probe.lua"],
            "scripts/elements/probe.lua",
        ),
    ];
    for (args, input) in cases {
        let before = std::fs::read(d.join(input)).unwrap();
        let out = rally(d, args);
        let (_, err) = text(&out);
        assert_eq!(out.status.code(), Some(2), "rally {args:?}: {err}");
        assert!(
            err.contains("is one of this command's input files"),
            "rally {args:?}: {err}"
        );
        assert_eq!(
            std::fs::read(d.join(input)).unwrap(),
            before,
            "rally {args:?}"
        );
    }
}

/// A file named to `rally test` without `[expect]` is said to be skipped, not passed over in
/// silence (in a folder, such files are boards and fixtures, and stay quiet).
#[test]
fn test_says_which_named_files_it_skipped() {
    let dir = project();
    let d = dir.path();
    let text_of = std::fs::read_to_string(d.join("tests/scenarios/probe.toml")).unwrap();
    let without = text_of.split("\n[expect").next().unwrap().to_string();
    std::fs::write(d.join("plain.toml"), without).unwrap();
    let (out, _) = text(&rally(d, &["test", "plain.toml"]));
    assert_eq!(
        out,
        "plain.toml: no [expect], skipped\n0 passed, 0 failed\n"
    );
    let report = json(&rally(d, &["test", "plain.toml", "--json"]));
    assert_eq!(report["skipped"], serde_json::json!(["plain.toml"]));
}

/// The text board comes with a key to its glyphs: each element on it with the glyphs it
/// shows there, walls, floor and robots.
#[test]
fn text_boards_have_a_key_to_their_glyphs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (out, _) = text(&rally(root, &["run", "boards/tour.toml"]));
    let key: String = out
        .lines()
        .skip_while(|l| !l.starts_with("key: "))
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    for item in [
        "O pit",
        "F1 F2 F3 flag",
        "G< G> gear",
        "S1 S2 S3 S4 S5 S6 start",
        "| -- wall",
        "A> a robot",
    ] {
        assert!(key.contains(item), "no `{item}` in the key:\n{key}");
    }
}

/// A build without an optional feature (`cargo build --no-default-features`) says what it
/// cannot do and how to build one that can, with exit status 2.
#[test]
#[cfg(not(all(feature = "serve", feature = "png")))]
fn a_build_without_a_feature_says_what_it_left_out() {
    let dir = tempfile::tempdir().unwrap();
    #[cfg(not(feature = "serve"))]
    {
        let err = support::rally_refused(dir.path(), &["serve"]);
        assert!(err.contains("built without the `serve` feature"), "{err}");
    }
    #[cfg(not(feature = "png"))]
    {
        let png = dir.path().join("tour.png");
        let args = ["render", "boards/tour.toml", "-o", png.to_str().unwrap()];
        let err = support::rally_refused(support::root(), &args);
        assert!(err.contains("built without the `png` feature"), "{err}");
        assert!(!png.exists());
    }
}
