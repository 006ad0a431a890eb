//! Files that try to crash or hang rally (issue 10, item 5), and where scripts come from
//! (issue 12, item 3). Each case runs the real binary under a deadline: a hang fails the
//! test instead of stalling the suite. Every refusal is exit status 2 with the file named,
//! and nothing on disk changes.

use crate::support;

use rally::game::save::write_json;
use rally::game::{Game, Setup};
use rally::script::{RuleSet, Sources};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(20);

/// Runs `rally ARGS` in `cwd`; no input may make it hang, so it fails the test after
/// [`DEADLINE`].
fn rally(cwd: &Path, args: &[&str]) -> Output {
    support::finish_within(&mut support::rally_command(cwd, args), DEADLINE)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts exit status 2, no panic, and a message containing each of `wanted`.
fn refused(out: &Output, wanted: &[&str]) {
    let err = support::refused(out);
    for w in wanted {
        assert!(err.contains(w), "expected `{w}` in: {err}");
    }
}

fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[cfg(unix)]
#[allow(unsafe_code)] // libc's mkfifo
fn mkfifo(path: &Path) {
    let name = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: `name` is a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
}

// ---- saves ----------------------------------------------------------------------------

/// A save of `games/bots.toml` two stages in, as JSON to edit.
fn save_json() -> serde_json::Value {
    let setup = Setup::load(&project().join("games/bots.toml")).unwrap();
    let rules = RuleSet::load(&Sources {
        project: rally::script::Project::folders(
            project().join("scripts"),
            project().join("variants"),
        ),
        choices: setup.choices(&[]),
    })
    .unwrap();
    let mut m = Game::start(setup, rules).unwrap();
    let mut bots = rally::game::bot::Bots::new([rally::game::bot::Strength::Weak; 4]);
    m.advance(&mut bots).unwrap();
    m.advance(&mut bots).unwrap();
    serde_json::to_value(m.save(&[])).unwrap()
}

/// Writes the edited save and resumes it; returns the output and whether the file is as it
/// was written.
fn resume(edit: impl FnOnce(&mut serde_json::Value)) -> (Output, bool) {
    let dir = tempfile::tempdir().unwrap();
    let mut save = save_json();
    edit(&mut save);
    let path = dir.path().join("g.save.json");
    write_json(&path, &save).unwrap();
    let before = std::fs::read(&path).unwrap();
    let out = rally(
        dir.path(),
        &["play", "--fast", "--resume", path.to_str().unwrap()],
    );
    let unchanged = std::fs::read(&path).unwrap() == before;
    (out, unchanged)
}

#[test]
fn a_save_that_does_not_add_up_is_refused_before_anything_is_written() {
    type Edit = Box<dyn FnOnce(&mut serde_json::Value)>;
    let cases: Vec<(Edit, &[&str])> = vec![
        (
            Box::new(|s| {
                s["progress"]["announced"].as_array_mut().unwrap().pop();
            }),
            &[
                "g.save.json:",
                "`progress.announced` has 3 entries for 4 robots",
            ][..],
        ),
        (
            Box::new(|s| {
                s["state"]["robots"][1]["at"] = serde_json::json!([999, 999]);
                s["state"]["robots"][1]["damage"] = serde_json::json!(99);
            }),
            &["g.save.json:", "robot `Bob` has 99 damage"],
        ),
        (
            Box::new(|s| s["state"]["robots"][1]["at"] = serde_json::json!([999, 999])),
            &["robot `Bob` at [999, 999] is outside the"],
        ),
        (
            Box::new(|s| s["state"]["robots"][0]["archive"] = serde_json::json!([-1, 0])),
            &["archive [-1, 0] is outside the"],
        ),
        (
            Box::new(|s| s["state"]["robots"][2]["at"] = s["state"]["robots"][3]["at"].clone()),
            &["robots `Cy` and `Dee` both stand on"],
        ),
        (
            Box::new(|s| s["state"]["robots"][0]["lives"] = serde_json::json!(-3)),
            &["robot `Ada` has -3 lives"],
        ),
        (
            Box::new(|s| s["state"]["robots"][0]["flags"] = serde_json::json!(40)),
            &["touched 40 flags, but the course has"],
        ),
        (
            Box::new(|s| {
                s["state"]["robots"][0]["options"] = serde_json::json!([{"name": "jetpack"}])
            }),
            &["unknown option `jetpack`"],
        ),
        (
            Box::new(|s| {
                s["programs"][0] =
                    serde_json::json!(["move1", "move1", "move1", "move1", "move1", "move1"])
            }),
            &["6 registers: a program has at most 5"],
        ),
        (
            Box::new(|s| s["progress"]["phase"] = serde_json::json!({"register": 9})),
            &["register 9: expected 1 to 5"],
        ),
        (
            Box::new(|s| s["game"] = serde_json::json!("/dev/zero")),
            &["the game file `/dev/zero` is not a regular file"],
        ),
        (
            Box::new(|s| s["state"]["robots"][0]["name"] = serde_json::json!("Zed")),
            &["the save's robots (Zed, Bob, Cy, Dee) are not the game file's"],
        ),
    ];
    for (edit, wanted) in cases {
        let (out, unchanged) = resume(edit);
        refused(&out, wanted);
        let err = stderr(&out);
        let place = err.split("g.save.json:").nth(1).unwrap_or("");
        assert!(
            place.split(':').take(2).all(|n| n.parse::<u32>().is_ok()),
            "file:line:column: {err}"
        );
        assert!(unchanged, "the save was rewritten: {err}");
    }
}

#[test]
fn an_untouched_save_resumes() {
    let (out, _) = resume(|_| {});
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_resumed_game_names_the_rule_files_changed_since_its_save() {
    let (out, _) = resume(|_| {});
    assert!(
        !stderr(&out).contains("the rules changed"),
        "{}",
        stderr(&out)
    );

    let mut changed = String::new();
    let (out, _) = resume(|s| {
        let files = s["rules"]["files"]
            .as_object_mut()
            .expect("a save names its rule files");
        let (name, hash) = files.iter_mut().next().unwrap();
        changed = name.clone();
        *hash = serde_json::json!("0".repeat(64));
        files.insert(
            "scripts/elements/gone.lua".into(),
            serde_json::json!("1".repeat(64)),
        );
    });
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "note: the rules changed since this game was saved ({changed} changed, scripts/elements/gone.lua is gone)"
        )),
        "{err}"
    );

    // A save of an older rally has no hashes: it resumes without a word about them.
    let (out, _) = resume(|s| {
        s.as_object_mut().unwrap().remove("rules");
    });
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("the rules changed"));
}

// ---- files that are not files ---------------------------------------------------------

#[cfg(unix)]
#[test]
fn fifos_and_devices_are_refused_by_name_wherever_rally_reads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    support::copy_dir(&project().join("scripts"), &d.join("scripts"));
    std::fs::write(
        d.join("s.toml"),
        "board = { grid = \". .\", legend = { \".\" = \"floor\" } }\n",
    )
    .unwrap();
    // A FIFO and /dev/zero as element scripts.
    mkfifo(&d.join("scripts/elements/fifo.lua"));
    refused(
        &rally(d, &["run", "s.toml"]),
        &["scripts/elements/fifo.lua: is a FIFO (named pipe), not a regular file"],
    );
    std::fs::remove_file(d.join("scripts/elements/fifo.lua")).unwrap();
    // A link out of the project is refused as such; in a folder the command line names,
    // the device is refused as a device.
    std::os::unix::fs::symlink("/dev/zero", d.join("scripts/elements/zero.lua")).unwrap();
    refused(
        &rally(d, &["run", "s.toml"]),
        &["scripts/elements/zero.lua: is outside the project folder"],
    );
    refused(
        &rally(d, &["run", "s.toml", "--scripts", "scripts"]),
        &["scripts/elements/zero.lua: is a device, not a regular file"],
    );
    std::fs::remove_file(d.join("scripts/elements/zero.lua")).unwrap();

    // Scenarios, boards, Tiled maps, games, variants and replays.
    mkfifo(&d.join("fifo.toml"));
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.toml")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.tmj")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.json")).unwrap();
    std::fs::write(d.join("board.toml"), "board = \"zero.toml\"\n").unwrap();
    std::fs::write(d.join("tiled.toml"), "board = \"zero.tmj\"\n").unwrap();
    std::fs::create_dir_all(d.join("variants/v")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join("variants/v/variant.toml")).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["run", "fifo.toml"], "fifo.toml: is a FIFO"),
        (&["run", "zero.toml"], "zero.toml: is a device"),
        (&["run", "board.toml"], "zero.toml: is a device"),
        (&["run", "tiled.toml"], "zero.tmj: is a device"),
        (&["render", "zero.tmj", "-o", "-"], "zero.tmj: is a device"),
        (&["play", "zero.toml"], "zero.toml: is a device"),
        (&["play", "--resume", "zero.json"], "zero.json: is a device"),
        (
            &["sim", "fifo.toml", "--games", "1"],
            "fifo.toml: is a FIFO",
        ),
        (&["run", "--replay", "zero.json"], "zero.json: is a device"),
        (
            &["replay", "zero.json", "-o", "x.html"],
            "zero.json: is a device",
        ),
        (
            &["run", "s.toml", "--variant", "v"],
            "variant.toml: is outside the project folder",
        ),
        (
            &["run", "s.toml", "--variant", "v", "--variants", "variants"],
            "variant.toml: is a device",
        ),
        (&["test", "fifo.toml"], "fifo.toml: is a FIFO"),
    ];
    for (args, wanted) in cases {
        let out = rally(d, args);
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            err.contains(wanted) || String::from_utf8_lossy(&out.stdout).contains(wanted),
            "{args:?}: expected `{wanted}`, got {err}"
        );
        assert_ne!(out.status.code(), Some(0), "{args:?}");
    }
}

// ---- built-in scripts -----------------------------------------------------------------

/// Before, the built-in scripts were unpacked into one shared temporary folder that every
/// run deleted and recreated: runs at the same time failed 14–35% of the time.
#[test]
fn concurrent_runs_on_the_built_in_scripts_all_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = project().join("tests/acceptance/core/belt_then_gear.toml");
    std::fs::copy(&scenario, dir.path().join("s.toml")).unwrap();
    for _ in 0..4 {
        let children: Vec<_> = (0..4)
            .map(|_| {
                support::rally_command(dir.path(), &["test", "s.toml"])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "{}", stderr(&out));
        }
    }
}

#[test]
fn built_in_scripts_are_named_by_their_place_in_the_sources() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "board = { grid = \"C\", legend = { \"C\" = { element = \"conveyor\", dir = \"N\", turn = \"sideways\" } } }\n",
    )
    .unwrap();
    let out = rally(dir.path(), &["run", "s.toml"]);
    refused(&out, &["s.toml:1:"]);
    let out = rally(dir.path(), &["elements"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

// ---- where scripts come from ----------------------------------------------------------

/// A project with its own element (beside the built-in ones), and a scenario deep inside it.
fn project_with_a_magnet() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("project");
    std::fs::create_dir_all(p.join("scripts/elements")).unwrap();
    std::fs::write(
        p.join("scripts/elements/magnet_test.lua"),
        "return rally.element { name = \"magnet_test\", describe = \"a test\" }\n",
    )
    .unwrap();
    std::fs::create_dir_all(p.join("tests/deep")).unwrap();
    std::fs::write(
        p.join("tests/deep/s.toml"),
        "board = { grid = \"M\", legend = { \"M\" = \"magnet_test\" } }\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
    dir
}

#[test]
fn scripts_are_found_in_the_folders_above_the_file() {
    let dir = project_with_a_magnet();
    let file = dir.path().join("project/tests/deep/s.toml");
    for cwd in [
        dir.path().join("elsewhere"),
        dir.path().join("project/tests"),
    ] {
        let out = rally(&cwd, &["run", file.to_str().unwrap()]);
        assert!(out.status.success(), "from {cwd:?}: {}", stderr(&out));
    }
    // An unrelated `scripts` folder (a shell scripts folder) on the way up is passed over.
    std::fs::create_dir_all(dir.path().join("project/tests/scripts")).unwrap();
    let out = rally(
        &dir.path().join("elsewhere"),
        &["run", file.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn unknown_elements_say_where_the_scripts_came_from() {
    let dir = project_with_a_magnet();
    std::fs::create_dir_all(dir.path().join("alone")).unwrap();
    std::fs::copy(
        dir.path().join("project/tests/deep/s.toml"),
        dir.path().join("alone/s.toml"),
    )
    .unwrap();
    let out = rally(&dir.path().join("elsewhere"), &["run", "../alone/s.toml"]);
    refused(
        &out,
        &[
            "s.toml:1:",
            "unknown element `magnet_test`",
            "searched the layers built-in; no variant switched on",
        ],
    );
    let with_scripts = |variants: &[&str]| {
        let mut args = vec!["run", "alone/s.toml", "--scripts", "project/scripts"];
        for v in variants {
            args.extend(["--variant", v]);
        }
        rally(dir.path(), &args)
    };
    let out = with_scripts(&["ice-rink", "gold-belts"]);
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::write(
        dir.path().join("alone/s.toml"),
        "board = { grid = \"M\", legend = { \"M\" = \"magnet\" } }\n",
    )
    .unwrap();
    refused(
        &with_scripts(&["ice-rink"]),
        &["searched the layers built-in, project (project/scripts); the variant ice-rink (built-in)"],
    );
}

// ---- numbers out of range in scenarios and boards --------------------------------------

#[test]
fn robots_and_boards_out_of_range_are_refused_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let robot = |extra: &str| {
        format!(
            "[board]\nwidth = 3\nheight = 3\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"N\"\n{extra}"
        )
    };
    let wide = format!(
        "[board]\ngrid = \"{}\"\n[board.legend]\n\".\" = \"floor\"\n",
        ". ".repeat(300)
    );
    let cases: Vec<(String, &str)> = vec![
        (
            robot("damage = 99\n"),
            "s.toml:4:1: robot `A` has 99 damage: a robot on the board has 0 to 9",
        ),
        (robot("damage = -1\n"), "robot `A` has -1 damage"),
        (robot("lives = 0\n"), "robot `A` has 0 lives"),
        (
            robot("archive = [9, 9]\n"),
            "robot `A`'s archive [9, 9] is outside the 3×3 board",
        ),
        (
            wide,
            "s.toml:2:8: the grid: a 300×1 board is larger than rally handles",
        ),
        (
            "[board]\nwidth = -1\nheight = 5\n".into(),
            "s.toml:1:1: a -1×5 board has no squares",
        ),
        (
            "[board]\nwidth = 2\nheight = 2\n[[board.tile]]\nat = [5, 0]\nelement = \"pit\"\n"
                .into(),
            "s.toml:4:1: element `pit` at [5, 0] is outside the 2×2 board",
        ),
    ];
    for (text, wanted) in cases {
        std::fs::write(dir.path().join("s.toml"), &text).unwrap();
        refused(&rally(dir.path(), &["run", "s.toml"]), &[wanted]);
    }
    // A course part placed far away.
    std::fs::write(dir.path().join("b.toml"), "width = 2\nheight = 2\n").unwrap();
    std::fs::write(
        dir.path().join("c.toml"),
        "[[board]]\npath = \"b.toml\"\nat = [2147483647, 0]\n",
    )
    .unwrap();
    refused(
        &rally(dir.path(), &["render", "c.toml", "-o", "-"]),
        &["c.toml:1:1: course board `b.toml` at [2147483647, 0] reaches square 2147483648"],
    );
}

/// Control characters in file text (robot and board names, descriptions) are shown escaped
/// on the terminal, as scripts' text is, and never make a picture or a page invalid XML.
#[test]
fn control_characters_in_files_are_escaped_on_the_terminal_and_in_pictures() {
    let dir = support::copy_of(&["scripts"]);
    let d = dir.path();
    let red = r"A\u001b[31mred";
    let board = "[board]\nname = \"B\\u001b]0;title\\u0007\\u0000\"\ngrid = \". . F\"\n[board.legend]\n\".\" = \"floor\"\n\"F\" = { element = \"flag\", number = 1 }\n";
    std::fs::write(
        d.join("s.toml"),
        format!(
            "description = \"x\\u001b[2J\\r\"\n{board}[[robot]]\nname = \"{red}\"\nat = [0, 0]\nfacing = \"E\"\nprogram = [\"move1\"]\n[expect.\"{red}\"]\nat = [1, 0]\n"
        ),
    )
    .unwrap();
    std::fs::write(
        d.join("g.toml"),
        format!(
            "description = \"x\\u001b[2J\"\nturn_limit = 1\n{}[[robot]]\nname = \"{red}\"\n",
            board.replace("\". . F\"", "\"S . F\"").replace(
                "\"F\" =",
                "\"S\" = { element = \"start\", number = 1 }\n\"F\" ="
            )
        ),
    )
    .unwrap();
    let raw = |text: &str| {
        text.chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
    };
    let commands: &[&[&str]] = &[
        &["run", "s.toml"],
        &["test", "s.toml"],
        &["run", "s.toml", "--record", "log.json"],
        &["run", "--replay", "log.json"],
        &["render", "s.toml", "-o", "s.svg"],
        &["replay", "s.toml", "-o", "s.html"],
        &["play", "g.toml", "--fast"],
        &["replay", "saves/g.replay.json", "-o", "g.html"],
        &["sim", "g.toml", "--games", "2"],
        &["run", "s.toml", "--json"],
    ];
    for args in commands {
        let out = rally(d, args);
        let (stdout, err) = (String::from_utf8_lossy(&out.stdout), stderr(&out));
        assert!(
            !raw(&stdout) && !raw(&err),
            "rally {args:?} sent control characters:\n{stdout:?}\n{err:?}"
        );
        assert!(out.status.code() != Some(2), "rally {args:?}: {err}");
    }
    for picture in ["s.svg", "s.html", "g.html"] {
        let text = std::fs::read_to_string(d.join(picture)).unwrap();
        assert!(
            !raw(&text.replace('\r', "")),
            "{picture} holds control characters"
        );
    }
    let svg = std::fs::read_to_string(d.join("s.svg")).unwrap();
    roxmltree::Document::parse(&svg).expect("the SVG is well-formed XML");
}

/// A replay log of another version says so (not what this version misses in it), and JSON
/// errors say where once.
#[test]
fn a_replay_log_of_another_version_and_a_broken_save_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("r.json"), "{\"rally_replay\": 2}\n").unwrap();
    for args in [&["run", "--replay", "r.json"][..], &["replay", "r.json"]] {
        let out = rally(d, args);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains("r.json: replay log version 2, this rally reads version 1"),
            "{}",
            stderr(&out)
        );
    }
    std::fs::write(d.join("s.json"), "{\"format\": 1, \"game\": 5}\n").unwrap();
    let out = rally(d, &["play", "--resume", "s.json"]);
    let err = stderr(&out);
    assert!(
        err.contains("s.json:1:23: not a rally save: expected a path (text), not 5"),
        "{err}"
    );
    assert!(!err.contains("at line"), "{err}");
}

/// A name declared by two files names both, blaming neither (the standard file may well be
/// the one loaded second).
#[test]
fn an_element_defined_twice_names_both_files() {
    let dir = support::copy_of(&["scripts"]);
    let d = dir.path();
    std::fs::write(
        d.join("scripts/elements/afloor.lua"),
        "return rally.element {\n  name = \"floor\",\n}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("s.toml"),
        "[board]\ngrid = \".\"\n[board.legend]\n\".\" = \"floor\"\n",
    )
    .unwrap();
    let out = rally(d, &["run", "s.toml"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("element `floor` is defined twice, in scripts/elements/afloor.lua and in scripts/elements/floor.lua"),
        "{err}"
    );
}
