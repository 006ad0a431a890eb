//! `rally run --record LOG` and `rally run --replay LOG`: a recorded scenario resolves the same
//! under the same rules, and an edited rule shows up as a difference against the recording.

use crate::support::{self, rally, text};

use std::path::Path;

fn scenario() -> String {
    format!(
        "{}{}",
        support::BELT_ONTO_GEAR,
        r#"[[robot]]
name = "A"
at = [1, 0]
facing = "S"
program = ["move1"]
"#
    )
}

#[test]
fn a_recording_replays_unchanged_then_shows_a_rule_edit() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    support::copy_dir(&root.join("scripts"), &dir.path().join("scripts"));
    std::fs::create_dir(dir.path().join("logs")).unwrap();
    std::fs::write(dir.path().join("s.toml"), scenario()).unwrap();

    let out = rally(dir.path(), &["run", "s.toml", "--record", "logs/game.json"]);
    assert!(out.status.success(), "{}", text(&out));
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("logs/game.json")).unwrap())
            .unwrap();
    assert_eq!(log["rally_replay"], 1);
    assert_eq!(log["scenario"], "../s.toml");
    assert_eq!(log["robots"][0]["program"][0], "move1");

    // The scenario file's robots may change afterwards: the log's program is what replays.
    std::fs::write(
        dir.path().join("s.toml"),
        scenario().replace("program = [\"move1\"]", ""),
    )
    .unwrap();
    let out = rally(dir.path(), &["run", "--replay", "logs/game.json"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("no change"), "{}", text(&out));

    let gear = dir.path().join("scripts/elements/gear.lua");
    let rule = std::fs::read_to_string(&gear).unwrap().replace(
        "gears = rally.effect.rotate(\"turn\", { by = \"gear\" }),",
        "gears = function(ctx, tile, robot) ctx:rotate(robot, tile.turn == 'left' and 'right' or 'left', 'gear') end,",
    );
    std::fs::write(&gear, rule).unwrap();
    let out = rally(dir.path(), &["run", "--replay", "logs/game.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let shown = text(&out);
    assert!(shown.contains("first difference at event"), "{shown}");
    assert!(shown.contains("A        facing W → E"), "{shown}");
}

#[test]
fn a_log_that_is_not_one_is_an_error_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.json"),
        "{\n  \"rally_replay\": 1,\n  \"sede\": 3\n}\n",
    )
    .unwrap();
    let out = rally(dir.path(), &["run", "--replay", "bad.json"]);
    assert_eq!(out.status.code(), Some(2));
    let shown = text(&out);
    assert!(shown.contains("bad.json:3:"), "{shown}");
    assert!(shown.contains("unknown field `sede`"), "{shown}");
}
