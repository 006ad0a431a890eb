//! Scenarios of several turns (`turns = N`, docs/formats.md) as an author meets them:
//! mistakes in the per-turn keys are errors that say where and what, never silent. (What the
//! turns do is checked by the scenarios in tests/scenarios/turns/.)

use rally::formats::scenario::Scenario;
use rally::script::RuleSet;
use std::path::Path;

const BOARD: &str = r#"
[board]
grid = """
. . . .
. . . .
"""
[board.legend]
"." = "floor"
"#;

fn write(body: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(&path, format!("{body}\n{BOARD}")).unwrap();
    (dir, path)
}

/// The error loading the scenario gives.
fn load_error(body: &str) -> String {
    let (_dir, path) = write(body);
    Scenario::load(&path).expect_err("an error").to_string()
}

/// A one-turn scenario of robot A at [0, 0] facing E, with `keys` added to it.
fn one_turn_robot(keys: &str) -> String {
    format!("turns = 1\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"E\"\n{keys}")
}

/// The error resolving the scenario gives.
fn resolve_error(body: &str) -> String {
    let (_dir, path) = write(body);
    let scenario = Scenario::load(&path).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sources = scenario.sources(
        &rally::script::Project::folders(root.join("scripts"), root.join("variants")),
        &[],
    );
    let mut game = scenario.start(RuleSet::load(&sources).unwrap()).unwrap();
    scenario
        .resolve(&mut game)
        .expect_err("an error")
        .to_string()
}

#[test]
fn per_turn_keys_need_turns() {
    let err = load_error(
        "[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"N\"\nprograms = [[\"move1\"]]",
    );
    assert!(err.contains("s.toml:"), "{err}");
    assert!(err.contains("`programs` needs `turns = N`"), "{err}");
    let err = load_error(
        "[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"N\"\n[after_turn.1.A]\ndamage = 0",
    );
    assert!(err.contains("need `turns = N`"), "{err}");
}

#[test]
fn turns_and_after_turn_are_checked() {
    let err = load_error("turns = 0\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"N\"");
    assert!(err.contains("s.toml:1:"), "{err}");
    assert!(err.contains("turns = 0: expected 1 to 50"), "{err}");
    let err = load_error(
        "turns = 2\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"N\"\n[after_turn.3.A]\ndamage = 0",
    );
    assert!(
        err.contains("[after_turn.3]: expected a turn from 1 to 2"),
        "{err}"
    );
    let err = load_error(
        "turns = 2\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"N\"\n[after_turn.1.B]\ndamage = 0",
    );
    assert!(
        err.contains("[after_turn.1.B]: there is no robot `B`"),
        "{err}"
    );
}

#[test]
fn program_and_programs_are_not_both_given() {
    let err = load_error(
        "turns = 2\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"N\"\nprogram = [\"move1\"]\nprograms = [[\"move1\"]]",
    );
    assert!(err.contains("not both"), "{err}");
    let err = load_error(
        "turns = 1\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"N\"\nprograms = [[\"move1\"], [\"move1\"]]",
    );
    assert!(err.contains("2 programs for 1 turn(s)"), "{err}");
}

#[test]
fn a_program_longer_than_the_unlocked_registers_is_an_error_naming_the_turn() {
    let err = resolve_error(&one_turn_robot(
        r#"damage = 6
programs = [["left", "right", "left", "right"]]"#,
    ));
    assert!(err.contains("s.toml"), "{err}");
    assert!(err.contains("turn 1:"), "{err}");
    assert!(
        err.contains("4 card(s) for 3 unlocked register(s) (6 damage locks 2)"),
        "{err}"
    );
}

#[test]
fn a_powered_down_robot_has_no_program() {
    let err = resolve_error(&one_turn_robot(
        r#"powered_down = true
programs = [["move1"]]"#,
    ));
    assert!(
        err.contains("turn 1: robot `A` is powered down this turn"),
        "{err}"
    );
}

#[test]
fn more_locked_cards_than_locked_registers_is_an_error() {
    let err = resolve_error(&one_turn_robot(
        r#"damage = 5
locked = ["move1", "move2"]"#,
    ));
    assert!(
        err.contains("2 locked card(s), but 5 damage locks 1 register(s)"),
        "{err}"
    );
}

#[test]
fn a_program_card_not_in_the_stacked_hand_is_an_error() {
    let err = resolve_error(&one_turn_robot(
        r#"programs = [["move1"]]
hands = [["move2", "left"]]"#,
    ));
    assert!(err.contains("turn 1: the program for A"), "{err}");
}

#[test]
fn the_replay_viewer_shows_a_scenario_of_several_turns_turn_by_turn() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scenarios/turns/power_down_next_turn.toml");
    let scenario = Scenario::load(&path).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sources = scenario.sources(
        &rally::script::Project::folders(root.join("scripts"), root.join("variants")),
        &[],
    );
    let mut game = scenario.start(RuleSet::load(&sources).unwrap()).unwrap();
    let frames = rally::pictures::html::frames(&scenario, &mut game).unwrap();
    let labels: Vec<&str> = frames.iter().map(|f| f.moment.label.as_str()).collect();
    assert_eq!(labels[0], "Turn 1 · Start", "{labels:?}");
    for turn in 1..=3 {
        let end = format!("Turn {turn} · End of turn");
        assert!(labels.contains(&end.as_str()), "no `{end}` in {labels:?}");
    }
    assert_eq!(labels.last(), Some(&"Turn 3 · End of turn"));
}
