//! The host's debug panel at the table (docs/table.md, "The host's debug panel"): over real
//! WebSockets, its actions are the host's alone, every bad or hostile one gets an error
//! frame and changes nothing, each is a `host` event every page's log shows and the save and
//! the replay keep, undo puts the game back byte for byte, and a rewind plays a register
//! again. Then in headless browsers: the host moves a robot with the panel, a seat's page
//! shows it and the log line, and has no panel.

use crate::support::table_client::{runtime, serve, Client, Workspace};
use rally::table::protocol::Settings;
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

/// The robot `name` in a state frame.
fn robot<'a>(state: &'a Value, name: &str) -> &'a Value {
    state["frame"]["robots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap()
}

/// The save's game state once `ready` holds for it (the saver writes off the table thread).
fn saved_state(save: &Path, ready: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(state) = std::fs::read_to_string(save)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .map(|v| v["state"].clone())
            .filter(|s| ready(s))
        {
            return state;
        }
        assert!(Instant::now() < deadline, "the save never got there");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The texts of a `stage` frame's events.
fn told(stage: &Value) -> Vec<String> {
    stage["frames"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["events"].as_array().unwrap().iter())
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect()
}

/// The next host stage a page is told whose first event starts with `starting`, its events'
/// texts (the pauses and resumes before it are passed over).
async fn host_stage(client: &mut Client, starting: &str) -> Vec<String> {
    let stage = client
        .until(|f| {
            f["type"] == "stage"
                && f["label"].as_str().unwrap().ends_with("· Host")
                && told(f).first().is_some_and(|t| t.starts_with(starting))
        })
        .await;
    told(&stage)
}

/// Waits until `client` programs turn `turn`, then programs it and says Ready.
async fn program(client: &mut Client, turn: u32) {
    client
        .state_where(|s| {
            s["turn"] == turn && s["phase"] == "programming" && s["desk"]["ready"] == false
        })
        .await;
    client.program_and_ready().await;
}

#[test]
fn the_panel_is_the_hosts_alone_and_refuses_bad_input_changing_nothing() {
    let ws = Workspace::new();
    let launch = ws.launch("t", Settings::default(), false);
    let save = launch.save.clone();
    let (server, infos) = serve(vec![launch]);
    let tokens = &infos[0].tokens();
    runtime().block_on(async {
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        assert!(host.state["debug"].is_object(), "{}", host.state);
        host.send(json!({"type": "edit", "robot": "Ann", "damage": 1}))
            .await;
        assert!(host.error().await.contains("pause the table first"));
        // Paused before it starts: the table stops at its first stage boundary.
        host.send(json!({"type": "pause"})).await;
        host.state_where(|s| s["debug"]["pausing"] == true).await;
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        let mut spectator = Client::connect(&server, "t", &tokens.spectator).await;
        assert_eq!(
            host_stage(&mut ann, "The host paused").await,
            vec!["The host paused the table"]
        );
        let paused = ann.state_where(|s| s["phase"] == "paused").await;
        assert_eq!(paused["paused"], "the host paused the table");
        host.state_where(|s| s["debug"]["paused"] == true).await;
        saved_state(&save, |s| {
            s["events"].as_array().is_some_and(|e| !e.is_empty())
        });

        // Seats and spectators have no panel, and may not use it.
        for (client, token) in [(&mut ann, "seat"), (&mut spectator, "spectator")] {
            assert!(
                client.state.get("debug").is_none(),
                "{token}: {}",
                client.state
            );
            assert!(client.frames.iter().all(|f| f.get("debug").is_none()));
            for message in [
                json!({"type": "pause"}),
                json!({"type": "resume"}),
                json!({"type": "undo"}),
                json!({"type": "rewind", "turn": 1, "register": 0}),
                json!({"type": "edit", "robot": "Ann", "at": [3, 3]}),
                json!({"type": "option", "robot": "Ann", "option": "brakes", "give": true}),
                json!({"type": "card", "robot": "Ann", "register": 1, "card": null}),
            ] {
                client.send(message.clone()).await;
                let e = client.error().await;
                assert!(e.contains("only the host"), "{token} {message}: {e}");
            }
        }

        let before = ann.state.to_string();
        let bobs_square = robot(&ann.state, "Bob")["at"].clone();
        let saved = saved_state(&save, |_| true);
        let bad: Vec<(Value, &str)> = vec![
            (
                json!({"type": "edit", "robot": "Anne", "at": [3, 3]}),
                "no robot `Anne` (did you mean `Ann`?)",
            ),
            (
                json!({"type": "edit", "robot": "Ann", "at": [8, 3]}),
                "[8, 3] is not on the 8×7 board",
            ),
            (
                json!({"type": "edit", "robot": "Ann", "at": [-1, 0]}),
                "not on the 8×7 board",
            ),
            (
                json!({"type": "edit", "robot": "Ann", "archive": [0, 70]}),
                "archive [0, 70] is not on",
            ),
            (
                json!({"type": "edit", "robot": "Ann", "at": bobs_square}),
                "robot Bob stands on",
            ),
            (
                json!({"type": "edit", "robot": "Ann", "damage": 10}),
                "damage: 0 to 9",
            ),
            (
                json!({"type": "edit", "robot": "Ann", "damage": -1}),
                "damage: 0 to 9",
            ),
            (
                json!({"type": "edit", "robot": "Ann", "lives": 100}),
                "lives: 0 to 99",
            ),
            (
                json!({"type": "edit", "robot": "Ann", "flags": 2}),
                "flags: 0 to 1",
            ),
            // Checked whole: a good change beside a bad one is not made either.
            (
                json!({"type": "edit", "robot": "Ann", "at": [3, 3], "lives": -5}),
                "lives: 0 to 99",
            ),
            (
                json!({"type": "edit", "robot": "Ann"}),
                "changes at least one",
            ),
            (
                json!({"type": "edit", "robot": "Ann", "facing": "up"}),
                "bad `edit` message",
            ),
            (
                json!({"type": "edit", "robot": "Ann", "at": [1, 2, 3]}),
                "bad `edit` message",
            ),
            (
                json!({"type": "edit", "robot": "Ann", "damage": 1e99}),
                "bad `edit` message",
            ),
            (
                json!({"type": "edit", "robot": "Ann", "colour": "red"}),
                "unknown field `colour`",
            ),
            (
                json!({"type": "option", "robot": "Ann", "option": "brake", "give": true}),
                "no option `brake` (did you mean `brakes`?)",
            ),
            (
                json!({"type": "option", "robot": "Ann", "option": "brakes", "give": false}),
                "Ann does not hold brakes",
            ),
            (
                json!({"type": "option", "robot": "Ann", "option": "brakes"}),
                "missing field `give`",
            ),
            (
                json!({"type": "card", "robot": "Ann", "register": 1, "card": "move1@490"}),
                "between the registers of a turn",
            ),
            (
                json!({"type": "card", "robot": "Ann", "register": 1, "card": "fly@1"}),
                "unknown card",
            ),
            (
                json!({"type": "rewind", "turn": 7, "register": 2}),
                "cannot go back to the start of turn 7, register 2",
            ),
            (
                json!({"type": "rewind", "turn": 1, "register": 300}),
                "bad `rewind` message",
            ),
            (json!({"type": "undo"}), "nothing to undo"),
            (json!({"type": "pause"}), "paused already"),
        ];
        for (message, expected) in &bad {
            host.send(message.clone()).await;
            let e = host.error().await;
            assert!(e.contains(expected), "{message}: {e}");
        }
        // A resume behind them all: the table had changed nothing until then.
        host.send(json!({"type": "undo"})).await;
        assert!(host.error().await.contains("nothing to undo"));
        assert_eq!(ann.state.to_string(), before, "nothing changed");
        assert!(
            !ann.frames
                .iter()
                .any(|f| f["type"] == "stage" && told(f).len() > 1),
            "no host stage but the pause"
        );
        assert_eq!(saved_state(&save, |_| true), saved);
        // Resumed, the table deals.
        host.send(json!({"type": "resume"})).await;
        bob.dealt().await;
    });
}

#[test]
fn host_actions_are_events_every_page_tells_undo_restores_exactly_and_rewind_plays_again() {
    let ws = Workspace::new();
    let launch = ws.launch("t", Settings::default(), false);
    let (save, replay) = (launch.save.clone(), launch.replay_path());
    let (server, infos) = serve(vec![launch]);
    let tokens = &infos[0].tokens();
    runtime().block_on(async {
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        host.send(json!({"type": "pause"})).await;
        host.state_where(|s| s["debug"]["pausing"] == true).await;
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        ann.state_where(|s| s["phase"] == "paused").await;
        bob.state_where(|s| s["phase"] == "paused").await;
        host.state_where(|s| s["debug"]["paused"] == true).await;
        let before = ann.state.to_string();
        let saved = saved_state(&save, |s| s["events"].as_array().is_some_and(|e| e.len() == 1));

        // A move and a turn: two events, told to every page at once.
        host.send(json!({"type": "edit", "robot": "Ann", "at": [3, 3], "facing": "E"}))
            .await;
        let said = vec![
            "The host moved robot Ann to [3, 3]".to_string(),
            "The host turned robot Ann to face E".to_string(),
        ];
        assert_eq!(host_stage(&mut ann, "The host moved").await, said);
        assert_eq!(host_stage(&mut bob, "The host moved").await, said);
        let moved = ann.state_where(|s| robot(s, "Ann")["at"] == json!([3, 3])).await;
        assert_eq!(robot(&moved, "Ann")["facing"], "E");
        let state = saved_state(&save, |s| s["robots"][0]["at"] == json!([3, 3]));
        let events: Vec<&Value> = state["events"].as_array().unwrap().iter().collect();
        assert_eq!(events[1]["what"], "host");
        assert_eq!(events[1]["did"], "moved");
        let panel = host.state_where(|s| s["debug"]["undo"].as_array().unwrap().len() == 1).await;
        assert_eq!(panel["debug"]["undo"][0], said.join("; "));

        // Undo: the table and its save exactly as before the move.
        host.send(json!({"type": "undo"})).await;
        assert_eq!(
            host_stage(&mut ann, "The host took back").await,
            vec![format!("The host took back: {}", said.join("; "))]
        );
        let undone = ann.state_where(|s| robot(s, "Ann")["at"] != json!([3, 3])).await;
        assert_eq!(undone.to_string(), before, "the state frame, byte for byte");
        assert_eq!(saved_state(&save, |s| s["robots"][0]["at"] != json!([3, 3])), saved);

        // Changes that stay: damage, an option, lives.
        host.send(json!({"type": "edit", "robot": "Bob", "damage": 2, "lives": 5}))
            .await;
        assert_eq!(
            host_stage(&mut ann, "The host set").await,
            vec![
                "The host set the damage of robot Bob to 2",
                "The host set the lives of robot Bob to 5"
            ]
        );
        host.send(json!({"type": "option", "robot": "Bob", "option": "ablative_coat", "give": true}))
            .await;
        assert_eq!(
            host_stage(&mut ann, "The host gave").await,
            vec!["The host gave robot Bob the option card Ablative Coat"]
        );
        host.send(json!({"type": "option", "robot": "Bob", "option": "ablative_coat", "give": true}))
            .await;
        assert!(host.error().await.contains("Bob holds ablative_coat already"));
        let bobs = ann
            .state_where(|s| s["seats"][1]["options"] == json!(["ablative_coat (3 left)"]))
            .await;
        assert_eq!(robot(&bobs, "Bob")["damage"], 2);
        assert_eq!(robot(&bobs, "Bob")["lives"], 5);

        // Resume: the turn is dealt. Pause while the players program: the table stops
        // before register 1, once they are ready.
        host.send(json!({"type": "resume"})).await;
        let hand = ann.dealt().await;
        host.send(json!({"type": "pause"})).await;
        host.state_where(|s| s["debug"]["pausing"] == true).await;
        assert_eq!(ann.state["phase"], "programming");
        ann.play(&hand[..5]).await;
        bob.program_and_ready().await;
        ann.state_where(|s| s["phase"] == "paused").await;
        // (The deck is there once the turn is dealt.)
        let panel = host
            .state_where(|s| s["debug"]["paused"] == true && s["debug"]["deck"] != json!([]))
            .await;
        assert_eq!(panel["debug"]["undo"], json!([]), "undo starts again at a pause");
        let rewinds = panel["debug"]["rewind"].clone();
        assert!(
            rewinds.as_array().unwrap().contains(&json!({"turn": 1, "register": 0})),
            "{rewinds}"
        );

        // A card of the deck into Ann's register 5, which stays face down for the others.
        let deck = panel["debug"]["deck"].as_array().unwrap().clone();
        let card = deck[0].as_str().unwrap().to_string();
        host.send(json!({"type": "card", "robot": "Ann", "register": 5, "card": card}))
            .await;
        let bobs_view = host_stage(&mut bob, "The host put").await;
        assert_eq!(
            bobs_view,
            vec!["The host put a face-down card in register 5 of robot Ann"]
        );
        assert!(!bob.frames.iter().any(|f| f.to_string().contains(&card)));
        let panel = host
            .state_where(|s| s["debug"]["robots"][0]["program"][4] == json!(card))
            .await;
        assert!(!panel["debug"]["deck"].as_array().unwrap().contains(&json!(card)));
        host.send(json!({"type": "card", "robot": "Ann", "register": 5, "card": card}))
            .await;
        assert!(host.error().await.contains("not in the turn's deck"));
        host.send(json!({"type": "card", "robot": "Ann", "register": 0, "card": null}))
            .await;
        assert!(host.error().await.contains("still to play are 1 to 5"));

        // Rewind to the start of the turn: the same hands are dealt again (the same deck
        // and random numbers), and the players program again.
        host.send(json!({"type": "rewind", "turn": 1, "register": 0}))
            .await;
        assert_eq!(
            host_stage(&mut ann, "The host rewound").await,
            vec!["The host rewound the table to the start of turn 1, to play it again under rules v1"]
        );
        host.send(json!({"type": "resume"})).await;
        ann.state_where(|s| s["phase"] == "programming" && s["desk"]["ready"] == false)
            .await;
        assert_eq!(ann.hand(), hand, "dealt again");
        ann.play(&hand[..5]).await;
        bob.program_and_ready().await;
        let first = ann
            .until(|f| f["type"] == "stage" && f["label"] == "Turn 1 · Register 3")
            .await;
        ann.until(|f| f["type"] == "stage" && f["label"] == "Turn 1 · End of turn")
            .await;
        // Paused while turn 2 is programmed, the table stops before its register 1; back to
        // register 3 of turn 1 (already in the journal), which plays the same again. (The
        // pause waits for the deal: sent earlier, it stops the table before dealing turn 2.)
        ann.state_where(|s| s["turn"] == 2 && s["phase"] == "programming")
            .await;
        host.send(json!({"type": "pause"})).await;
        host.state_where(|s| s["debug"]["pausing"] == true).await;
        program(&mut ann, 2).await;
        program(&mut bob, 2).await;
        let panel = host
            .state_where(|s| s["debug"]["paused"] == true && s["turn"] == 2)
            .await;
        assert!(
            panel["debug"]["rewind"].as_array().unwrap().contains(&json!({"turn": 1, "register": 3})),
            "{}",
            panel["debug"]
        );
        host.send(json!({"type": "rewind", "turn": 1, "register": 3}))
            .await;
        host_stage(&mut ann, "The host rewound").await;
        let rewound = ann.state_where(|s| s["turn"] == 1).await;
        assert_eq!(rewound["phase"], "paused");
        host.send(json!({"type": "resume"})).await;
        let again = ann
            .until(|f| f["type"] == "stage" && f["label"] == "Turn 1 · Register 3")
            .await;
        assert_eq!(first["frames"], again["frames"], "the same register again");
        ann.until(|f| f["type"] == "stage" && f["label"] == "Turn 1 · End of turn")
            .await;

        // The game to its end (three turns): the replay keeps the host's events.
        for turn in 2..=3 {
            program(&mut ann, turn).await;
            program(&mut bob, turn).await;
        }
        ann.state_where(|s| s["phase"] == "over").await;
        let deadline = Instant::now() + Duration::from_secs(20);
        let text = loop {
            if let Ok(text) = std::fs::read_to_string(&replay) {
                break text;
            }
            assert!(Instant::now() < deadline, "no replay");
            std::thread::sleep(Duration::from_millis(50));
        };
        let replay: Value = serde_json::from_str(&text).unwrap();
        let host_events: Vec<String> = replay["turns"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|t| t["events"].as_array().unwrap().iter())
            .filter(|e| e["what"] == "host")
            .map(|e| e["did"].as_str().unwrap().to_string())
            .collect();
        for did in ["paused", "damage", "lives", "gave_option", "rewound", "resumed"] {
            assert!(host_events.contains(&did.to_string()), "{did}: {host_events:?}");
        }
        assert!(!host_events.contains(&"moved".to_string()), "undone: {host_events:?}");
    });
}

/// How long a page may take to show what the test waits for (it only bounds a failing run).
const PATIENCE: Duration = Duration::from_secs(60);

/// Robot `name` as the page draws it: `[x, y, facing]`, or null before it is drawn.
fn drawn(name: &str) -> String {
    format!(
        "const g = document.querySelector('#board-view svg #robots .robot[data-robot=\"{name}\"]');\n\
         return g ? [Number(g.dataset.x), Number(g.dataset.y), g.dataset.facing] : null;"
    )
}

/// The panel in Chromium, as the host uses it: pause, move and turn a robot with the form,
/// give an option, undo, rewind; a seat's page draws each change and logs its sentence, and
/// has no panel. Screenshots for docs/table.md: `debug-panel`, `debug-seat`.
#[test]
fn in_the_browser_the_host_pauses_moves_a_robot_undoes_and_the_seat_sees_it() {
    let Some((chromium, chromedriver)) = crate::support::browser::tools(
        "in_the_browser_the_host_pauses_moves_a_robot_undoes_and_the_seat_sees_it",
    ) else {
        return;
    };
    use crate::support::browser::Browser;
    let ws = Workspace::new();
    let (server, infos) = serve(vec![ws.launch("t", Settings::default(), false)]);
    let tokens = &infos[0].tokens();
    let link = |token: &str| format!("http://{}/t/t#{token}", server.addr);
    let host = Browser::start(&chromium, &chromedriver);
    let ann = Browser::start(&chromium, &chromedriver);
    host.resize(1280, 1000);
    host.open(&link(&tokens.host));
    host.wait_for(
        "the panel",
        "return document.getElementById('debug-pause') !== null && document.getElementById('debug-pause').textContent === 'Pause';",
        PATIENCE,
    );
    // Every change waits for a pause: the buttons say so by being disabled.
    let disabled = host.run("return ['debug-apply', 'debug-give', 'debug-take', 'debug-set-card', 'debug-rewind-go'].map(id => document.getElementById(id).disabled);");
    assert_eq!(disabled, json!([true, true, true, true, true]));
    host.click("#debug-pause");
    ann.open(&link(&tokens.seats[0]));
    ann.wait_for(
        "Ann's seat",
        "return document.body.dataset.phase === 'waiting';",
        PATIENCE,
    );
    // Bob stays away: the host starts the table, a bot takes his seat.
    host.wait_for(
        "the start button",
        "return !document.getElementById('start').hidden;",
        PATIENCE,
    );
    host.click("#start");
    host.wait_for(
        "paused",
        "return document.getElementById('debug').dataset.paused === 'yes' && document.getElementById('debug-status').textContent.startsWith('paused') && !document.getElementById('debug-apply').disabled;",
        PATIENCE,
    );
    ann.wait_for(
        "the seat told of the pause",
        "return document.body.dataset.phase === 'paused' && document.getElementById('events').textContent.includes('The host paused the table');",
        PATIENCE,
    );
    assert_eq!(
        ann.run("return document.getElementById('debug') === null && !document.querySelector('script[src$=\"debug.js\"]');"),
        json!(true),
        "a seat has no panel"
    );
    let start = ann.wait_for("Ann's robot", &drawn("Ann"), PATIENCE);

    // Move and turn Ann with the form: the host types, then clicks Apply.
    host.run(
        "const set = (id, v) => { const e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event('input')); };\n\
         document.getElementById('debug-robot-name').value = 'Ann';\n\
         document.getElementById('debug-robot-name').dispatchEvent(new Event('change'));\n\
         set('debug-x', 4); set('debug-y', 3); set('debug-facing', 'E');\n\
         document.getElementById('debug-x').focus();",
    );
    host.click("#debug-apply");
    ann.wait_for(
        "Ann moved on the seat's page",
        &format!(
            "const r = (() => {{ {} }})(); return r && r[0] === 4 && r[1] === 3 && r[2] === 'E';",
            drawn("Ann")
        ),
        PATIENCE,
    );
    ann.wait_for(
        "the host's sentences in the seat's log",
        "const e = document.getElementById('events').textContent; return e.includes('The host moved robot Ann to [4, 3]') && e.includes('The host turned robot Ann to face E');",
        PATIENCE,
    );
    host.wait_for(
        "the change in the undo list",
        "return document.getElementById('debug-undo-list').textContent.includes('moved robot Ann to [4, 3]') && !document.getElementById('debug-undo').disabled;",
        PATIENCE,
    );
    // The panel lists the option cards by title, with what each does on hover.
    let brakes = host.run(
        "const o = document.querySelector('#debug-option-name option[value=\"brakes\"]'); return [o.textContent, o.title];",
    );
    assert_eq!(brakes[0], "Brakes", "{brakes}");
    assert!(
        brakes[1].as_str().is_some_and(|t| t.contains("Move 1")),
        "the card's text on hover: {brakes}"
    );
    // An option given through the panel shows on the seat's page.
    host.run("document.getElementById('debug-option-name').value = 'brakes';");
    host.click("#debug-give");
    ann.wait_for(
        "the option on the seat's page",
        "return document.getElementById('events').textContent.includes('The host gave robot Ann');",
        PATIENCE,
    );
    // The panel sits below the board: bring it into the picture.
    host.run("document.getElementById('debug').scrollIntoView();");
    host.screenshot("debug-panel");
    ann.screenshot("debug-seat");

    // Undo twice: the option, then the move; Ann is drawn where she started.
    host.click("#debug-undo");
    host.wait_for(
        "one undone",
        "return document.getElementById('debug-undo-list').children.length === 1;",
        PATIENCE,
    );
    host.click("#debug-undo");
    ann.wait_for(
        "Ann back where she was",
        &format!(
            "const r = (() => {{ {} }})(); return JSON.stringify(r) === '{}';",
            drawn("Ann"),
            start
        ),
        PATIENCE,
    );
    host.wait_for(
        "nothing left to undo",
        "return document.getElementById('debug-undo').disabled && document.getElementById('debug-undo-list').children.length === 0;",
        PATIENCE,
    );
    // A refused change comes back as an error frame the host page shows, changing nothing.
    host.run("document.getElementById('debug-x').value = 99; document.getElementById('debug-x').focus();");
    host.click("#debug-apply");
    host.wait_for(
        "the refusal shown",
        "return document.getElementById('notices').textContent.includes('99');",
        PATIENCE,
    );
    assert_eq!(
        ann.run(&drawn("Ann")),
        start,
        "a refused move changes nothing"
    );

    // Resume: the turn is dealt, the panel's status clears, and the rewind list offers turn 1.
    host.click("#debug-pause");
    ann.wait_for(
        "the deal after resuming",
        "return document.body.dataset.phase === 'programming' && document.querySelectorAll('#hand .card').length === 9;",
        PATIENCE,
    );
    host.wait_for(
        "the panel running",
        "return document.getElementById('debug').dataset.paused === 'no' && document.getElementById('debug-pause').textContent === 'Pause' && document.getElementById('debug-apply').disabled;",
        PATIENCE,
    );
    for page in [&host, &ann] {
        assert_eq!(page.errors(), Vec::<String>::new(), "script errors");
    }
}
