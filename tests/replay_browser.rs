//! The HTML replay viewer in a real headless browser (Chromium driven through ChromeDriver's
//! WebDriver protocol): it opens from disk, shows the start, steps forward register by
//! register, and at every step the robots drawn on screen stand on the squares the replay log
//! says, facing the way it says.
//!
//! Needs `chromium` and `chromedriver` (`.ci/install-browser.sh` installs them). Without them
//! the test says SKIPPED and why, on stderr, and passes; with `RALLY_REQUIRE_BROWSER=1` (CI,
//! after installing) a missing browser is a failure instead.

mod browser;

use browser::Browser;
use rally::commands::Common;
use rally::html;
use rally::replay::ReplayLog;
use rally::scenario::Scenario;
use serde_json::{json, Value};
use std::path::Path;

const SCENARIO: &str = "tests/pictures/replay_two_robots.toml";

/// Runs `script` (a function body that returns a value) once the board's animation has
/// ended: the page's own signal (`board.settled()`), no sleeping.
fn run_settled(browser: &Browser, script: &str) -> Value {
    let wrapped = format!(
        "const done = arguments[arguments.length - 1];\n\
         window.rallyViewer.board.settled().then(() => done((function () {{ {script} }})()));"
    );
    browser.post("/execute/async", json!({ "script": wrapped, "args": [] }))
}

/// What the page shows: the frame label, and per robot drawn its data attributes and whether
/// its drawing's centre lies inside the square its attributes name (screen coordinates,
/// through the SVG's own transform, so scaling of the picture does not matter).
const READ_PAGE: &str = r#"
const svg = document.querySelector('#board-view svg');
const ctm = svg.getScreenCTM();
const toScreen = (x, y) => { const p = svg.createSVGPoint(); p.x = x; p.y = y; return p.matrixTransform(ctm); };
const robots = Array.from(svg.querySelectorAll('#robots .robot')).map(g => {
  const x = Number(g.dataset.x), y = Number(g.dataset.y);
  const r = g.getBoundingClientRect();
  const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
  const nw = toScreen(MARGIN + x * CELL, MARGIN + y * CELL);
  const se = toScreen(MARGIN + (x + 1) * CELL, MARGIN + (y + 1) * CELL);
  return { name: g.dataset.robot, at: [x, y], facing: g.dataset.facing,
           inside: cx > nw.x && cx < se.x && cy > nw.y && cy < se.y };
});
const rows = Array.from(document.querySelectorAll('#robots-table tbody tr')).map(tr => tr.dataset.robot);
const current = Array.from(document.querySelectorAll('#events li.current')).map(li => li.textContent);
return { frame: Number(document.body.dataset.frame), label: document.getElementById('frame-label').textContent,
         slider: Number(document.getElementById('slider').value), robots, rows, current };
"#;

#[test]
fn the_viewer_plays_a_replay_log_in_a_browser() {
    let Some((chromium, chromedriver)) =
        browser::tools("the_viewer_plays_a_replay_log_in_a_browser")
    else {
        return;
    };

    // Record a replay log of the scenario, as `rally run --record` does.
    let dir = tempfile::tempdir().unwrap();
    let path = Path::new(SCENARIO);
    let scenario = Scenario::load(path).unwrap();
    let common = Common::default();
    let mut game = scenario
        .start(common.rules(Some(path), scenario.variants.clone()).unwrap())
        .unwrap();
    scenario.resolve(&mut game).unwrap();
    let log_path = dir.path().join("game.json");
    ReplayLog::record(&scenario, &scenario.variants, &game.state(), &log_path)
        .write(&log_path)
        .unwrap();

    // The page, from the log.
    let log = ReplayLog::read(&log_path).unwrap();
    let replayed = log.scenario(&log_path).unwrap();
    let mut game = replayed
        .start(common.rules(Some(path), replayed.variants.clone()).unwrap())
        .unwrap();
    let frames = html::frames(&replayed, &mut game).unwrap();
    assert_eq!(frames.len(), 1 + scenario.registers as usize);
    let page_path = dir.path().join("game.html");
    std::fs::write(&page_path, html::page(&game, "test", "", &frames)).unwrap();

    let browser = Browser::start(&chromium, &chromedriver);
    browser.open(&format!("file://{}", page_path.display()));
    let script = format!(
        "const MARGIN = {}, CELL = {};\n{READ_PAGE}",
        rally::svg::MARGIN,
        rally::svg::CELL
    );

    // Where each frame must show each robot: the log's robots at the start and at the end,
    // the register-by-register resolution in between.
    let expected = |i: usize| -> Vec<(String, [i32; 2], String)> {
        let robots: Vec<Value> = if i == 0 {
            serde_json::to_value(&log.robots).unwrap()
        } else if i == frames.len() - 1 {
            serde_json::to_value(&log.result.robots).unwrap()
        } else {
            serde_json::to_value(&frames[i].robots).unwrap()
        }
        .as_array()
        .unwrap()
        .clone();
        robots
            .iter()
            .filter(|r| r["destroyed"] != json!(true))
            .map(|r| {
                (
                    r["name"].as_str().unwrap().to_string(),
                    serde_json::from_value(r["at"].clone()).unwrap(),
                    r["facing"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };

    for (i, frame) in frames.iter().enumerate() {
        if i > 0 {
            browser.click("#next");
        }
        let shown = run_settled(&browser, &script);
        assert_eq!(shown["frame"], json!(i), "frame index after {i} steps");
        assert_eq!(shown["slider"], json!(i), "slider after {i} steps");
        let label = shown["label"].as_str().unwrap();
        assert!(
            label.starts_with(&frame.label),
            "frame {i}: label {label:?}, expected {:?}",
            frame.label
        );
        let on_screen: Vec<(String, [i32; 2], String)> = shown["robots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                assert_eq!(
                    r["inside"],
                    json!(true),
                    "frame {i}: robot {} is not drawn inside its square {}",
                    r["name"],
                    r["at"]
                );
                (
                    r["name"].as_str().unwrap().to_string(),
                    serde_json::from_value(r["at"].clone()).unwrap(),
                    r["facing"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(on_screen, expected(i), "frame {i} ({})", frame.label);
        assert_eq!(shown["rows"], json!(["A", "B"]), "the robots table");
        // The event list marks this frame's heading and events.
        let current = shown["current"].as_array().unwrap();
        assert_eq!(current[0], json!(frame.label));
        assert_eq!(current.len(), 1 + frame.events.len().max(1));
    }
    // Stepping past the end stays on the last frame.
    browser.click("#next");
    assert_eq!(
        run_settled(&browser, &script)["frame"],
        json!(frames.len() - 1)
    );
    // And the slider goes back to the start.
    browser.click("#first");
    assert_eq!(run_settled(&browser, &script)["frame"], json!(0));
}
