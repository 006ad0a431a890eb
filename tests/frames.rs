//! The frame JSON the viewer and the playtest table draw (`rally::pictures::html::view`, documented in
//! docs/pictures.md): one frame per card and per step in which something happened, the squares
//! a robot went through, the facing it turned from, the wreck of a robot destroyed, the cards
//! revealed in priority order, the events in words and the winner.

use rally::formats::scenario::Scenario;
use rally::pictures::html::{self, view::FrameView};
use rally::script::RuleFolders;
use serde_json::{json, Value};
use std::path::Path;

/// The frames of tests/frames/race.toml as the page gets them (JSON).
fn race() -> Vec<Value> {
    let path = Path::new("tests/frames/race.toml");
    let scenario = Scenario::load(path).unwrap();
    let rules = RuleFolders::default()
        .rules(Some(path), Vec::new())
        .unwrap();
    let mut game = scenario.start(rules).unwrap();
    let frames = html::frames(&scenario, &mut game).unwrap();
    let views: Vec<FrameView> = html::view::views(&game.board(), &frames, &game.rules().sentences);
    serde_json::to_value(views)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn robot<'a>(frame: &'a Value, name: &str) -> &'a Value {
    frame["robots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap()
}

fn frame<'a>(frames: &'a [Value], id: &str) -> &'a Value {
    frames.iter().find(|f| f["id"] == id).unwrap_or_else(|| {
        let ids: Vec<&Value> = frames.iter().map(|f| &f["id"]).collect();
        panic!("no frame {id} in {ids:?}")
    })
}

#[test]
fn a_frame_per_card_and_per_step_with_names_for_links() {
    let frames = race();
    let shown: Vec<(&str, &str, &str)> = frames
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap(),
                f["stage"].as_str().unwrap(),
                f["label"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("t1r0", "start", "Start"),
            (
                "t1r1s1",
                "card",
                "Register 1 · robot Runner plays Move 2 (700)"
            ),
            (
                "t1r1s2",
                "card",
                "Register 1 · robot Pusher plays Move 1 (500)"
            ),
            (
                "t1r2s1",
                "card",
                "Register 2 · robot Runner plays Move 1 (600)"
            ),
            (
                "t1r2s2",
                "card",
                "Register 2 · robot Pusher plays Turn Right (90)"
            ),
            ("t1r2s3", "touch", "Register 2 · flags and repair sites"),
            (
                "t1r3s1",
                "card",
                "Register 3 · robot Runner plays Turn Left (100)"
            ),
            (
                "t1r3s2",
                "card",
                "Register 3 · robot Pusher plays Turn Right (80)"
            ),
        ]
    );
    assert_eq!(frame(&frames, "t1r1s2")["acting"], "Pusher");
    assert_eq!(frame(&frames, "t1r2s3")["acting"], Value::Null);
}

#[test]
fn robots_carry_where_they_came_from_and_their_wrecks() {
    let frames = race();
    let push = frame(&frames, "t1r1s2");
    assert_eq!(robot(push, "Pusher")["path"], json!([[1, 1], [2, 1]]));
    assert_eq!(robot(push, "Block")["path"], json!([[2, 1], [3, 1]]));
    assert_eq!(
        robot(push, "Block")["wrecked"],
        true,
        "destroyed in the pit here"
    );
    assert_eq!(robot(push, "Block")["destroyed"], true);
    assert!(
        robot(push, "Runner").get("path").is_none(),
        "Runner moved in the frame before, not in this one"
    );
    let later = frame(&frames, "t1r2s1");
    assert!(
        robot(later, "Block").get("wrecked").is_none(),
        "a wreck is shown once"
    );
    let run = frame(&frames, "t1r1s1");
    assert_eq!(
        robot(run, "Runner")["path"],
        json!([[1, 0], [2, 0], [3, 0]])
    );
    let turn = frame(&frames, "t1r2s2");
    assert_eq!(robot(turn, "Pusher")["was_facing"], "E");
    assert_eq!(robot(turn, "Pusher")["facing"], "S");
}

#[test]
fn cards_are_revealed_in_priority_order() {
    let frames = race();
    let shown = |id: &str, name: &str| robot(frame(&frames, id), name)["shown"].clone();
    assert_eq!(
        shown("t1r0", "Runner"),
        0,
        "nothing is face up at the start"
    );
    // Register 1: Runner (700) acts first; Pusher's card is still face down meanwhile.
    assert_eq!(shown("t1r1s1", "Runner"), 1);
    assert_eq!(shown("t1r1s1", "Pusher"), 0);
    assert_eq!(shown("t1r1s2", "Pusher"), 1);
    // Register 2: register 1's cards stay up; each of register 2's turns up as it is played.
    assert_eq!(shown("t1r2s1", "Pusher"), 1);
    assert_eq!(shown("t1r2s2", "Pusher"), 2);
    assert_eq!(
        shown("t1r2s3", "Runner"),
        2,
        "after the cards, all of them are up"
    );
    let program = &robot(frame(&frames, "t1r0"), "Runner")["program"];
    assert_eq!(
        program,
        &json!(["move2@700", "move1@600", "left@100", null, null])
    );
    assert_eq!(robot(frame(&frames, "t1r0"), "Block")["program"], json!([]));
}

#[test]
fn events_in_words_and_the_winner_marked_from_then_on() {
    let frames = race();
    let texts = |id: &str| -> Vec<String> {
        frame(&frames, id)["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["text"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(texts("t1r1s2").contains(&"Robot Block is destroyed (pit), 2 lives left".to_string()));
    assert!(texts("t1r1s2").contains(&"Robot Block is pushed E to [3, 1]".to_string()));
    // The win is logged as the step that reached the last flag ends (ties are ranked then).
    assert_eq!(
        texts("t1r2s3"),
        [
            "Robot Runner touches flag 1",
            "Robot Runner archives at [4, 0]",
            "Robot Runner touches the last flag and wins"
        ]
    );
    let winners: Vec<&Value> = frames.iter().map(|f| &f["winner"]).collect();
    let from = frames.iter().position(|f| f["id"] == "t1r2s3").unwrap();
    for (i, winner) in winners.iter().enumerate() {
        let expected = if i < from {
            Value::Null
        } else {
            json!("Runner")
        };
        assert_eq!(**winner, expected, "frame {i}");
    }
}

/// A hostile robot name cannot break out of the page: the data's `<` is escaped, the SVG's
/// text is escaped, and the page's scripts only ever put names in as text.
#[test]
fn a_hostile_robot_name_stays_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    let name = r#"</script><img src=x onerror="alert(1)">"#;
    std::fs::write(
        &path,
        format!(
            "[board]\ngrid = \". .\"\n[board.legend]\n\".\" = \"floor\"\n[[robot]]\nname = '{name}'\nat = [0, 0]\nfacing = \"E\"\nprogram = [\"move1\"]\n"
        ),
    )
    .unwrap();
    let scenario = Scenario::load(&path).unwrap();
    let rules = RuleFolders::default()
        .rules(Some(&path), Vec::new())
        .unwrap();
    let mut game = scenario.start(rules).unwrap();
    let frames = html::frames(&scenario, &mut game).unwrap();
    let page = html::page(&game, name, name, &frames);
    assert!(
        !page.contains("<img"),
        "the name got into the page as markup"
    );
    assert_eq!(
        page.matches("</script>").count(),
        3,
        "only the page's own scripts end"
    );
}
