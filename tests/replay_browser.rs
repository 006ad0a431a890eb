//! The HTML replay viewer in a real headless browser (Chromium driven through ChromeDriver's
//! WebDriver protocol): it opens from disk, shows the start, steps forward frame by frame (each
//! card, each step of the board), and at every step the robots drawn on screen stand on the
//! squares the replay log says, facing the way it says; laser lines run from shooter to
//! target; a link opens the page on a frame and the event list links to frames; the board fits
//! a 1280×900 window.
//!
//! With `RALLY_SCREENSHOTS=DIR` the tests leave screenshots of what they saw in DIR.
//!
//! Needs `chromium` and `chromedriver` (`.ci/install-browser.sh` installs them). Without them
//! the test says SKIPPED and why, on stderr, and passes; with `RALLY_REQUIRE_BROWSER=1` (CI,
//! after installing) a missing browser is a failure instead.

use crate::support::browser;

use crate::support::browser::Browser;
use rally::formats::replay::ReplayLog;
use rally::formats::scenario::Scenario;
use rally::pictures::html;
use rally::script::RuleFolders;
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
    let Some(browser) = browser::session("the_viewer_plays_a_replay_log_in_a_browser") else {
        return;
    };
    // Record a replay log of the scenario, as `rally run --record` does.
    let dir = tempfile::tempdir().unwrap();
    let path = Path::new(SCENARIO);
    let scenario = Scenario::load(path).unwrap();
    let common = RuleFolders::default();
    let mut game = scenario
        .start(common.rules(Some(path), scenario.variants.clone()).unwrap())
        .unwrap();
    scenario.resolve(&mut game).unwrap();
    let log_path = dir.path().join("game.json");
    let text = ReplayLog::record(&scenario, &scenario.variants, &game.state(), &log_path)
        .text(&log_path)
        .unwrap();
    std::fs::write(&log_path, text).unwrap();

    // The page, from the log.
    let log = ReplayLog::read(&log_path).unwrap();
    let replayed = log.scenario(&log_path).unwrap();
    let mut game = replayed
        .start(common.rules(Some(path), replayed.variants.clone()).unwrap())
        .unwrap();
    let frames = html::frames(&replayed, &mut game).unwrap();
    // A frame per card and per step in which something happened, in the order of play.
    let stages: Vec<&str> = frames.iter().map(|f| f.moment.stage.as_str()).collect();
    assert_eq!(
        stages,
        [
            "start",
            "card",
            "card",
            "express_belts",
            "belts",
            "gears",
            "fire",
            "card",
            "card",
            "gears",
            "fire",
            "card",
            "card",
            "express_belts",
            "gears",
            "fire"
        ]
    );
    let page_path = dir.path().join("game.html");
    std::fs::write(&page_path, html::page(&game, "test", "", &frames)).unwrap();

    browser.open(&format!("file://{}", page_path.display()));
    let script = format!(
        "const MARGIN = {}, CELL = {};\n{READ_PAGE}",
        rally::pictures::svg::MARGIN,
        rally::pictures::svg::CELL
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
            label.starts_with(&frame.moment.label),
            "frame {i}: label {label:?}, expected {:?}",
            frame.moment.label
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
        assert_eq!(on_screen, expected(i), "frame {i} ({})", frame.moment.label);
        assert_eq!(shown["rows"], json!(["A", "B"]), "the robots table");
        // The event list marks this frame's heading and events (a card frame's heading
        // names the card, so its `card` event is not repeated).
        let current = shown["current"].as_array().unwrap();
        assert_eq!(current[0], json!(frame.moment.label));
        let listed = frame
            .events
            .iter()
            .filter(|e| !(e.what == "card" && e.robot.as_deref() == frame.moment.acting.as_deref()))
            .count();
        let listed = if frame.events.is_empty() { 1 } else { listed };
        assert_eq!(current.len(), 1 + listed, "frame {i}: {current:?}");
        if frame.moment.id == "t1r1s2" {
            browser.screenshot("two_robots_card");
        }
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

/// What the page shows of the board: the frame, the shots (their lines' ends in screen
/// coordinates and the squares there), the beams' ends, and where the board lies in the
/// window.
const READ_BOARD: &str = r#"
const svg = document.querySelector('#board-view svg');
const ctm = svg.getScreenCTM();
const square = (x, y) => {
  const p = svg.createSVGPoint(); p.x = x; p.y = y;
  const s = p.matrixTransform(ctm);
  const nw = svg.createSVGPoint(); nw.x = MARGIN; nw.y = MARGIN;
  const o = nw.matrixTransform(ctm);
  const cell = CELL * ctm.a;
  return [Math.floor((s.x - o.x) / cell), Math.floor((s.y - o.y) / cell)];
};
const ends = (line) => [square(line.x1.baseVal.value, line.y1.baseVal.value),
                        square(line.x2.baseVal.value, line.y2.baseVal.value)];
const shots = Array.from(svg.querySelectorAll('#shots .rb-shot')).map(g => ({
  target: g.dataset.target, shooter: g.dataset.shooter, ends: ends(g.querySelector('line')) }));
const beams = Array.from(svg.querySelectorAll('#beams line')).map(ends);
const board = svg.getBoundingClientRect();
const aside = document.querySelector('aside').getBoundingClientRect();
return { frame: Number(document.body.dataset.frame), hash: location.hash, shots, beams,
         board: [board.left, board.top, board.right, board.bottom],
         window: [innerWidth, innerHeight], aside: aside.left,
         current: Array.from(document.querySelectorAll('#events li.current')).length };
"#;

#[test]
fn deep_links_laser_lines_and_the_board_fitted_to_the_window() {
    let Some(browser) =
        browser::session("deep_links_laser_lines_and_the_board_fitted_to_the_window")
    else {
        return;
    };
    // The tour: a 12×12 board whose bottom row a 900 pixels high window used to cut.
    let path = Path::new("boards/tour.toml");
    let scenario = Scenario::load(path).unwrap();
    let mut game = scenario
        .start(
            RuleFolders::default()
                .rules(Some(path), Vec::new())
                .unwrap(),
        )
        .unwrap();
    let frames = html::frames(&scenario, &mut game).unwrap();
    let views = html::view::views(&game.board(), &frames, &game.rules().sentences);
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("tour.html");
    std::fs::write(&page, html::page(&game, "tour", "", &frames)).unwrap();
    let url = format!("file://{}", page.display());
    let read = format!(
        "const MARGIN = {}, CELL = {};\n{READ_BOARD}",
        rally::pictures::svg::MARGIN,
        rally::pictures::svg::CELL
    );

    // A link to the lasers of a register in which robots shoot each other.
    let (at, lasers) = views
        .iter()
        .enumerate()
        .find(|(_, v)| {
            v.moment.stage == "fire"
                && v.shots.iter().any(|s| s.shooter.is_some())
                && v.beams.iter().any(|b| b.hit.is_some())
        })
        .expect("the tour has robots shooting robots, and one standing in a board laser");
    browser.resize(1280, 900);
    browser.open(&format!("{url}#{}", lasers.moment.id));
    let shown = run_settled(&browser, &read);
    browser.screenshot("tour_lasers");
    assert_eq!(shown["frame"], json!(at), "the link opens its frame");
    // Every shot is drawn from its shooter's square (or the emitter's) to its target's.
    let drawn = shown["shots"].as_array().unwrap();
    assert_eq!(drawn.len(), lasers.shots.len(), "one line per shot");
    for (line, shot) in drawn.iter().zip(&lasers.shots) {
        assert_eq!(line["target"], json!(shot.target));
        assert_eq!(
            line["shooter"],
            json!(shot.shooter.clone().unwrap_or_default())
        );
        let from: [i32; 2] = shot.from.into();
        let to: [i32; 2] = shot.to.into();
        assert_eq!(line["ends"], json!([from, to]), "the line of {shot:?}");
    }
    // Board lasers' beams end where the engine stops them: at the first robot or a wall.
    let beams = shown["beams"].as_array().unwrap();
    let expected: Vec<Value> = lasers
        .beams
        .iter()
        .map(|b| json!([<[i32; 2]>::from(b.from), <[i32; 2]>::from(b.to)]))
        .collect();
    for beam in &expected {
        assert!(beams.contains(beam), "beam {beam} not drawn: {beams:?}");
    }

    // The whole board fits a 1280×900 window beside the side panel.
    let [left, top, right, bottom]: [f64; 4] =
        serde_json::from_value(shown["board"].clone()).unwrap();
    let [width, height]: [f64; 2] = serde_json::from_value(shown["window"].clone()).unwrap();
    assert!(
        left >= 0.0 && top >= 0.0 && bottom <= height && right <= width,
        "the board {:?} is not inside the window {width}×{height}",
        [left, top, right, bottom]
    );
    assert!(
        right <= shown["aside"].as_f64().unwrap(),
        "the board overlaps the panel"
    );
    assert!(
        bottom - top > 0.7 * height,
        "the board is not shrunk more than needed"
    );

    // A mangled or unknown link opens the first frame instead of breaking the page.
    for bad in ["%E0%A4%A", "t99r9s9", "<b>"] {
        browser.open("about:blank"); // a fresh load, not a jump within the page
        browser.open(&format!("{url}#{bad}"));
        assert_eq!(run_settled(&browser, &read)["frame"], json!(0), "#{bad}");
    }

    // A register's link opens its first frame; the address follows the frame shown.
    browser.run("location.hash = '#t1r2'; return null;");
    let shown = run_settled(&browser, &read);
    let first = views.iter().position(|v| v.moment.id == "t1r2s1").unwrap();
    assert_eq!(shown["frame"], json!(first));
    assert_eq!(shown["hash"], json!("#t1r2s1"));

    // The event list links back: from the last frame, an earlier frame's event opens it.
    browser.click("#last");
    browser.click(&format!("#events li[data-frame=\"{at}\"]:not(.heading) a"));
    let shown = run_settled(&browser, &read);
    assert_eq!(shown["frame"], json!(at), "an event opens its frame");
    assert_eq!(shown["hash"], json!(format!("#{}", lasers.moment.id)));
    assert!(
        shown["current"].as_u64().unwrap() > 1,
        "its events are marked"
    );
}
