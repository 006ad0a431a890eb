//! The events say why (docs/pictures.md, "A replay that explains every move"): a move stopped
//! by a wall names the wall, a push the robot it could not push, a laser hit the square its
//! beam came from and the robot that fired it. The scenarios in tests/scenarios/events/ count
//! the events; this checks what they carry, in the JSON `rally run --json` prints.

use rally::formats::scenario::Scenario;
use rally::script::RuleFolders;
use serde_json::{json, Value};
use std::path::Path;

/// The events of a resolved scenario, as JSON.
fn events(path: &str) -> Vec<Value> {
    let path = Path::new(path);
    let scenario = Scenario::load(path).unwrap();
    let rules = RuleFolders::default()
        .rules(Some(path), scenario.variants.clone())
        .unwrap();
    let mut game = scenario.start(rules).unwrap();
    scenario.resolve(&mut game).unwrap();
    let events = serde_json::to_value(&game.state().events).unwrap();
    events.as_array().unwrap().clone()
}

fn find<'a>(events: &'a [Value], what: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["what"] == what).collect()
}

#[test]
fn a_blocked_move_names_the_wall() {
    let events = events("tests/scenarios/events/blocked_move_names_the_wall.toml");
    let blocked = find(&events, "blocked");
    assert_eq!(blocked.len(), 1);
    let e = blocked[0];
    assert_eq!(e["robot"], "A");
    assert_eq!(e["dir"], "E");
    assert_eq!(
        e["wall"],
        json!([1, 0]),
        "the wall is on the E side of [1,0]"
    );
}

#[test]
fn a_blocked_push_names_the_robot_and_the_wall() {
    let events = events("tests/scenarios/events/blocked_push_names_the_robot.toml");
    let blocked = find(&events, "push_blocked");
    assert_eq!(blocked.len(), 1);
    let e = blocked[0];
    assert_eq!(e["robot"], "A", "the mover logs it");
    assert_eq!(e["pushing"], "B");
    assert_eq!(e["dir"], "E");
    assert_eq!(
        e["wall"],
        json!([2, 0]),
        "the wall stops B, on the E side of [2,0]"
    );
}

#[test]
fn a_hit_names_its_shooter_and_where_the_beam_came_from() {
    let events = events("tests/scenarios/events/hits_name_their_shooter.toml");
    let hits = find(&events, "damaged");
    let robot = hits.iter().find(|e| e["cause"] == "robot laser").unwrap();
    assert_eq!(robot["robot"], "Target");
    assert_eq!(robot["shooter"], "Shooter");
    assert_eq!(robot["source"], json!([0, 0]));
    let board = hits.iter().find(|e| e["cause"] == "laser").unwrap();
    assert_eq!(board["source"], json!([3, 0]), "the emitter's square");
    assert!(
        board.get("shooter").is_none(),
        "a board laser has no shooter"
    );
    // Keys are only added: what the contract's events have is still there.
    for key in [
        "turn", "register", "segment", "robot", "what", "amount", "cause", "damage",
    ] {
        assert!(board.get(key).is_some(), "{key} missing from {board}");
    }
}

#[test]
fn a_prevented_hit_names_where_its_beam_came_from() {
    // Ablative Coat absorbs a board laser's three points.
    let events = events("tests/scenarios/options/ablative_coat/soaks_three.toml");
    let prevented = find(&events, "damage_prevented");
    assert_eq!(prevented.len(), 1);
    assert_eq!(prevented[0]["cause"], "laser");
    assert_eq!(prevented[0]["source"], json!([1, 0]), "{}", prevented[0]);
}
