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
board.show({ robots: [{ name: "X", color: "#d55e00", at: [0, 2], facing: "E", was_facing: "N",
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
    // The program's preview: a dashed square where each register ends, the five registers
    // numbered on them, and the same in words under the registers.
    ann.wait_for(
        "the program's preview",
        "const gs = Array.from(document.querySelectorAll('#board-view #preview .rb-preview'));
         return gs.flatMap(g => g.dataset.registers.split(' ')).map(Number).sort().join() === '1,2,3,4,5'
           && document.getElementById('preview-note').textContent.startsWith('Preview');",
        PATIENCE,
    );
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
    assert_eq!(
        ann.run("return document.querySelectorAll('#board-view #preview .rb-preview').length;"),
        json!(0),
        "turn 2's programming begins without a preview"
    );
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
    // Hands are out at the deal; the bot is ready a moment later.
    page.wait_for(
        "Bob's bot ready",
        "return document.querySelectorAll('#seats tbody tr')[1].textContent.startsWith('Bobready');",
        PATIENCE,
    );
    let seats = page.run(
        "return Array.from(document.querySelectorAll('#seats tbody tr')).map(tr => tr.textContent);",
    );
    let seats: Vec<String> = serde_json::from_value(seats).unwrap();
    assert!(
        seats[0].starts_with("Ann youConditional Program")
            && seats[0].contains("programmingperson"),
        "{seats:?}"
    );
    assert!(seats[1].starts_with("Bobreadybot"), "{seats:?}");
    // The option by its title; what it does opens on a click (or a tap).
    page.click("#seats details.option summary");
    let about = page.run("const d = document.querySelector('#seats details.option'); return [d.open, d.querySelector('p').textContent];");
    assert_eq!(about[0], true);
    assert!(about[1].as_str().unwrap().contains("leftover"), "{about}");
    assert!(
        !about[1].as_str().unwrap().contains("question `"),
        "no note for script writers: {about}"
    );
    assert!(seats[1].contains("4"), "four lives: {seats:?}");

    // A card dragged onto register 3 lands there; clicking the register twice (pick, take
    // back) returns it to the hand.
    let dragged = page.run("return document.querySelector('#hand .card').dataset.card;");
    page.touch_drag("#hand .card", "#registers .slot[data-register='3']");
    let in_register_3 = "return document.querySelector('#registers .slot[data-register=\"3\"] .card')?.dataset.card ?? null;";
    assert_eq!(
        page.wait_for("the dragged card", in_register_3, PATIENCE),
        dragged
    );
    page.click("#registers .slot[data-register='3']");
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
            .contains("Robot Ann uses Conditional Program: a face-down card"),
        "the answers are in the event list: {told}"
    );
    assert_eq!(page.errors(), Vec::<String>::new(), "script errors");
}

/// A seat played over a bare WebSocket (the test's second player, who only programs).
struct Seat(
    tokio_tungstenite::tungstenite::WebSocket<
        tokio_tungstenite::tungstenite::stream::MaybeTlsStream<std::net::TcpStream>,
    >,
);

impl Seat {
    fn connect(addr: std::net::SocketAddr, table: &str, token: &str) -> Seat {
        let url = format!("ws://{addr}/t/{table}/ws?token={token}");
        Seat(tokio_tungstenite::tungstenite::connect(url).unwrap().0)
    }

    /// Reads frames until a state in which `matches`.
    fn state_where(&mut self, matches: impl Fn(&Value) -> bool) -> Value {
        loop {
            let frame = self.0.read().expect("the table answers");
            if let Ok(text) = frame.to_text() {
                let v: Value = serde_json::from_str(text).unwrap();
                if v["type"] == "state" && matches(&v) {
                    return v;
                }
            }
        }
    }

    fn send(&mut self, message: Value) {
        self.0
            .send(tokio_tungstenite::tungstenite::Message::text(
                message.to_string(),
            ))
            .unwrap();
    }

    /// Places the first five cards of its hand and says Ready.
    fn program_and_ready(&mut self) {
        let dealt = self.state_where(|s| s["phase"] == "programming" && s["desk"].is_object());
        for (i, card) in dealt["desk"]["hand"].as_array().unwrap()[..5]
            .iter()
            .enumerate()
        {
            self.send(json!({"type": "place", "register": i + 1, "card": card}));
        }
        self.send(json!({"type": "ready"}));
    }
}

/// The cards in registers 1–5 on the page (`null`: empty).
const REGISTERS: &str = "return Array.from(document.querySelectorAll('#registers .slot')).map(s => s.querySelector('.card')?.dataset.card ?? null);";

/// Waits until the page's registers hold `expected`.
fn registers_are(page: &Browser, what: &str, expected: &[Option<&str>]) {
    let script = format!(
        "const r = (function () {{ {REGISTERS} }})(); return JSON.stringify(r) === {};",
        json!(json!(expected).to_string())
    );
    page.wait_for(what, &script, PATIENCE);
}

fn hint(page: &Browser) -> (String, String) {
    serde_json::from_value(page.run(
        "const h = document.getElementById('desk-hint'); return [h.className, h.textContent];",
    ))
    .unwrap()
}

#[test]
fn a_player_changes_their_mind_with_clicks_keys_and_a_finger() {
    let Some(page) = browser::session("a_player_changes_their_mind_with_clicks_keys_and_a_finger")
    else {
        return;
    };
    let ws = Workspace::new();
    let (server, infos) = serve(vec![ws.launch("arena", Settings::default(), false)]);
    let tokens = &infos[0].tokens();
    let mut bob = Seat::connect(server.addr, "arena", &tokens.seats[1]);
    page.viewport(1280, 800, false);
    page.open(&format!(
        "http://{}/t/arena#{}",
        server.addr, tokens.seats[0]
    ));
    page.wait_for(
        "Ann's hand",
        "return document.body.dataset.phase === 'programming' && document.querySelectorAll('#hand .card').length === 9;",
        PATIENCE,
    );
    let hand: Vec<String> = serde_json::from_value(page.run(
        "return Array.from(document.querySelectorAll('#hand .card')).map(c => c.dataset.card);",
    ))
    .unwrap();
    let h: Vec<&str> = hand.iter().map(String::as_str).collect();
    assert_eq!(
        page.run("return document.getElementById('ready').disabled;"),
        true,
        "Ready with empty registers"
    );
    // Every card and register is a button a keyboard reaches, with words for a screen reader.
    let unlabelled = page.run(
        "return Array.from(document.querySelectorAll('#hand .card, #registers .slot')).filter(e => e.tabIndex !== 0 || e.getAttribute('role') !== 'button' || !e.getAttribute('aria-label')).length;",
    );
    assert_eq!(unlabelled, 0);
    let label =
        page.run("return document.querySelector('#hand .card').getAttribute('aria-label');");
    assert!(label.as_str().unwrap().contains(", priority "), "{label}");
    // Enter on the first card and Space on the second fill registers 1 and 2.
    page.run("document.querySelector('#hand .card').focus(); return null;");
    page.press("\u{E007}");
    registers_are(
        &page,
        "the first card by Enter",
        &[Some(h[0]), None, None, None, None],
    );
    page.run("document.querySelectorAll('#hand .card')[1].focus(); return null;");
    page.press(" ");
    registers_are(
        &page,
        "the second card by Space",
        &[Some(h[0]), Some(h[1]), None, None, None],
    );
    for card in &h[2..5] {
        page.click(&format!("#hand .card[data-card='{card}']"));
    }
    registers_are(
        &page,
        "five cards",
        &[Some(h[0]), Some(h[1]), Some(h[2]), Some(h[3]), Some(h[4])],
    );
    page.wait_for(
        "Ready enabled",
        "return !document.getElementById('ready').disabled;",
        PATIENCE,
    );
    // A sixth card: refused, and said so.
    page.click(&format!("#hand .card[data-card='{}']", h[5]));
    let (level, said) = hint(&page);
    assert_eq!(level, "refused");
    assert!(said.contains("registers are full"), "{said}");
    page.screenshot("refused-full");
    // Register 1 picked, then register 4: the two cards swap.
    page.click("#registers .slot[data-register='1']");
    assert!(hint(&page).1.contains("register 1 picked"));
    page.screenshot("register-picked");
    page.click("#registers .slot[data-register='4']");
    registers_are(
        &page,
        "1 and 4 swapped",
        &[Some(h[3]), Some(h[1]), Some(h[2]), Some(h[0]), Some(h[4])],
    );
    // A finger drags register 2's card onto register 5, and a hand card onto register 3.
    page.touch_drag(
        "#registers .slot[data-register='2'] .card",
        "#registers .slot[data-register='5']",
    );
    registers_are(
        &page,
        "2 and 5 swapped by touch",
        &[Some(h[3]), Some(h[4]), Some(h[2]), Some(h[0]), Some(h[1])],
    );
    page.touch_drag(
        &format!("#hand .card[data-card='{}']", h[6]),
        "#registers .slot[data-register='3']",
    );
    registers_are(
        &page,
        "a hand card dragged in",
        &[Some(h[3]), Some(h[4]), Some(h[6]), Some(h[0]), Some(h[1])],
    );
    // Ready, then a click is refused with the reason; Un-Ready and the program changes.
    page.click("#ready");
    page.wait_for("Ann ready", "return document.body.dataset.ready === 'yes' && !document.getElementById('unready').hidden;", PATIENCE);
    page.click(&format!("#hand .card[data-card='{}']", h[7]));
    let (level, said) = hint(&page);
    assert_eq!(level, "refused");
    assert!(said.contains("you are ready"), "{said}");
    page.click("#unready");
    page.wait_for(
        "Ann programming again",
        "return document.body.dataset.ready === 'no' && !document.getElementById('ready').hidden;",
        PATIENCE,
    );
    page.click("#registers .slot[data-register='3']");
    page.click("#registers .slot[data-register='3']");
    registers_are(
        &page,
        "register 3 emptied by two clicks",
        &[Some(h[3]), Some(h[4]), None, Some(h[0]), Some(h[1])],
    );
    page.wait_for("Ready disabled again", "return document.getElementById('ready').disabled && document.body.dataset.complete === 'no';", PATIENCE);
    page.click(&format!("#hand .card[data-card='{}']", h[7]));
    registers_are(
        &page,
        "register 3 filled again",
        &[Some(h[3]), Some(h[4]), Some(h[7]), Some(h[0]), Some(h[1])],
    );
    page.click("#ready");
    page.wait_for(
        "Ann ready again",
        "return document.body.dataset.ready === 'yes';",
        PATIENCE,
    );
    // Bob is ready last: the turn plays Ann's program as she left it.
    bob.program_and_ready();
    page.wait_for(
        "Ann's register 1 card played",
        &format!("return Array.from(document.querySelectorAll('#revealed .played')).some(p => p.title === 'Ann' && p.querySelector('.card').dataset.card === '{}');", h[3]),
        PATIENCE,
    );
    assert_eq!(page.errors(), Vec::<String>::new(), "script errors");
}

/// Where an element is on the screen: [top, bottom, left, right] in CSS pixels.
/// Nothing on the page is wider than a 390 px phone (`what` is shown).
fn phone_fits(page: &Browser, what: &str) {
    let width = page.run("return document.documentElement.scrollWidth;");
    assert!(
        width.as_f64().unwrap() <= 390.0,
        "{what}: the page is {width} px wide on a 390 px phone"
    );
}

fn rect(page: &Browser, css: &str) -> [f64; 4] {
    serde_json::from_value(page.run(&format!(
        "const r = document.querySelector({}).getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right];",
        json!(css)
    )))
    .unwrap()
}

#[test]
fn a_player_on_a_phone_a_reentry_drawn_on_the_board_and_a_powered_down_seat_told_so() {
    let Some(page) = browser::session(
        "a_player_on_a_phone_a_reentry_drawn_on_the_board_and_a_powered_down_seat_told_so",
    ) else {
        return;
    };
    let ws = Workspace::new();
    // A row of pits in front of the docks: a robot moving forward first falls in.
    let board = std::fs::read_to_string(ws.path("table_board.toml"))
        .unwrap()
        .replace("w  .  .  .  .  .  .  e\nsw", "w  P  P  P  P  P  P  e\nsw")
        .replace("[legend]\n", "[legend]\n\"P\" = \"pit\"\n");
    std::fs::write(ws.path("table_board.toml"), board).unwrap();
    let mut launch = ws.launch("arena", Settings::default(), false);
    launch.people = Some(vec![true, false, false]);
    let (server, infos) = serve(vec![launch]);
    let tokens = &infos[0].tokens();
    let link = |token: &str| format!("http://{}/t/arena#{token}", server.addr);

    // A phone: the board and the hand on one screen, nothing wider than it.
    page.viewport(390, 844, true);
    page.open(&link(&tokens.seats[0]));
    page.wait_for(
        "Ann's hand on the phone",
        "return document.body.dataset.phase === 'programming' && document.querySelectorAll('#hand .card').length === 9;",
        PATIENCE,
    );
    phone_fits(&page, "the hand");
    let board = rect(&page, "#board-view svg");
    let hand = rect(&page, "#hand");
    assert!(
        board[0] >= 0.0 && board[1] <= 844.0,
        "the board on screen: {board:?}"
    );
    assert!(
        hand[0] >= 0.0 && hand[1] <= 844.0,
        "the hand on screen with the board: {hand:?}"
    );
    let rows = page.run("return new Set(Array.from(document.querySelectorAll('#registers .slot')).map(s => s.offsetTop)).size;");
    assert_eq!(rows, 1, "the registers in one row");
    // A move card in register 1: the preview marks the pit she would fall into.
    let hand: Vec<String> = serde_json::from_value(page.run(
        "return Array.from(document.querySelectorAll('#hand .card')).map(c => c.dataset.card);",
    ))
    .unwrap();
    let first = hand
        .iter()
        .position(|c| c.starts_with("move"))
        .expect("a move card");
    page.click(&format!("#hand .card[data-card='{}']", hand[first]));
    page.wait_for(
        "the preview of a fall",
        "const g = document.querySelector('#board-view #preview .rb-preview.rb-lost');
         return g !== null && g.dataset.registers === '1' && document.getElementById('preview-note').textContent.includes('after register 1 destroyed');",
        PATIENCE,
    );
    page.screenshot("phone-programming");
    // The board in words for a screen reader, and the phase line read out as it changes.
    let told = page.run("return document.getElementById('board-text').textContent;");
    assert!(
        told.as_str()
            .unwrap()
            .contains("Ann at column 1, row 6, facing north"),
        "{told}"
    );
    assert_eq!(
        page.run("return document.getElementById('status').getAttribute('aria-live');"),
        "polite"
    );

    // Back to a desk's window. Ann walks into the pit; the turn is skipped through.
    page.viewport(1280, 800, false);
    let cards = hand
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != first)
        .map(|(_, c)| c)
        .take(4);
    for card in cards {
        page.click(&format!("#hand .card[data-card='{card}']"));
    }
    page.wait_for(
        "a full program",
        "return document.body.dataset.complete === 'yes';",
        PATIENCE,
    );
    page.click("#ready");
    page.wait_for(
        "the board playing",
        "return document.body.dataset.animating === 'yes';",
        PATIENCE,
    );
    page.click("#skip");
    // The re-entry: the square and an arrow per facing on the board, buttons N E S W.
    page.wait_for(
        "the re-entry question",
        "return document.getElementById('question').open && document.querySelectorAll('#marks .rb-mark-arrow').length === 4;",
        PATIENCE,
    );
    let order = page.run("return Array.from(document.querySelectorAll('#question-choices button')).map(b => b.dataset.choice).join(' ');");
    assert_eq!(order, "N E S W");
    let skipped = page.run("return window.rallyTable.played.some(p => p.skipped);");
    assert_eq!(skipped, true, "Skip showed the rest of the turn at once");
    page.screenshot("question-reentry");
    // The same question on a phone: the marked square, the arrows and the buttons fit.
    page.viewport(390, 844, true);
    phone_fits(&page, "the re-entry question");
    page.screenshot("question-reentry-phone");
    page.viewport(1280, 800, false);
    // An arrow on the board answers; then whether to re-enter powered down: yes.
    page.run("document.querySelector('#marks .rb-mark-arrow[data-facing=\"E\"]').dispatchEvent(new MouseEvent('click', { bubbles: true })); return null;");
    page.wait_for(
        "the powered-down question",
        "return document.getElementById('question').open && document.getElementById('question-text').textContent.includes('powered down');",
        PATIENCE,
    );
    assert_eq!(
        page.run("return document.querySelectorAll('#marks *').length;"),
        0,
        "the marks go with their question"
    );
    assert_eq!(
        page.run("return document.getElementById('question-quiet').hidden;"),
        false,
        "an optional question can be declined for a while"
    );
    page.click("#question-choices button[data-choice='yes']");
    // Turn 2: Ann's robot is powered down; the page says so where the desk was.
    page.wait_for(
        "the powered-down note",
        "return document.body.dataset.turn === '2' && document.body.dataset.deskNote === 'yes' && document.body.dataset.animating === 'no';",
        PATIENCE,
    );
    let note = page.run("return document.getElementById('desk-note').textContent;");
    assert!(note.as_str().unwrap().contains("powered down"), "{note}");
    let told = page.run("return document.getElementById('events').textContent;");
    assert!(
        told.as_str()
            .unwrap()
            .contains("Robot Ann chooses to face E"),
        "the facing picked on the board: {told}"
    );
    page.screenshot("powered-down");
    page.viewport(390, 844, true);
    phone_fits(&page, "the powered-down note");
    page.screenshot("powered-down-phone");
    page.viewport(1280, 800, false);
    // Another link of the table pasted into the tab: the page becomes the spectator's.
    page.run(&format!(
        "location.hash = '{}'; return null;",
        tokens.spectator
    ));
    page.wait_for(
        "the spectator's page",
        "return document.getElementById('who').textContent === 'spectator';",
        PATIENCE,
    );
    assert_eq!(page.errors(), Vec::<String>::new(), "script errors");
}
