//! The playtest table in real headless browsers: two players open their seat links in two
//! browser sessions and program a turn by clicking their cards; a bot plays the third seat.
//! After the turn both pages show the robots where `rally run` puts them for the same cards.
//! Then the designer saves a script: both pages show the new rules version; a broken save
//! shows its error on the host page only.
//!
//! Skips without Chromium (see tests/browser). `RALLY_SCREENSHOTS=DIR` keeps screenshots of
//! the pages in DIR (docs/table/ holds the ones docs/table.md shows).

use crate::support;
use crate::support::browser;

use crate::support::browser::Browser;
use crate::support::table_client::{serve, serve_lobby, Workspace};
use rally::table::protocol::Settings;
use rally::table::Lobby;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;

/// How long a page may take to show what the test waits for. Passing runs never wait this
/// long; it only bounds a failing run, so it is generous for a loaded 2-core machine.
const PATIENCE: Duration = Duration::from_secs(60);

/// The robots the page draws: name → ([x, y], facing).
const ROBOTS: &str = r#"
const gs = document.querySelectorAll('#board-view svg #robots .robot');
if (gs.length === 0) return null;
return Array.from(gs).map(g => [g.dataset.robot, [Number(g.dataset.x), Number(g.dataset.y)], g.dataset.facing]);
"#;

/// The drawing module's animation ends even when the browser stamps its first frame before
/// the animation began (a frame's timestamp is when the frame started, which on a loaded
/// machine is often before the `performance.now()` the animation took): the page used to
/// throw there and wait for the animation forever, so the table never showed turn 2.
fn an_animation_stamped_before_it_began_still_ends(page: &Browser) {
    let ended = page.post(
        "/execute/async",
        json!({"args": [], "script": r##"
const done = arguments[0];
const real = window.requestAnimationFrame;
window.requestAnimationFrame = (f) => real(() => f(performance.now() - 300));
const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
const board = RallyBoard.mount(svg, { duration: 20 });
board.show({ robots: [{ name: "X", color: "#d6372e", at: [0, 2], facing: "E", was_facing: "N",
  path: [[0, 0], [0, 1], [0, 2]], damage: 0, lives: 3, flags: 0 }] }, { animate: true });
const restore = (what) => { window.requestAnimationFrame = real; done(what); };
board.settled().then(() => restore("ended"), (e) => restore(String(e)));
setTimeout(() => restore("still animating after 10 s"), 10000);
"##}),
    );
    assert_eq!(ended, "ended");
    assert_eq!(page.errors(), Vec::<String>::new(), "script errors");
}

/// Clicks the first five cards of the hand one by one (each click fills the first empty
/// register), then Ready. Returns the cards.
fn program(page: &Browser) -> Vec<String> {
    page.wait_for(
        "the hand",
        "return document.body.dataset.phase === 'programming' && document.querySelectorAll('#hand .card').length === 9;",
        PATIENCE,
    );
    let hand: Vec<String> = serde_json::from_value(page.run(
        "return Array.from(document.querySelectorAll('#hand .card')).map(c => c.dataset.card);",
    ))
    .unwrap();
    for (i, card) in hand.iter().take(5).enumerate() {
        page.click(&format!("#hand .card[data-card='{card}']"));
        page.wait_for(
            "the card in its register",
            &format!(
                "return document.querySelector('#registers .slot[data-register=\"{}\"] .card[data-card=\"{card}\"]') !== null;",
                i + 1
            ),
            PATIENCE,
        );
    }
    hand[..5].to_vec()
}

#[test]
fn two_players_and_a_bot_play_a_turn_in_two_browsers() {
    let Some((chromium, chromedriver)) =
        browser::tools("two_players_and_a_bot_play_a_turn_in_two_browsers")
    else {
        return;
    };
    let ws = Workspace::new();
    let launch = ws.launch("arena", Settings::default(), true);
    let save = launch.save.clone();
    let (server, infos) = serve(vec![launch]);
    let tokens = &infos[0].tokens();
    let link = |token: &str| format!("http://{}/t/arena#{token}", server.addr);

    let ann = Browser::start(&chromium, &chromedriver);
    let bob = Browser::start(&chromium, &chromedriver);
    let host = Browser::start(&chromium, &chromedriver);
    host.open(&link(&tokens.host));
    host.wait_for(
        "the host page",
        "return document.body.dataset.phase === 'waiting';",
        PATIENCE,
    );
    an_animation_stamped_before_it_began_still_ends(&host);
    ann.open(&link(&tokens.seats[0]));
    bob.open(&link(&tokens.seats[1]));

    program(&ann);
    program(&bob);
    ann.screenshot("programming");
    ann.click("#ready");
    bob.click("#ready");
    if std::env::var_os("RALLY_SCREENSHOTS").is_some() {
        // For docs/table.md: a register being played (only when screenshots are asked for:
        // on a loaded machine the moment may pass before the page is looked at).
        bob.wait_for(
            "a card of register 2 being played",
            "return document.querySelector('#revealed .acting') !== null && document.getElementById('stage-label').textContent.includes('Register 2');",
            PATIENCE,
        );
        bob.screenshot("register");
    }
    // Both pages play the turn and come to turn 2's programming.
    let after = "return document.body.dataset.turn === '2' && document.body.dataset.phase === 'programming' && document.body.dataset.animating === 'no';";
    ann.wait_for("turn 2 on Ann's page", after, PATIENCE);
    bob.wait_for("turn 2 on Bob's page", after, PATIENCE);
    // Every frame of the turn was played, animated: each card of each register, each step.
    for page in [&ann, &bob] {
        let played: Vec<(String, bool)> = serde_json::from_value(
            page.run("return window.rallyTable.played.map(p => [p.id, p.animated]);"),
        )
        .unwrap();
        let ids: Vec<&str> = played.iter().map(|(id, _)| id.as_str()).collect();
        assert!(played.iter().all(|(_, animated)| *animated), "{played:?}");
        assert_eq!(ids.first(), Some(&"t1r0"), "{ids:?}");
        assert_eq!(ids.last(), Some(&"t1end"), "{ids:?}");
        for register in 1..=5 {
            let cards = ids
                .iter()
                .filter(|id| id.starts_with(&format!("t1r{register}s")))
                .count();
            assert!(
                cards >= 3,
                "register {register}: a frame per robot's card at least: {ids:?}"
            );
        }
    }
    bob.screenshot("after-turn");
    // A state that came while the board played (the next turn's deal) waited for the board.
    for page in [&ann, &bob] {
        let early = page.run("return window.rallyTable.applied.filter(a => a.animating);");
        assert_eq!(early, json!([]), "states applied while the board played");
    }
    // Ann reloads: the turn log comes back from the server, written at once.
    ann.open(&link(&tokens.seats[0]));
    ann.wait_for(
        "the turn log after a reload",
        "const e = document.getElementById('events').textContent; return e.includes('Turn 1 · Register 1') && e.includes('Turn 1 · End of turn');",
        PATIENCE,
    );

    // `rally run` on the same cards: a scenario of turn 1 as the save recorded its programs.
    server.lobby.flush_saves();
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
    let dealt = saved["history"][0]["dealt"].as_array().unwrap();
    let mut scenario =
        String::from("board = \"table_board.toml\"\nregisters = 5\nend_of_turn = true\n");
    for (robot, (x, y)) in dealt.iter().zip([(1, 6), (3, 6), (5, 6)]) {
        let program: Vec<String> = robot["program"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap_or("").to_string())
            .collect();
        scenario.push_str(&format!(
            "[[robot]]\nname = {}\nat = [{x}, {y}]\nfacing = \"N\"\nprogram = {}\n",
            robot["robot"],
            json!(program)
        ));
    }
    std::fs::write(ws.path("turn1.toml"), scenario).unwrap();
    let run = support::finish(
        support::rally_command(support::root(), &["run"])
            .arg(ws.path("turn1.toml"))
            .args(["--json", "--scripts"])
            .arg(ws.path("scripts")),
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let ran: Value = serde_json::from_slice(&run.stdout).unwrap();
    let expected: BTreeMap<String, ([i32; 2], String)> = ran["robots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                (
                    serde_json::from_value(r["at"].clone()).unwrap(),
                    r["facing"].as_str().unwrap().to_string(),
                ),
            )
        })
        .collect();
    for (who, page) in [("Ann", &ann), ("Bob", &bob)] {
        let drawn: Vec<(String, [i32; 2], String)> =
            serde_json::from_value(page.wait_for("robots", ROBOTS, PATIENCE)).unwrap();
        let drawn: BTreeMap<String, ([i32; 2], String)> =
            drawn.into_iter().map(|(n, at, f)| (n, (at, f))).collect();
        assert_eq!(drawn, expected, "{who}'s page against `rally run`");
    }

    // The designer saves a script: everyone sees rules v2.
    let gear = ws.path("scripts/elements/gear.lua");
    let good = std::fs::read_to_string(&gear).unwrap();
    std::fs::write(
        &gear,
        format!("{good}\n-- playtest: gears are fine as they are\n"),
    )
    .unwrap();
    for (who, page) in [("Ann", &ann), ("Bob", &bob), ("host", &host)] {
        page.wait_for(
            &format!("rules v2 on {who}'s page"),
            "return document.body.dataset.rules === '2' && document.getElementById('rules').textContent === 'rules v2';",
            PATIENCE,
        );
    }
    let shown = ann.run("return document.getElementById('notices').textContent;");
    assert!(
        shown.as_str().unwrap().contains("rules v2 from here on"),
        "{shown}"
    );
    ann.screenshot("reloaded");
    // A broken save: the host page shows the error with file and line; the seats do not.
    std::fs::write(&gear, "return rally.element {\n  name = \n").unwrap();
    host.wait_for(
        "the error on the host page",
        "return document.getElementById('notices').textContent.includes('gear.lua:');",
        PATIENCE,
    );
    // It stays in the host's panel (a notice goes away) until a save that loads.
    host.wait_for(
        "the error in the host's panel",
        "const e = document.getElementById('host-error'); return !e.hidden && e.textContent.includes('gear.lua:3');",
        PATIENCE,
    );
    host.screenshot("host-error");
    std::fs::write(&gear, &good).unwrap();
    host.wait_for(
        "the host's panel clear again",
        "return document.body.dataset.rules === '3' && document.getElementById('host-error').hidden;",
        PATIENCE,
    );
    for page in [&ann, &bob] {
        page.wait_for(
            "rules v3",
            "return document.body.dataset.rules === '3';",
            PATIENCE,
        );
        let notices = page.run("return document.getElementById('notices').textContent;");
        assert!(
            !notices.as_str().unwrap().contains("gear.lua:"),
            "a seat saw the script error: {notices}"
        );
    }
    for (who, page) in [("Ann", &ann), ("Bob", &bob), ("host", &host)] {
        assert_eq!(
            page.errors(),
            Vec::<String>::new(),
            "script errors on {who}'s page"
        );
    }
}

/// A script saved while a page still plays the turn resolved before it: the page shows the
/// new rules once its board has played that turn, not in the middle of it.
#[test]
fn a_reload_is_shown_where_the_board_stands_not_ahead_of_it() {
    let Some(page) = browser::session("a_reload_is_shown_where_the_board_stands_not_ahead_of_it")
    else {
        return;
    };
    let ws = Workspace::new();
    let game = std::fs::read_to_string(ws.path("table.toml")).unwrap();
    let one_person = game.replacen(
        "name = \"Bob\"\ndriver = \"human\"",
        "name = \"Bob\"\ndriver = \"bot\"",
        1,
    );
    assert_ne!(game, one_person);
    std::fs::write(ws.path("table.toml"), one_person).unwrap();
    let (server, infos) = serve(vec![ws.launch("arena", Settings::default(), true)]);
    page.open(&format!(
        "http://{}/t/arena#{}",
        server.addr,
        infos[0].tokens().seats[0]
    ));
    program(&page);
    page.click("#ready");
    page.wait_for(
        "the turn being played",
        "return document.body.dataset.animating === 'yes';",
        PATIENCE,
    );
    // The server resolved the whole turn at once; the page plays it for seconds yet.
    let gear = ws.path("scripts/elements/gear.lua");
    let good = std::fs::read_to_string(&gear).unwrap();
    std::fs::write(&gear, format!("{good}\n-- playtest: a comment\n")).unwrap();
    page.wait_for(
        "rules v2",
        "return document.body.dataset.rules === '2';",
        PATIENCE,
    );
    let reloads: Vec<Value> =
        serde_json::from_value(page.run("return window.rallyTable.reloads;")).unwrap();
    assert_eq!(reloads.len(), 1, "{reloads:?}");
    assert!(reloads[0]["after"].as_u64().unwrap() > 1, "{reloads:?}");
    assert_eq!(
        reloads[0]["played"], reloads[0]["after"],
        "the notice came before the board had played the stages before it"
    );
    assert_eq!(page.errors(), Vec::<String>::new(), "script errors");
}

#[test]
fn the_host_opens_a_table_on_the_start_page_and_a_player_joins_by_its_link() {
    let Some(page) =
        browser::session("the_host_opens_a_table_on_the_start_page_and_a_player_joins_by_its_link")
    else {
        return;
    };
    let ws = Workspace::new();
    let offer = ws.offer();
    let token = offer.token.clone();
    let (server, _) = serve_lobby(Lobby::with_offer(offer), Vec::new());
    page.open(&format!("http://{}/#{token}", server.addr));
    page.wait_for(
        "the start page",
        "return document.body.dataset.state === 'ready' && document.querySelectorAll('input[name=game]').length === 2;",
        PATIENCE,
    );
    let broken = page.run(
        "const b = document.querySelector('input[value=\"broken.toml\"]'); return [b.disabled, b.closest('label').textContent];",
    );
    assert_eq!(
        broken[0], true,
        "a game file that does not load cannot be picked"
    );
    assert!(
        broken[1].as_str().unwrap().contains("broken.toml:1:"),
        "{broken}"
    );
    // Bob's seat to a bot, one more life for everyone.
    page.run("const s = document.querySelector('#seat-choices select[data-seat=\"1\"]'); s.value = 'bot'; return null;");
    page.click("#variants input[value='more-lives']");
    page.screenshot("start");
    page.click("#open-button");
    page.wait_for(
        "the new table's links",
        "return document.body.dataset.state === 'opened' && document.querySelector('.table-card.fresh[data-table=\"arena\"] table.links a') !== null;",
        PATIENCE,
    );
    page.screenshot("start-opened");
    let ann: String = serde_json::from_value(page.run(
        "return document.querySelector('.table-card[data-table=\"arena\"] table.links a').href;",
    ))
    .unwrap();
    // Ann follows her link: the table waited only for her, with a bot in Bob's seat.
    page.open(&ann);
    page.wait_for(
        "Ann's hand",
        "return document.body.dataset.phase === 'programming' && document.querySelectorAll('#hand .card').length === 9;",
        PATIENCE,
    );
    let seats = page.run(
        "return Array.from(document.querySelectorAll('#seats tbody tr')).map(tr => tr.textContent);",
    );
    let seats: Vec<String> = serde_json::from_value(seats).unwrap();
    assert!(
        seats[0].starts_with("Ann youconditional_programprogrammingperson"),
        "{seats:?}"
    );
    assert!(seats[1].starts_with("Bobreadybot"), "{seats:?}");
    assert!(seats[1].contains("4"), "four lives: {seats:?}");

    // A card dragged onto register 3 lands there; clicking the register takes it back.
    let dragged = page.run(
        "const card = document.querySelector('#hand .card');\
         const slot = document.querySelector('#registers .slot[data-register=\"3\"]');\
         const dt = new DataTransfer();\
         card.dispatchEvent(new DragEvent('dragstart', { bubbles: true, dataTransfer: dt }));\
         slot.dispatchEvent(new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: dt }));\
         slot.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt }));\
         return card.dataset.card;",
    );
    let in_register_3 = "return document.querySelector('#registers .slot[data-register=\"3\"] .card')?.dataset.card ?? null;";
    assert_eq!(
        page.wait_for("the dragged card", in_register_3, PATIENCE),
        dragged
    );
    page.click("#registers .slot[data-register='3']");
    page.wait_for(
        "register 3 empty again",
        "return document.querySelector('#registers .slot[data-register=\"3\"] .card') === null;",
        PATIENCE,
    );

    // Ann programs; her option asks which leftover card to keep: a dialog with the cards.
    program(&page);
    page.click("#ready");
    page.wait_for(
        "the question",
        "return document.getElementById('question').open && document.getElementById('question-text').textContent.includes('Conditional Program');",
        PATIENCE,
    );
    let cards =
        page.run("return document.querySelectorAll('#question-choices button .card').length;");
    assert_eq!(cards, 4, "the four leftover cards, drawn as cards");
    page.screenshot("question");
    page.click("#question-choices button:nth-child(2)");
    // The other questions (swap the kept card in?) get their default, until turn 2.
    page.wait_for(
        "turn 2, every question answered",
        "const q = document.getElementById('question');         if (q.open) { document.querySelector('#question-choices button.default').click(); return false; }         return document.body.dataset.turn === '2' && document.body.dataset.animating === 'no';",
        PATIENCE,
    );
    // Every question, the outcome of each answer and the next turn's deal came after the
    // board had played up to them: no frame skipped, no state applied mid-animation.
    let skipped =
        page.run("return window.rallyTable.played.filter(p => !p.animated).map(p => p.id);");
    assert_eq!(skipped, json!([]), "frames the page skipped");
    let early = page.run("return window.rallyTable.applied.filter(a => a.animating);");
    assert_eq!(early, json!([]), "states applied while the board played");
    let told = page.run("return document.getElementById('events').textContent;");
    assert!(
        told.as_str()
            .unwrap()
            .contains("Robot Ann answers conditional_program: a face-down card"),
        "the answers are in the event list: {told}"
    );
    assert_eq!(page.errors(), Vec::<String>::new(), "script errors");
}
