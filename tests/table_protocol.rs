//! The table's rules, over real WebSockets against a real server on loopback: links need
//! their token, every bad message gets an error frame and changes nothing, hidden cards stay
//! hidden (every frame another client receives is read), a dropped player loses nothing,
//! and a table comes back from its save with the same links.

use crate::support::table_client::{runtime, serve, Client, Workspace};
use rally::table::protocol::Settings;
use rally::table::server::Server;
use rally::table::{TableInfo, Tokens};
use serde_json::{json, Value};
use std::sync::Arc;
use tokio_tungstenite::tungstenite::Message;

/// A server with one table `t` of `ws`'s game, and its links' tokens.
fn table(ws: &Workspace, settings: Settings) -> (Server, Tokens) {
    let (server, infos) = serve(vec![ws.launch("t", settings, false)]);
    (server, infos[0].tokens())
}

/// The pages most tests open, in this order: a spectator's, then Ann's and Bob's seats.
async fn watcher_ann_and_bob(server: &Server, tokens: &Tokens) -> (Client, Client, Client) {
    let spectator = Client::connect(server, "t", &tokens.spectator).await;
    let ann = Client::connect(server, "t", &tokens.seats[0]).await;
    let bob = Client::connect(server, "t", &tokens.seats[1]).await;
    (spectator, ann, bob)
}

/// Every `"card"` string (quoted as in JSON) in a frame's text.
fn mentions(frame: &Value, card: &str) -> bool {
    frame.to_string().contains(&format!("\"{card}\""))
        || frame.to_string().contains(&format!("{card}\""))
}

#[test]
fn links_need_their_token_and_roles_are_kept_apart() {
    let ws = Workspace::new();
    let (server, tokens) = table(&ws, Settings::default());
    runtime().block_on(async {
        for token in ["", "0123456789abcdef0123456789abcdef", &tokens.host[..31]] {
            let refused = Client::try_connect(&server, "t", token).await;
            let Err(tokio_tungstenite::tungstenite::Error::Http(response)) = refused else {
                panic!("token {token:?} was not refused");
            };
            assert_eq!(response.status(), 403);
        }
        assert!(Client::try_connect(&server, "nope", &tokens.host)
            .await
            .is_err());
        let role = ureq::get(&format!("http://{}/t/t/role?token=bad", server.addr)).call();
        assert!(role.is_err(), "the role of a bad token is refused");

        let mut spectator = Client::connect(&server, "t", &tokens.spectator).await;
        assert_eq!(spectator.state["role"], "spectator");
        spectator.send(json!({"type": "start"})).await;
        assert!(spectator.error().await.contains("only the host"));
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        assert_eq!(ann.state["seat"], "Ann");
        assert_eq!(ann.state["windows"], 1);
        // Ann's link opened in a second window: both are told, until one closes.
        let twice = Client::connect(&server, "t", &tokens.seats[0]).await;
        assert_eq!(twice.state["windows"], 2);
        ann.state_where(|s| s["windows"] == 2).await;
        twice.close().await;
        ann.state_where(|s| s["windows"] == 1).await;
        assert!(
            spectator.state.get("windows").is_none(),
            "a seat's count alone"
        );
        ann.send(json!({"type": "settings", "timer": 30})).await;
        assert!(ann.error().await.contains("only the host"));
        // Waiting for Bob: programming is not open yet.
        ann.send(json!({"type": "ready"})).await;
        assert!(ann.error().await.contains("not the time to program"));
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        host.send(json!({"type": "settings", "timer": 100000}))
            .await;
        assert!(host.error().await.contains("at most 86400"));
        host.send(json!({"type": "start"})).await;
        // Bob never came: a bot plays his seat; Ann programs.
        ann.state_where(|s| s["phase"] == "programming").await;
        assert_eq!(ann.state["seats"][1]["driver"], "bot");
        spectator.send(json!({"type": "ready"})).await;
        assert!(spectator.error().await.contains("only a seat programs"));
        host.send(json!({"type": "start"})).await;
        assert!(host.error().await.contains("already started"));
    });
}

#[test]
fn every_bad_message_gets_an_error_frame_and_changes_nothing() {
    let ws = Workspace::new();
    let (server, tokens) = table(&ws, Settings::default());
    runtime().block_on(async {
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        ann.dealt().await;
        // Dealt, and the bot Cog has programmed: nothing else is to change for Bob.
        bob.state_where(|s| s["desk"].is_object() && s["seats"][2]["status"] == "ready")
            .await;
        let hand = ann.hand();
        let bobs = bob.hand();
        ann.send(json!({"type": "place", "register": 1, "card": hand[0]}))
            .await;
        let placed = ann
            .state_where(|s| !s["desk"]["registers"][0].is_null())
            .await;
        let frames_before = bob.frames.len();

        let oversized = format!(r#"{{"type":"ready","pad":"{}"}}"#, "x".repeat(5000));
        let bad: Vec<(String, &str)> = vec![
            ("{not json".into(), "not JSON"),
            ("42".into(), "a JSON object with a \"type\""),
            (r#"{"type":"fly"}"#.into(), "unknown variant `fly`"),
            (
                r#"{"type":"ready","also":1}"#.into(),
                "unknown field `also`",
            ),
            (
                r#"{"type":"place","register":2,"card":"warp@10"}"#.into(),
                "unknown card",
            ),
            (
                json!({"type":"place","register":2,"card":bobs[0]}).to_string(),
                "not in your hand",
            ),
            (
                json!({"type":"place","register":1,"card":hand[1]}).to_string(),
                "register 1 already holds",
            ),
            (
                json!({"type":"place","register":2,"card":hand[0]}).to_string(),
                "already in register 1",
            ),
            (
                json!({"type":"place","register":9,"card":hand[1]}).to_string(),
                "no register 9",
            ),
            (
                json!({"type":"clear","register":3}).to_string(),
                "already empty",
            ),
            (json!({"type":"ready"}).to_string(), "fill 4 more"),
            (
                json!({"type":"power_down","on":true}).to_string(),
                "undamaged",
            ),
            (
                json!({"type":"answer","question":1,"choice":"yes"}).to_string(),
                "no such question",
            ),
            (oversized, "too large"),
        ];
        for (text, expected) in &bad {
            ann.send_text(text.clone()).await;
            let error = ann.error().await;
            assert!(error.contains(expected), "{text:.60}: {error}");
        }
        ann.send_raw(Message::binary(vec![1, 2, 3])).await;
        assert!(ann.error().await.contains("binary"));
        // Nothing changed: the next change Ann makes shows only itself, and Bob saw none of
        // it (his view did not change, so he got no frame until his own move).
        ann.send(json!({"type": "place", "register": 2, "card": hand[1]}))
            .await;
        let after = ann
            .state_where(|s| !s["desk"]["registers"][1].is_null())
            .await;
        let mut expected = placed["desk"]["registers"].clone();
        expected[1] = json!(hand[1]);
        assert_eq!(after["desk"]["registers"], expected);
        assert_eq!(after["desk"]["hand"], placed["desk"]["hand"]);
        bob.send(json!({"type": "place", "register": 2, "card": bobs[1]}))
            .await;
        bob.state_where(|s| !s["desk"]["registers"][1].is_null())
            .await;
        assert_eq!(
            bob.frames.len(),
            frames_before + 1,
            "Bob got only the state after his own move: {:?}",
            &bob.frames[frames_before..]
        );

        // A flood: the first messages pass, the rest get one error frame; the table still
        // answers Bob.
        for _ in 0..200 {
            ann.send(json!({"type": "clear", "register": 5})).await;
        }
        let mut flood = 0;
        let mut errors = 0;
        while flood == 0 {
            let e = ann.error().await;
            errors += 1;
            if e.contains("too many messages") {
                flood += 1;
            }
        }
        assert!(
            errors <= 60,
            "one error per message that passed, one for the flood"
        );
        bob.send(json!({"type": "place", "register": 1, "card": bobs[0]}))
            .await;
        bob.state_where(|s| !s["desk"]["registers"][0].is_null())
            .await;

        // Over the transport's limit: the connection is closed with a reason.
        ann.send_text("x".repeat(70_000)).await;
        while ann.next().await.is_some() {}
        let closed = ann.frames.last().unwrap();
        assert_eq!(closed["code"], 1009, "{closed}");
        // Ann comes back with her link and finds her registers as she left them.
        let back = Client::connect(&server, "t", &tokens.seats[0]).await;
        assert_eq!(back.state["desk"]["registers"], expected);
    });
}

#[test]
fn a_flood_of_binary_messages_is_rate_limited_and_closed_like_any_other() {
    let ws = Workspace::new();
    let (server, tokens) = table(&ws, Settings::default());
    runtime().block_on(async {
        let mut spectator = Client::connect(&server, "t", &tokens.spectator).await;
        let mut sent = 0;
        let started = std::time::Instant::now();
        while sent < 3000 && spectator.try_send_raw(Message::binary(vec![0u8; 16])).await {
            sent += 1;
        }
        while spectator.next().await.is_some() {}
        let errors = spectator
            .frames
            .iter()
            .filter(|f| f["type"] == "error")
            .count();
        // One per message that passed (a burst of 40, then 20 a second) and one a second
        // for the flood: a loaded machine sends the 3,000 more slowly, and more pass.
        let seconds = started.elapsed().as_secs_f64().ceil() as usize;
        assert!(
            errors <= 40 + 21 * seconds + 1,
            "{errors} error frames for a flood over {seconds} s"
        );
        let closed = spectator.frames.last().unwrap();
        assert_eq!(closed["code"], 1008, "the flood is closed: {closed}");
    });
}

#[test]
fn a_table_holds_at_most_its_share_of_connections() {
    let ws = Workspace::new();
    let (server, tokens) = table(&ws, Settings::default());
    let cap = rally::table::server::MAX_PER_TABLE;
    runtime().block_on(async {
        let mut spectators = Vec::new();
        for _ in 0..cap {
            spectators.push(Client::connect(&server, "t", &tokens.spectator).await);
        }
        let refused = Client::try_connect(&server, "t", &tokens.spectator).await;
        let Err(tokio_tungstenite::tungstenite::Error::Http(response)) = refused else {
            panic!("connection {} was not refused", cap + 1);
        };
        assert_eq!(response.status(), 503);
        // One goes: a place is free again, and a seat's click still comes through at once.
        spectators.pop().unwrap().close().await;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut ann = loop {
            if let Ok(ann) = Client::try_connect(&server, "t", &tokens.seats[0]).await {
                break ann;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the freed place stays taken"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        };
        assert_eq!(ann.state["seat"], "Ann");
        ann.send(json!({"type": "ready"})).await;
        ann.error().await;
    });
}

#[test]
fn hidden_cards_never_reach_another_seat_or_a_spectator() {
    let ws = Workspace::new();
    let (server, tokens) = table(&ws, Settings::default());
    runtime().block_on(async {
        let (mut spectator, mut ann, mut bob) = watcher_ann_and_bob(&server, &tokens).await;
        ann.state_where(|s| s["desk"].is_object()).await;
        let hand = ann.hand();
        assert_eq!(hand.len(), 9);
        // Ann plays her last five cards, so the first four stay in her hand, unseen.
        let played: Vec<String> = hand[4..].to_vec();
        for (i, card) in played.iter().enumerate() {
            ann.send(json!({"type": "place", "register": i + 1, "card": card}))
                .await;
        }
        ann.send(json!({"type": "ready"})).await;
        bob.program_and_ready().await;
        for client in [&mut ann, &mut bob, &mut spectator] {
            client
                .until(|f| f["type"] == "stage" && f["label"] == "Turn 1 · End of turn")
                .await;
        }
        for (who, client) in [("Bob", &bob), ("the spectator", &spectator)] {
            for frame in &client.frames {
                for card in &hand[..4] {
                    assert!(
                        !mentions(frame, card),
                        "{who} saw Ann's card {card}: {frame}"
                    );
                }
                // A played card shows only once its register is revealed.
                for (i, card) in played.iter().enumerate() {
                    if mentions(frame, card) {
                        assert_eq!(frame["type"], "stage", "{who} saw {card} in {frame}");
                        let end = frame["label"].as_str().unwrap().ends_with("End of turn");
                        assert!(
                            end || frame["register"].as_u64().unwrap() > i as u64,
                            "{frame}"
                        );
                    }
                }
            }
        }
        // A spectator never gets a desk; Bob's desk is his own hand.
        assert!(spectator.frames.iter().all(|f| f["desk"].is_null()));
        assert!(bob
            .frames
            .iter()
            .filter(|f| f["desk"].is_object())
            .all(|f| f["seat"] == "Bob"));
        // The deal's "programmed" events (whole programs) are not sent.
        assert!(spectator
            .frames
            .iter()
            .all(|f| !f.to_string().contains("\"programmed\"")));
    });
}

#[test]
fn a_dropped_player_loses_nothing_and_a_bot_steps_in_when_the_host_says() {
    let ws = Workspace::new();
    let settings = Settings {
        bot_after: 0,
        ..Settings::default()
    };
    let (server, tokens) = table(&ws, settings);
    runtime().block_on(async {
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        ann.state_where(|s| s["desk"].is_object()).await;
        let hand = ann.hand();
        ann.send(json!({"type": "place", "register": 3, "card": hand[2]}))
            .await;
        ann.state_where(|s| !s["desk"]["registers"][2].is_null())
            .await;
        ann.close().await;
        bob.close().await;
        host.state_where(|s| {
            s["seats"][0]["connected"] == false && s["seats"][1]["connected"] == false
        })
        .await;
        // The seat waits: Ann comes back to her hand and her register 3.
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        assert_eq!(ann.state["desk"]["hand"], json!(hand));
        assert_eq!(ann.state["desk"]["registers"][2], json!(hand[2]));
        assert_eq!(ann.state["turn"], 1);
        // Bob stays away; the host lets a bot take an absent seat after a second.
        host.send(json!({"type": "settings", "bot_after": 1})).await;
        ann.program_and_ready().await;
        let state = ann
            .state_where(|s| s["turn"] == 2 && s["phase"] == "programming")
            .await;
        assert_eq!(state["seats"][1]["driver"], "bot");
    });
}

#[test]
fn a_seat_a_person_took_from_a_bot_stays_theirs_while_they_are_away() {
    let ws = Workspace::new();
    let (server, tokens) = table(&ws, Settings::default());
    runtime().block_on(async {
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        // Cog is a bot's seat in the game file; a person takes it before the game starts.
        let mut cog = Client::connect(&server, "t", &tokens.seats[2]).await;
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let _bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        let hand = cog.dealt().await;
        assert_eq!(
            cog.state["desk"]["ready"], false,
            "the person programs, not the bot"
        );
        cog.send(json!({"type": "place", "register": 3, "card": hand[4]}))
            .await;
        cog.state_where(|s| !s["desk"]["registers"][2].is_null())
            .await;
        // A reload (F5): the socket goes and a new one comes.
        cog.close().await;
        host.state_where(|s| s["seats"][2]["connected"] == false)
            .await;
        let state = host.state.clone();
        assert_eq!(state["seats"][2]["status"], "programming", "{state}");
        assert_eq!(
            state["seats"][2]["driver"], "person",
            "the seat waits for them"
        );
        let cog = Client::connect(&server, "t", &tokens.seats[2]).await;
        assert_eq!(cog.state["desk"]["hand"], json!(hand));
        assert_eq!(cog.state["desk"]["registers"][2], json!(hand[4]));
        assert_eq!(cog.state["desk"]["ready"], false, "no Ready forced on them");
        // Closing the tab for longer: with the host's `bot_after`, the bot finishes the
        // program around the card they placed.
        cog.close().await;
        host.send(json!({"type": "settings", "bot_after": 1})).await;
        host.state_where(|s| s["seats"][2]["status"] == "ready")
            .await;
        let cog = Client::connect(&server, "t", &tokens.seats[2]).await;
        let desk = &cog.state["desk"];
        assert_eq!(desk["ready"], true);
        assert_eq!(
            desk["registers"][2],
            json!(hand[4]),
            "their card stays: {desk}"
        );
        let registers = desk["registers"].as_array().unwrap();
        assert!(registers.iter().all(|r| r.is_string()), "{desk}");
        let mut placed: Vec<&Value> = registers.iter().collect();
        placed.sort_by_key(|c| c.to_string());
        placed.dedup();
        assert_eq!(placed.len(), 5, "five different cards: {desk}");
        assert!(registers
            .iter()
            .all(|c| hand.contains(&c.as_str().unwrap().to_string())));
        ann.program_and_ready().await;
    });
}

#[test]
fn a_table_comes_back_from_its_save_with_the_same_links() {
    let ws = Workspace::new();
    let launch = ws.launch("t", Settings::default(), false);
    let save = launch.save.clone();
    let (server, infos) = serve(vec![launch]);
    let tokens = infos[0].tokens();
    let (ann_cards, first_hand) = runtime().block_on(async {
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        ann.program_and_ready().await;
        bob.program_and_ready().await;
        let state = ann
            .state_where(|s| s["turn"] == 2 && s["desk"].is_object())
            .await;
        (state["frame"]["robots"].clone(), ann.hand())
    });
    drop(server);

    let (save_data, saved_tokens) = rally::table::thread::resume(&save).unwrap();
    let saved_tokens = saved_tokens.expect("the tokens were kept beside the save");
    assert_eq!(saved_tokens.seats, tokens.seats);
    let mut launch = ws.launch("t", Settings::default(), false);
    launch.resume = Some(save_data);
    launch.tokens = saved_tokens;
    let (server, _) = serve(vec![launch]);
    runtime().block_on(async {
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let _bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        let state = ann.state_where(|s| s["desk"].is_object()).await;
        assert_eq!(state["turn"], 2);
        assert_eq!(
            state["frame"]["robots"], ann_cards,
            "the robots as they were"
        );
        assert_eq!(ann.hand(), first_hand, "the same deal of turn 2");
    });
}

/// Resumes table `t` from `ws`'s save with default settings (the save's are to win).
fn resumed(ws: &Workspace) -> (Server, Tokens) {
    let launch = ws.launch("t", Settings::default(), false);
    let (save, tokens) = rally::table::thread::resume(&launch.save).unwrap();
    let tokens = tokens.expect("the tokens were kept beside the save");
    let (server, _) = serve(vec![rally::table::Launch {
        resume: Some(save),
        tokens: tokens.clone(),
        ..launch
    }]);
    (server, tokens)
}

#[test]
fn a_resumed_table_keeps_the_programs_ready_seating_and_host_settings() {
    let ws = Workspace::new();
    let (server, tokens) = table(&ws, Settings::default());
    let (ann_placed, bob_program) = runtime().block_on(async {
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        // Cog is a bot's seat that a person takes.
        let mut cog = Client::connect(&server, "t", &tokens.seats[2]).await;
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        host.send(json!({"type": "settings", "timer": 45, "bot_after": 600}))
            .await;
        host.state_where(|s| s["settings"]["timer"] == 45).await;
        let hand = ann.dealt().await;
        for (register, card) in [(1, &hand[3]), (4, &hand[0])] {
            ann.send(json!({"type": "place", "register": register, "card": card}))
                .await;
        }
        ann.state_where(|s| !s["desk"]["registers"][3].is_null())
            .await;
        let bob_program = bob.program_and_ready().await;
        cog.dealt().await;
        host.state_where(|s| s["seats"][1]["status"] == "ready")
            .await;
        (ann.state["desk"]["registers"].clone(), bob_program)
    });
    drop(server);

    let (server, tokens) = resumed(&ws);
    runtime().block_on(async {
        let host = Client::connect(&server, "t", &tokens.host).await;
        assert_eq!(
            host.state["settings"],
            json!({"bot_after": 600, "choice_timeout": 30, "timer": 45}),
            "the host's settings"
        );
        let seats = &host.state["seats"];
        assert_eq!(host.state["phase"], "programming", "{}", host.state);
        assert_eq!(seats[1]["status"], "ready", "{seats}");
        assert_eq!(
            seats[2]["driver"], "person",
            "Cog's seat is still a person's: {seats}"
        );
        assert_eq!(seats[2]["connected"], false);
        assert_eq!(seats[2]["status"], "programming");
        let ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        assert_eq!(ann.state["desk"]["registers"], ann_placed);
        assert_eq!(ann.state["desk"]["ready"], false);
        let told = ann.frames.iter().any(|f| {
            f["type"] == "notice"
                && f["text"]
                    .as_str()
                    .unwrap()
                    .contains("came back from its save")
        });
        assert!(told, "the players are told: {:?}", ann.frames);
        let bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        assert_eq!(bob.state["desk"]["ready"], true);
        assert_eq!(bob.state["desk"]["registers"], json!(bob_program));
    });
}

/// A `rally serve` process in `dir`, and the links it printed (`who` → token).
struct Serving {
    child: std::process::Child,
    addr: String,
    tokens: std::collections::BTreeMap<String, String>,
}

fn rally_serve(dir: &std::path::Path, args: &[&str]) -> Serving {
    let (child, lines) = crate::support::spawn_with_lines(dir, args);
    let (mut addr, mut tokens) = (String::new(), std::collections::BTreeMap::new());
    for line in lines.iter() {
        let Some((who, link)) = line.trim().split_once("http://") else {
            continue;
        };
        let Some((at, token)) = link.split_once("/t/table#") else {
            continue;
        };
        addr = at.to_string();
        let who = who.trim().to_string();
        tokens.insert(who.clone(), token.to_string());
        if who == "host" {
            break;
        }
    }
    assert!(tokens.contains_key("host"), "no links printed");
    Serving {
        child,
        addr,
        tokens,
    }
}

#[test]
fn a_table_killed_mid_turn_comes_back_with_its_programs_and_refuses_to_be_replaced() {
    let ws = Workspace::new();
    let dir = ws.dir.path();
    let serve = [
        "serve",
        "table.toml",
        "--saves",
        "saves",
        "--port",
        "0",
        "--no-reload",
    ];
    let mut first = rally_serve(dir, &serve);
    let save = dir.join("saves/table.save.json");
    assert!(
        save.exists(),
        "a save exists from the moment the table opens"
    );
    let token = |s: &Serving, who: &str| s.tokens[who].clone();
    let (ann_placed, bob_program) = runtime().block_on(async {
        let mut ann = Client::try_connect_at(&first.addr, "table", &token(&first, "seat Ann"))
            .await
            .unwrap();
        let mut bob = Client::try_connect_at(&first.addr, "table", &token(&first, "seat Bob"))
            .await
            .unwrap();
        let hand = ann.dealt().await;
        ann.send(json!({"type": "place", "register": 2, "card": hand[1]}))
            .await;
        ann.state_where(|s| !s["desk"]["registers"][1].is_null())
            .await;
        let program = bob.program_and_ready().await;
        (ann.state["desk"]["registers"].clone(), program)
    });
    // The save catches up with the desks (the saver writes off the table's thread).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let text = std::fs::read_to_string(&save).unwrap_or_default();
        let kept: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let desks = &kept["table"]["desks"];
        if desks[0]["registers"][1].is_string() && desks[1]["ready"] == true {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the save never had the desks: {text}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    first.child.kill().unwrap(); // SIGKILL: no shutdown, no last save
    first.child.wait().unwrap();

    // The same game again would replace the unfinished one: refused.
    let refused = crate::support::rally_refused(dir, &serve);
    assert!(refused.contains("holds an unfinished game"), "{refused}");
    assert!(refused.contains("--resume"), "{refused}");
    // A tokens file with an empty host token would make anyone the host: refused.
    let tokens_file = dir.join("saves/table.tokens.json");
    let good = std::fs::read_to_string(&tokens_file).unwrap();
    let mut bad: Value = serde_json::from_str(&good).unwrap();
    bad["host"] = json!("");
    std::fs::write(&tokens_file, bad.to_string()).unwrap();
    let resume = [
        "serve",
        "--resume",
        "saves/table.save.json",
        "--port",
        "0",
        "--no-reload",
    ];
    let refused = crate::support::rally_refused(dir, &resume);
    assert!(refused.contains("the host's token is \"\""), "{refused}");
    std::fs::write(&tokens_file, "{\"seats\": [").unwrap();
    let refused = crate::support::rally_refused(dir, &resume);
    assert!(refused.contains("not a table's tokens"), "{refused}");
    std::fs::write(&tokens_file, &good).unwrap();

    let mut second = rally_serve(dir, &resume);
    assert_eq!(second.tokens, first.tokens, "the same links");
    runtime().block_on(async {
        let ann = Client::try_connect_at(&second.addr, "table", &token(&second, "seat Ann"))
            .await
            .unwrap();
        assert_eq!(ann.state["desk"]["registers"], ann_placed);
        let bob = Client::try_connect_at(&second.addr, "table", &token(&second, "seat Bob"))
            .await
            .unwrap();
        assert_eq!(bob.state["desk"]["ready"], true);
        assert_eq!(bob.state["desk"]["registers"], json!(bob_program));
    });
    second.child.kill().unwrap();
    second.child.wait().unwrap();
    // `--new` starts over it.
    let mut third = rally_serve(dir, &[&serve[..], &["--new"]].concat());
    assert_ne!(third.tokens, first.tokens, "new links");
    third.child.kill().unwrap();
    third.child.wait().unwrap();
}

#[test]
fn no_card_leaves_the_server_before_it_is_face_up_in_a_whole_option_game() {
    // Four bots holding every option card between them (Recompile discards whole hands,
    // Conditional Program keeps a card face down, Abort Switch and Scrambler draw from the
    // deck...): a spectator and the host read every frame of the whole game, and every card
    // in one is in a register revealed by then or locked since the turn began.
    let ws = Workspace::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let game = std::fs::read_to_string(root.join("tests/games/every_option.toml"))
        .unwrap()
        .replace(
            "\"../../boards/practice.toml\"",
            &format!("{:?}", root.join("boards/practice.toml")),
        );
    std::fs::write(ws.path("every_option.toml"), game).unwrap();
    let mut launch = ws.launch("t", Settings::default(), false);
    launch.game = ws.path("every_option.toml");
    launch.tokens = Tokens::new(4).unwrap();
    let (server, infos) = serve(vec![launch]);
    let tokens = infos[0].tokens();
    // Cards as events spell them (`move2@700`) and as the pages' words do ("Move 2 (700)").
    let card = regex::Regex::new(
        r"\b(move1|move2|move3|back|left|right|uturn)@([0-9]+)|(Move 1|Move 2|Move 3|Back Up|Turn Left|Turn Right|U-Turn) \(([0-9]+)\)",
    )
    .unwrap();
    let spelled = |c: &regex::Captures| match (c.get(1), c.get(3)) {
        (Some(kind), _) => format!("{}@{}", kind.as_str(), &c[2]),
        (_, Some(words)) => {
            let kind = match words.as_str() {
                "Move 1" => "move1",
                "Move 2" => "move2",
                "Move 3" => "move3",
                "Back Up" => "back",
                "Turn Left" => "left",
                "Turn Right" => "right",
                _ => "uturn",
            };
            format!("{kind}@{}", &c[4])
        }
        _ => unreachable!(),
    };
    runtime().block_on(async {
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        let mut spectator = Client::connect(&server, "t", &tokens.spectator).await;
        host.send(json!({"type": "start"})).await;
        for client in [&mut host, &mut spectator] {
            client.state_where(|s| s["phase"] == "over").await;
            let (mut turn, mut face_up) = (0, std::collections::HashSet::new());
            let mut checked = 0;
            for frame in &client.frames {
                if frame["type"] == "stage" && frame["turn"] != turn {
                    turn = frame["turn"].as_u64().unwrap();
                    face_up.clear();
                }
                if frame["type"] == "state" {
                    for seat in frame["seats"].as_array().unwrap() {
                        for c in seat["locked"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .filter_map(Value::as_str)
                        {
                            face_up.insert(c.to_string());
                        }
                    }
                }
                if frame["type"] == "stage" {
                    for r in frame["revealed"].as_array().unwrap() {
                        face_up.insert(r["card"].as_str().unwrap().to_string());
                    }
                }
                let text = frame.to_string();
                for found in card.captures_iter(&text) {
                    let found = spelled(&found);
                    assert!(
                        face_up.contains(&found),
                        "{found} before it is face up (turn {turn}) in {}",
                        &text[..text.len().min(3000)]
                    );
                    checked += 1;
                }
            }
            assert!(checked > 50, "the game showed {checked} cards");
        }
        let text: String = spectator
            .frames
            .iter()
            .filter(|f| f["type"] == "stage")
            .map(|f| f.to_string())
            .collect();
        assert!(
            text.contains("a face-down card"),
            "nothing was blotted: the test would see nothing"
        );
        // Script vars are their robot's seat's (no script of this game makes one public):
        // none is in any frame the host or a spectator gets, though the game wrote some.
        for client in [&host, &spectator] {
            let mut found = Vec::new();
            client.frames.iter().for_each(|f| vars_in(f, &mut found));
            assert!(found.is_empty(), "vars reached a page: {found:?}");
        }
    });
}

#[test]
fn a_robots_script_vars_reach_its_seat_alone_unless_the_script_makes_them_public() {
    let ws = Workspace::new();
    std::fs::write(
        ws.path("scripts/rules/notes.lua"),
        "return rally.rule {\n  name = \"notes\",\n  public_vars = { \"shown\" },\n  on_card = function(ctx, robot, card)\n    ctx:set_var(robot, \"plan\", 7)\n    ctx:set_var(robot, \"shown\", 1)\n  end,\n}\n",
    )
    .unwrap();
    let (server, tokens) = table(&ws, Settings::default());
    runtime().block_on(async {
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        let (mut spectator, mut ann, mut bob) = watcher_ann_and_bob(&server, &tokens).await;
        ann.program_and_ready().await;
        bob.program_and_ready().await;
        for client in [&mut host, &mut spectator, &mut ann, &mut bob] {
            client.state_where(|s| s["turn"] == 2).await;
        }
        assert_eq!(ann.state["vars"], json!({"plan": 7, "shown": 1}), "her own");
        for (who, client) in [("host", &host), ("spectator", &spectator), ("Bob", &bob)] {
            let text: String = client.frames.iter().map(|f| f.to_string()).collect();
            assert!(
                text.contains(r#""vars":{"shown":1}"#),
                "{who}: the public var"
            );
            // A seat's state has its own robot's vars at its top; the robots' are below.
            let mut found = Vec::new();
            for frame in &client.frames {
                let mut frame = frame.clone();
                frame.as_object_mut().unwrap().remove("vars");
                vars_in(&frame, &mut found);
            }
            assert!(
                !found.iter().any(|v| v.contains("plan")),
                "{who}: {found:?}"
            );
        }
    });
}

/// Every non-empty `vars` object in `v`.
fn vars_in(v: &Value, found: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                match v {
                    Value::Object(vars) if k == "vars" && !vars.is_empty() => {
                        found.push(v.to_string())
                    }
                    _ => vars_in(v, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| vars_in(v, found)),
        _ => {}
    }
}

#[test]
fn a_save_that_cannot_be_written_is_shown_to_the_host_and_the_table_plays_on() {
    let ws = Workspace::new();
    let launch = ws.launch("t", Settings::default(), false);
    let save = launch.save.clone();
    let (server, infos) = serve(vec![launch]);
    let tokens = &infos[0].tokens();
    // Something else took the save's place (saved when the table opened): a folder with a
    // file in it.
    std::fs::remove_file(&save).unwrap();
    std::fs::create_dir_all(save.join("in-the-way")).unwrap();
    runtime().block_on(async {
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        ann.program_and_ready().await;
        bob.program_and_ready().await;
        let notice = host
            .until(|f| f["type"] == "notice" && f["level"] == "error")
            .await;
        let text = notice["text"].as_str().unwrap();
        assert!(text.contains("could not be saved"), "{text}");
        assert!(text.contains("t.save.json"), "{text}");
        // Only the host is told; the turn goes on for everyone.
        ann.state_where(|s| s["turn"] == 2 && s["phase"] == "programming")
            .await;
        assert!(ann.frames.iter().all(|f| f["type"] != "notice"));
        // The way is cleared: the next stages are saved again.
        std::fs::remove_dir_all(&save).unwrap();
        bob.state_where(|s| s["turn"] == 2 && s["phase"] == "programming")
            .await;
        ann.program_and_ready().await;
        bob.program_and_ready().await;
        let notice = host.until(|f| f["type"] == "notice").await;
        assert_eq!(notice["text"], "the game is saved again", "{notice}");
        let failures = host
            .frames
            .iter()
            .filter(|f| f["type"] == "notice" && f["level"] == "error")
            .count();
        assert_eq!(failures, 1, "one notice, not one per stage that failed");
        ann.until(|f| f["type"] == "stage" && f["label"] == "Turn 2 · End of turn")
            .await;
        // A stage goes to the pages first, then to the saver (so that the saver never delays
        // what the players see): turn 3's deal comes after the end of turn 2 was handed on.
        ann.state_where(|s| s["turn"] == 3 && s["phase"] == "programming")
            .await;
    });
    server.lobby.flush_saves();
    let (saved, _) = rally::table::thread::resume(&save).unwrap();
    assert_eq!(saved.state.turn, 3);
}

#[test]
fn a_table_of_bots_alone_waits_for_the_host() {
    let ws = Workspace::new();
    let mut launch = ws.launch("t", Settings::default(), false);
    launch.people = Some(vec![false, false, false]);
    let (server, infos) = serve(vec![launch]);
    let tokens = &infos[0].tokens();
    runtime().block_on(async {
        // Nobody is waited for, yet nothing has been played: the game would be over before
        // anyone looked.
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        assert_eq!(host.state["phase"], "waiting", "{}", host.state);
        assert_eq!(host.state["turn"], 1);
        host.send(json!({"type": "start"})).await;
        host.until(|f| f["type"] == "stage" && f["label"] == "Turn 1 · End of turn")
            .await;
    });
}

/// A table at which Ann holds `option` (Conditional Program: asked, once programmed, which
/// leftover card to keep), its questions timing out after `timeout` seconds.
fn option_table(option: &str, timeout: u64) -> (Workspace, Server, Vec<Arc<TableInfo>>) {
    let ws = Workspace::new();
    let game = std::fs::read_to_string(ws.path("table.toml"))
        .unwrap()
        .replace(
            "name = \"Ann\"\n",
            &format!("name = \"Ann\"\noptions = [\"{option}\"]\n"),
        );
    std::fs::write(ws.path("options.toml"), game).unwrap();
    let settings = Settings {
        choice_timeout: timeout,
        ..Settings::default()
    };
    let mut launch = ws.launch("t", settings, false);
    launch.game = ws.path("options.toml");
    let (server, infos) = serve(vec![launch]);
    (ws, server, infos)
}

#[test]
fn a_question_goes_to_its_player_alone_and_its_default_comes_after_the_timeout() {
    // Ann holds Conditional Program: once programmed, she is asked which leftover card to keep.
    let (_ws, server, infos) = option_table("conditional_program", 1);
    let tokens = &infos[0].tokens();
    runtime().block_on(async {
        let (mut spectator, mut ann, mut bob) = watcher_ann_and_bob(&server, tokens).await;
        let played = ann.program_and_ready().await;
        bob.program_and_ready().await;
        let asked = ann.state_where(|s| s["question"].is_object()).await;
        let q = asked["question"].clone();
        assert_eq!(q["key"], "conditional_program", "{q}");
        assert_eq!(q["default"], "no");
        let choices: Vec<String> = serde_json::from_value(q["choices"].clone()).unwrap();
        assert_eq!(choices[0], "no");
        let leftovers = &choices[1..];
        assert_eq!(leftovers.len(), 4, "the four cards not played: {choices:?}");
        assert!(leftovers.iter().all(|c| !played.contains(c)), "{choices:?}");
        // Bob sees Ann deciding, not her question; he cannot answer it.
        let deciding = bob
            .state_where(|s| s["seats"][0]["status"] == "deciding")
            .await;
        assert!(deciding["question"].is_null(), "{deciding}");
        let id = q["id"].clone();
        bob.send(json!({"type": "answer", "question": id, "choice": "no"}))
            .await;
        assert!(bob.error().await.contains("no such question for you"));
        ann.send(json!({"type": "answer", "question": id, "choice": "warp@1"}))
            .await;
        assert!(ann.error().await.contains("is not an answer"));
        ann.send(json!({"type": "answer", "question": id, "choice": leftovers[0]}))
            .await;
        // Keeping a card, she is asked before the registers whether to swap it in (and
        // whether to scrap the option to stop damage): the default each time.
        let mut keys = Vec::new();
        loop {
            let frame = ann
                .until(|f| {
                    (f["type"] == "state" && f["question"].is_object())
                        || (f["type"] == "stage" && f["label"] == "Turn 1 · End of turn")
                })
                .await;
            if frame["type"] == "stage" {
                break;
            }
            let q = &frame["question"];
            keys.push(q["key"].as_str().unwrap().to_string());
            ann.send(json!({"type": "answer", "question": q["id"], "choice": q["default"]}))
                .await;
        }
        assert!(keys.iter().any(|k| k == "conditional_swap"), "{keys:?}");
        // Nobody else ever got a question, and the card she kept stayed face down.
        spectator
            .until(|f| f["type"] == "stage" && f["label"] == "Turn 1 · End of turn")
            .await;
        for (who, client) in [("Bob", &bob), ("the spectator", &spectator)] {
            for frame in &client.frames {
                assert!(frame["question"].is_null(), "{who}: {frame}");
                assert!(
                    !frame.to_string().contains(&format!("\"{}\"", leftovers[0])),
                    "{who} saw the kept card: {frame}"
                );
            }
        }
        let kept = spectator.frames.iter().any(|f| {
            f["type"] == "stage" && f.to_string().contains(rally::table::frames::FACE_DOWN)
        });
        assert!(kept, "the spectator is told a card was kept, face down");
        // Turn 2: Ann does not answer; after the timeout the default (keep nothing) is taken.
        ann.state_where(|s| s["turn"] == 2 && s["phase"] == "programming")
            .await;
        bob.state_where(|s| s["turn"] == 2 && s["phase"] == "programming")
            .await;
        ann.program_and_ready().await;
        bob.program_and_ready().await;
        ann.state_where(|s| s["question"]["key"] == "conditional_program")
            .await;
        let end = ann
            .until(|f| f["type"] == "stage" && f["label"] == "Turn 2 · End of turn")
            .await;
        let answered = end.to_string();
        assert!(
            !answered.contains("conditional_swap"),
            "nothing kept, nothing to swap"
        );
    });
}

/// The standard robot lasers' step, and a function in its place that loads but fails when
/// the lasers fire (at line 12 of the rule's file).
const LASERS_EFFECT: &str = "fire = rally.effect.robot_lasers(),";
const LASERS_FAILING: &str = "fire = function(ctx) ctx:fire_robot_lasers(nil + 1) end,";

#[test]
fn a_script_error_in_a_register_pauses_the_table_until_a_fix_is_saved() {
    let ws = Workspace::new();
    let (server, infos) = serve(vec![ws.launch("t", Settings::default(), true)]);
    let tokens = &infos[0].tokens();
    let lasers = ws.path("scripts/rules/robot_lasers.lua");
    let good = std::fs::read_to_string(&lasers).unwrap();
    runtime().block_on(async {
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        ann.dealt().await;
        // A save that loads, with a mistake that shows only when the lasers fire.
        std::fs::write(&lasers, good.replace(LASERS_EFFECT, LASERS_FAILING)).unwrap();
        ann.until(|f| f["type"] == "notice" && f["rules"] == 2)
            .await;
        ann.program_and_ready().await;
        bob.program_and_ready().await;
        let paused = host.state_where(|s| s["phase"] == "paused").await;
        let error = paused["paused"].as_str().unwrap();
        assert!(error.contains("robot_lasers.lua:"), "{error}");
        let seen = ann.state_where(|s| s["phase"] == "paused").await;
        assert_eq!(
            seen["paused"],
            "a rule script failed: the host is fixing it"
        );
        // Register 1 was rolled back: no stage of it reached anyone.
        assert!(!ann
            .frames
            .iter()
            .any(|f| f["type"] == "stage" && f["label"] == "Turn 1 · Register 1"));
        // The fix: the table goes on with rules v3 and plays register 1 again.
        std::fs::write(&lasers, &good).unwrap();
        ann.until(|f| f["type"] == "stage" && f["label"] == "Turn 1 · Register 1")
            .await;
        assert_eq!(ann.state["rules"], 3, "{}", ann.state);
        ann.until(|f| f["type"] == "stage" && f["label"] == "Turn 1 · End of turn")
            .await;
    });
}

#[test]
fn a_script_error_at_a_table_without_hot_reload_stops_it_and_says_so_to_everyone() {
    let ws = Workspace::new();
    let lasers = ws.path("scripts/rules/robot_lasers.lua");
    let good = std::fs::read_to_string(&lasers).unwrap();
    // A rule that loads but fails when the lasers fire, and no reloader to fix it.
    std::fs::write(&lasers, good.replace(LASERS_EFFECT, LASERS_FAILING)).unwrap();
    let (server, tokens) = table(&ws, Settings::default());
    runtime().block_on(async {
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let _bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        // The bot's seat tries programs out as the cards are dealt: the rule fails there.
        let stopped = host.state_where(|s| s["phase"] == "stopped").await;
        let error = stopped["paused"].as_str().unwrap();
        assert!(error.contains("robot_lasers.lua:12"), "{error}");
        assert!(error.contains("rally serve --resume"), "{error}");
        let seen = ann.state_where(|s| s["phase"] == "stopped").await;
        assert_eq!(
            seen["paused"],
            "the game stopped: a rule script failed (the host has the error)"
        );
        assert!(!ann.frames.iter().any(|f| f["type"] == "stage"));
        // A stopped table still answers, and says why to anyone who opens it.
        let mut late = Client::connect(&server, "t", &tokens.spectator).await;
        let seen = late.state_where(|s| s["phase"] == "stopped").await;
        assert!(seen["paused"]
            .as_str()
            .unwrap()
            .starts_with("the game stopped"));
    });
    // The save holds the game as it stood before the failure: after the fix, `--resume`
    // deals turn 1.
    std::fs::write(&lasers, &good).unwrap();
    drop(server);
    let (server, tokens) = resumed(&ws);
    runtime().block_on(async {
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let _bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        ann.dealt().await;
        assert_eq!(ann.state["turn"], 1);
    });
}

#[test]
fn the_classic_timer_fills_the_last_program_with_the_cards_as_dealt() {
    let ws = Workspace::new();
    let settings = Settings {
        timer: 1,
        ..Settings::default()
    };
    let (server, tokens) = table(&ws, settings);
    runtime().block_on(async {
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        let dealt = bob
            .state_where(|s| s["phase"] == "programming" && s["desk"].is_object())
            .await;
        let hand = bob.hand();
        assert!(
            dealt["timer_ms"].is_null(),
            "no timer while two are programming"
        );
        // Bob puts his third card in register 1 and then dawdles.
        bob.send(json!({"type": "place", "register": 1, "card": hand[2]}))
            .await;
        bob.state_where(|s| !s["desk"]["registers"][0].is_null())
            .await;
        ann.program_and_ready().await;
        let timed = bob.state_where(|s| s["timer_ms"].is_u64()).await;
        assert!(timed["timer_ms"].as_u64().unwrap() <= 1000, "{timed}");
        // The timer runs out: his open registers get the cards left, in the order dealt.
        let expected = [&hand[2], &hand[0], &hand[1], &hand[3], &hand[4]];
        for (i, card) in expected.iter().enumerate() {
            let label = format!("Turn 1 · Register {}", i + 1);
            let stage = bob
                .until(|f| f["type"] == "stage" && f["label"] == label.as_str())
                .await;
            let bobs = stage["revealed"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["robot"] == "Bob")
                .unwrap()["card"]
                .clone();
            assert_eq!(bobs, json!(card), "register {}", i + 1);
        }
    });
}

#[test]
fn power_down_announced_on_the_desk_is_the_answer_and_takes_effect_next_turn() {
    let ws = Workspace::new();
    let (server, tokens) = table(&ws, Settings::default());
    runtime().block_on(async {
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        ann.program_and_ready().await;
        bob.program_and_ready().await;
        // Turn 1 left Ann damaged: she may announce power down while she programs.
        let turn2 = ann
            .state_where(|s| s["turn"] == 2 && s["desk"]["ready"] == false)
            .await;
        assert_eq!(turn2["desk"]["can_power_down"], true, "{turn2}");
        ann.send(json!({"type": "power_down", "on": true})).await;
        ann.state_where(|s| s["desk"]["power_down"] == true).await;
        ann.program_and_ready().await;
        bob.state_where(|s| s["turn"] == 2 && s["desk"]["ready"] == false)
            .await;
        bob.program_and_ready().await;
        // No dialog asks her again; in turn 3 her robot is powered down, its damage gone,
        // and she has nothing to program.
        let turn3 = ann
            .state_where(|s| s["turn"] == 3 && s["phase"] == "programming")
            .await;
        assert!(turn3["desk"].is_null(), "{turn3}");
        let robot = &turn3["frame"]["robots"][0];
        assert_eq!(robot["powered_down"], true, "{robot}");
        assert_eq!(robot["damage"], 0, "{robot}");
        assert!(
            ann.frames.iter().all(|f| f["question"].is_null()),
            "Ann was asked"
        );
        // At the end of turn 3 she is asked, alone, whether she stays down.
        bob.state_where(|s| s["turn"] == 3 && s["desk"].is_object())
            .await;
        bob.program_and_ready().await;
        let asked = ann.state_where(|s| s["question"].is_object()).await;
        let q = &asked["question"];
        assert_eq!(q["key"], "stay_down", "{q}");
        assert_eq!(q["choices"], json!(["no", "yes"]));
        ann.send(json!({"type": "answer", "question": q["id"], "choice": "yes"}))
            .await;
        bob.until(|f| f["type"] == "stage" && f["label"] == "Turn 3 · End of turn")
            .await;
        assert!(bob.frames.iter().all(|f| f["question"].is_null()));
    });
}

#[test]
fn a_robot_back_from_a_pit_faces_the_way_its_player_picks_or_keeps_its_facing_after_the_timeout() {
    let ws = Workspace::new();
    // A row of pits in front of the docks: whoever moves forward first falls in.
    let board = std::fs::read_to_string(ws.path("table_board.toml"))
        .unwrap()
        .replace("w  .  .  .  .  .  .  e\nsw", "w  P  P  P  P  P  P  e\nsw")
        .replace("[legend]\n", "[legend]\n\"P\" = \"pit\"\n");
    std::fs::write(ws.path("table_board.toml"), board).unwrap();
    let settings = Settings {
        choice_timeout: 1,
        ..Settings::default()
    };
    let (server, tokens) = table(&ws, settings);
    runtime().block_on(async {
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        walk_forward(&mut ann).await;
        walk_forward(&mut bob).await;
        // Ann picks east; Bob lets the timeout keep his facing (the default, listed first).
        let asked = ann.state_where(|s| s["question"].is_object()).await;
        let q = &asked["question"];
        assert_eq!(q["key"], "reenter_facing", "{q}");
        let facings: Vec<&str> = q["choices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert_eq!(facings.len(), 4, "{q}");
        assert_eq!(q["default"], facings[0]);
        // The square it re-enters at, for the page to mark: Ann's dock; not optional.
        assert_eq!(q["square"], json!([1, 6]), "{q}");
        assert_eq!(q["optional"], false, "{q}");
        ann.send(
            json!({"type": "answer", "question": q["id"], "choice": q["default"], "quiet": "game"}),
        )
        .await;
        assert!(ann.error().await.contains("only an optional question"));
        let pick = if facings[0] == "E" { "W" } else { "E" };
        ann.send(json!({"type": "answer", "question": q["id"], "choice": pick}))
            .await;
        let asked = ann
            .state_where(|s| s["question"]["key"] == "reenter_powered_down")
            .await;
        let q = &asked["question"];
        assert_eq!(q["default"], "no");
        ann.send(json!({"type": "answer", "question": q["id"], "choice": "no"}))
            .await;
        let bobs = bob
            .state_where(|s| s["question"]["key"] == "reenter_facing")
            .await;
        let kept = bobs["question"]["default"].clone();
        let turn2 = bob
            .state_where(|s| s["turn"] == 2 && s["desk"].is_object())
            .await;
        let robots = &turn2["frame"]["robots"];
        assert_eq!(robots[0]["facing"], pick, "{robots}");
        assert_eq!(robots[0]["powered_down"], false, "{robots}");
        assert_eq!(robots[1]["facing"], kept, "{robots}");
        assert_eq!(robots[1]["lives"], 2, "{robots}");
        // The log tells Ann's choice from the default Bob's silence left him.
        let log: String = bob.frames.iter().map(|f| f.to_string()).collect();
        let kept = kept.as_str().unwrap();
        assert!(
            log.contains(&format!(
                "Robot Bob chooses to face {kept} (no answer in time: the default)"
            )),
            "{log}"
        );
        assert!(
            log.contains(&format!("Robot Ann chooses to face {pick}\"")),
            "{log}"
        );
    });
}

/// The program preview: the seat's own desk says where its robot would stand after each
/// register placed so far (the engine's rehearsal), again after every change; no other page
/// learns anything of it.
#[test]
fn a_seat_sees_where_its_program_would_take_its_robot_and_no_one_else_does() {
    let ws = Workspace::new();
    let (server, tokens) = table(&ws, Settings::default());
    runtime().block_on(async {
        let (mut spectator, mut ann, mut bob) = watcher_ann_and_bob(&server, &tokens).await;
        let hand = ann.dealt().await;
        assert_eq!(
            ann.state["desk"]["preview"],
            json!([]),
            "nothing placed yet"
        );
        // Ann starts on her dock at [1, 6] facing N, the way is clear for three squares.
        let (card, squares) = hand
            .iter()
            .find_map(|c| {
                let n = ["move1", "move2", "move3"]
                    .iter()
                    .position(|m| c.starts_with(m))?;
                Some((c.clone(), n as i64 + 1))
            })
            .expect("a move card in the hand");
        ann.send(json!({"type": "place", "register": 2, "card": card}))
            .await;
        let placed = ann
            .state_where(|s| {
                s["desk"]["preview"]
                    .as_array()
                    .is_some_and(|p| !p.is_empty())
            })
            .await;
        assert_eq!(
            placed["desk"]["preview"],
            json!([
                {"register": 1, "at": [1, 6], "facing": "N", "destroyed": false},
                {"register": 2, "at": [1, 6 - squares], "facing": "N", "destroyed": false},
            ]),
            "{card}"
        );
        ann.send(json!({"type": "clear", "register": 2})).await;
        ann.state_where(|s| s["desk"]["preview"] == json!([])).await;
        // A desk, and so a preview, is only ever in its own seat's frames.
        bob.dealt().await;
        assert_ne!(bob.state["desk"]["hand"], ann.state["desk"]["hand"]);
        assert_eq!(bob.state["desk"]["preview"], json!([]));
        spectator.until(|f| f["type"] == "state").await;
        assert!(spectator.frames.iter().all(|f| f["desk"].is_null()));
    });
}

/// Programs a move card first (the robots start facing the pits), then four more; Ready.
async fn walk_forward(client: &mut Client) {
    let mut hand = client.dealt().await;
    let first = hand
        .iter()
        .position(|c| c.starts_with("move"))
        .expect("a move card in the hand");
    let card = hand.remove(first);
    hand.insert(0, card);
    client.play(&hand[..5]).await;
}

#[test]
fn a_table_where_people_took_every_seat_deals_them_their_hands() {
    let ws = Workspace::new();
    let (server, tokens) = table(&ws, Settings::default());
    runtime().block_on(async {
        // Cog's seat is a bot's; a person takes it, so no bot programs anything.
        let mut cog = Client::connect(&server, "t", &tokens.seats[2]).await;
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        for client in [&mut ann, &mut bob, &mut cog] {
            assert_eq!(client.dealt().await.len(), 9);
        }
        ann.program_and_ready().await;
        bob.program_and_ready().await;
        cog.program_and_ready().await;
        let turn2 = cog
            .state_where(|s| s["turn"] == 2 && s["desk"].is_object())
            .await;
        assert_eq!(
            turn2["desk"]["ready"], false,
            "Cog's player programs: {turn2}"
        );
    });
}

/// The steps' event texts of a `stage` frame, or of a `log` frame's entry: what a page
/// writes under "What happened".
fn told(stage: &Value, steps: &str) -> Vec<String> {
    stage[steps]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["events"].as_array().unwrap().clone())
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_page_that_joins_mid_game_gets_the_turn_log_so_far_without_a_secret() {
    let ws = Workspace::new();
    let (server, tokens) = table(&ws, Settings::default());
    runtime().block_on(async {
        let (mut spectator, mut ann, mut bob) = watcher_ann_and_bob(&server, &tokens).await;
        // A page that joins before anything happened gets no log.
        assert!(ann.frames.iter().all(|f| f["type"] != "log"));
        ann.state_where(|s| s["desk"].is_object()).await;
        let hand = ann.hand();
        let played: Vec<String> = hand[4..].to_vec();
        ann.play(&played).await;
        bob.program_and_ready().await;
        spectator
            .until(|f| f["type"] == "stage" && f["label"] == "Turn 1 · End of turn")
            .await;
        let stages: Vec<&Value> = spectator
            .frames
            .iter()
            .filter(|f| f["type"] == "stage")
            .collect();
        assert!(stages.len() >= 6, "the start, five registers, the end");
        // Ann reloads her page; a spectator comes late. Each gets the whole log at once,
        // as every page was told it, with Ann's unplayed cards still face down.
        ann.close().await;
        let mut again = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut late = Client::connect(&server, "t", &tokens.spectator).await;
        for client in [&mut again, &mut late] {
            let log = match client.frames.iter().find(|f| f["type"] == "log") {
                Some(log) => log.clone(),
                None => client.until(|f| f["type"] == "log").await,
            };
            let entries = log["stages"].as_array().unwrap();
            assert_eq!(entries.len(), stages.len(), "{log}");
            for (seq, (entry, stage)) in entries.iter().zip(&stages).enumerate() {
                assert_eq!(entry["seq"], seq as u64 + 1);
                assert_eq!(entry["seq"], stage["seq"]);
                assert_eq!(entry["label"], stage["label"]);
                assert_eq!(told(entry, "steps"), told(stage, "frames"));
            }
            for card in &hand[..4] {
                assert!(!mentions(&log, card), "the log tells Ann's card {card}");
            }
            // The log comes before the state: the page writes it, then draws the table.
            let first_state = client.frames.iter().position(|f| f["type"] == "state");
            let log_at = client.frames.iter().position(|f| f["type"] == "log");
            assert!(log_at < first_state || first_state.is_none());
        }
    });
}

#[test]
fn a_resumed_table_gives_the_log_of_the_game_before_the_resume_and_goes_on_numbering_it() {
    let ws = Workspace::new();
    let (server, tokens) = table(&ws, Settings::default());
    let before = runtime().block_on(async {
        let (mut spectator, mut ann, mut bob) = watcher_ann_and_bob(&server, &tokens).await;
        ann.dealt().await;
        ann.program_and_ready().await;
        bob.program_and_ready().await;
        spectator
            .until(|f| f["type"] == "stage" && f["label"] == "Turn 1 · End of turn")
            .await;
        ann.state_where(|s| s["turn"] == 2 && s["desk"].is_object())
            .await;
        let late = Client::connect(&server, "t", &tokens.spectator).await;
        late.frames
            .into_iter()
            .find(|f| f["type"] == "log")
            .unwrap()
    });
    drop(server);
    // Each stage's entry is a line of the log's journal; the save counts them.
    let save: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.path("t.save.json")).unwrap()).unwrap();
    let stages = before["stages"].as_array().unwrap();
    assert_eq!(save["table"]["log"]["file"], "t.log.jsonl");
    assert_eq!(save["table"]["log"]["stages"], stages.len());
    let (server, tokens) = resumed(&ws);
    runtime().block_on(async {
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        let log = ann.frames.iter().find(|f| f["type"] == "log");
        assert_eq!(log, Some(&before), "the log as it was before the resume");
        ann.dealt().await;
        ann.program_and_ready().await;
        bob.program_and_ready().await;
        let next = ann.until(|f| f["type"] == "stage").await;
        assert_eq!(next["seq"], stages.len() + 1, "{next}");
    });
    drop(server);
    // A log cut shorter than its save counts is refused, at the save's part that counts it.
    let log = ws.path("t.log.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(&log, &text[..text.len() / 2]).unwrap();
    let out = crate::support::finish(&mut crate::support::rally_command(
        ws.dir.path(),
        &[
            "serve",
            "--resume",
            "t.save.json",
            "--port",
            "0",
            "--no-reload",
        ],
    ));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("t.log.jsonl")
            && stderr.contains("cut short")
            && stderr.contains("\"log\""),
        "{stderr}"
    );
}

#[test]
fn a_questions_time_starts_when_its_page_shows_it() {
    let (_ws, server, infos) = option_table("conditional_program", 3);
    let tokens = &infos[0].tokens();
    runtime().block_on(async {
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        ann.program_and_ready().await;
        bob.program_and_ready().await;
        let asked = ann.state_where(|s| s["question"].is_object()).await;
        let asked_at = std::time::Instant::now();
        let q = asked["question"].clone();
        assert_eq!(q["key"], "conditional_program");
        // Bob cannot say he shows Ann's question.
        bob.send(json!({"type": "shown", "question": q["id"]}))
            .await;
        assert!(bob.error().await.contains("no such question for you"));
        // Ann's page plays the board for 2 s, then shows the question: her 3 s start then.
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        ann.send(json!({"type": "shown", "question": q["id"]}))
            .await;
        // 4 s after the question was asked (past the first 3 s), her answer still counts: a
        // card kept (the default would keep none).
        tokio::time::sleep(std::time::Duration::from_secs(4).saturating_sub(asked_at.elapsed()))
            .await;
        let kept = q["choices"][1].clone();
        ann.send(json!({"type": "answer", "question": q["id"], "choice": kept}))
            .await;
        // The question ends with her answer (a timeout would have ended it at 3 s, and her
        // answer would then be refused: "no such question").
        let ended = ann
            .until(|f| f["type"] == "error" || (f["type"] == "state" && f["question"].is_null()))
            .await;
        assert_eq!(ended["type"], "state", "{ended}");
        while let Ok(Some(frame)) =
            tokio::time::timeout(std::time::Duration::from_millis(500), ann.next()).await
        {
            assert_ne!(frame["type"], "error", "{frame}");
        }
    });
}

/// A server of one table holding at most `connections`, each given `header_timeout_s` seconds
/// to send its headers.
fn limited(ws: &Workspace, connections: usize, header_timeout_s: u64) -> Server {
    let limits = rally::table::server::Limits {
        connections,
        header_timeout: std::time::Duration::from_secs(header_timeout_s),
    };
    let lobby = Arc::new(rally::table::Lobby::with_offer(ws.offer()));
    Server::start_with(lobby, "127.0.0.1", 0, limits).unwrap()
}

/// `GET /api/tables` on a new connection: the status line, within `within`.
async fn get_tables(server: &Server, within: std::time::Duration) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let request = "GET /api/tables HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n";
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(within, tcp.read_to_end(&mut answer))
        .await
        .expect("an answer in time")
        .unwrap();
    String::from_utf8_lossy(&answer)
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

/// Whether the server closes `tcp` within `within` (reading what it sends until then).
async fn closed_within(tcp: &mut tokio::net::TcpStream, within: std::time::Duration) -> bool {
    use tokio::io::AsyncReadExt;
    let mut buf = [0u8; 1024];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, tcp.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
        }
    }
}

#[test]
fn a_client_sending_its_headers_byte_by_byte_or_nothing_is_dropped_after_the_timeout() {
    use tokio::io::AsyncWriteExt;
    let ws = Workspace::new();
    let server = limited(&ws, 64, 1);
    runtime().block_on(async {
        let started = std::time::Instant::now();
        // Slowloris: a byte of the request every 100 ms, never the end of the headers.
        let mut slow = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let mut idle = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let drip = async {
            for byte in b"GET /api/tables HTTP/1.1\r\nhost: x\r\nx-slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" {
                if slow.write_all(&[*byte]).await.is_err() {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        };
        drip.await;
        assert!(
            closed_within(&mut slow, std::time::Duration::from_secs(1)).await,
            "the dripping client was not dropped"
        );
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_secs(6), "{took:?}");
        // A connection that sends nothing is closed after the timeout as well.
        assert!(closed_within(&mut idle, std::time::Duration::from_secs(3)).await);
        // Meanwhile and after, a whole request is answered.
        let status = get_tables(&server, std::time::Duration::from_secs(5)).await;
        assert_eq!(status, "HTTP/1.1 200 OK");
    });
}

#[test]
fn connections_beyond_the_servers_limit_are_refused_without_stalling_the_others() {
    let ws = Workspace::new();
    let server = limited(&ws, 4, 30);
    runtime().block_on(async {
        let mut held = Vec::new();
        for _ in 0..3 {
            held.push(tokio::net::TcpStream::connect(server.addr).await.unwrap());
        }
        // Three idle connections of four: a request still gets through at once.
        let quick = std::time::Duration::from_secs(2);
        assert_eq!(get_tables(&server, quick).await, "HTTP/1.1 200 OK");
        // (Once the server has let that connection go, and taken the fourth.)
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        held.push(tokio::net::TcpStream::connect(server.addr).await.unwrap());
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        // Four held: the next is told 503 and closed, at once.
        for _ in 0..3 {
            assert_eq!(
                get_tables(&server, quick).await,
                "HTTP/1.1 503 Service Unavailable"
            );
        }
        // One closes: requests are answered again.
        drop(held.pop());
        let mut answered = false;
        for _ in 0..20 {
            if get_tables(&server, quick).await == "HTTP/1.1 200 OK" {
                answered = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert!(answered, "a freed connection is not given back");
    });
}

#[test]
fn a_player_takes_ready_back_and_rearranges_until_the_last_seat_is_ready() {
    // Ann holds Conditional Program: the question it asks once everyone is ready keeps the
    // table in the turn while she tries to take Ready back.
    let (_ws, server, infos) = option_table("conditional_program", 30);
    let tokens = &infos[0].tokens();
    runtime().block_on(async {
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        host.send(json!({"type": "settings", "timer": 60})).await;
        host.state_where(|s| s["settings"]["timer"] == 60).await;
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        let hand = ann.dealt().await;
        bob.dealt().await;
        // Nothing to take back yet; an incomplete program is not complete.
        ann.send(json!({"type": "unready"})).await;
        assert!(ann.error().await.contains("not ready yet"));
        assert_eq!(ann.state["desk"]["complete"], false);
        ann.play(&hand[..5]).await;
        assert_eq!(ann.state["desk"]["complete"], true);
        // Bob is the last: the classic timer runs for him.
        bob.state_where(|s| s["timer_ms"].is_u64()).await;
        // Ann takes Ready back: the timer stops, and she may change her program again.
        ann.send(json!({"type": "unready"})).await;
        ann.state_where(|s| s["desk"]["ready"] == false).await;
        bob.state_where(|s| s["timer_ms"].is_null()).await;
        // A card moves to another register, swapping with the card there.
        ann.send(json!({"type": "move", "from": 1, "to": 4})).await;
        let moved = ann
            .state_where(|s| s["desk"]["registers"][0] == json!(hand[3]))
            .await;
        assert_eq!(moved["desk"]["registers"][3], json!(hand[0]));
        for (message, refused) in [
            (json!({"type": "move", "from": 1, "to": 9}), "no register 9"),
            (json!({"type": "move", "from": 2, "to": 2}), "already"),
            (json!({"type": "move", "from": 1}), "missing field `to`"),
        ] {
            ann.send(message.clone()).await;
            let error = ann.error().await;
            assert!(error.contains(refused), "{message}: {error}");
        }
        ann.send(json!({"type": "clear", "register": 5})).await;
        let cleared = ann
            .state_where(|s| s["desk"]["registers"][4].is_null())
            .await;
        assert_eq!(cleared["desk"]["complete"], false);
        ann.send(json!({"type": "ready"})).await;
        assert!(ann.error().await.contains("fill 1 more"));
        ann.send(json!({"type": "place", "register": 5, "card": hand[5]}))
            .await;
        ann.send(json!({"type": "ready"})).await;
        ann.state_where(|s| s["desk"]["ready"] == true).await;
        // Bob is ready last: the turn starts, and Ready stays.
        let bobs = bob.hand();
        bob.play(&bobs[..5]).await;
        let asked = ann.state_where(|s| s["question"].is_object()).await;
        ann.send(json!({"type": "unready"})).await;
        assert!(ann.error().await.contains("the turn has started"));
        let q = &asked["question"];
        ann.send(json!({"type": "answer", "question": q["id"], "choice": q["default"]}))
            .await;
        // The program Ann played is the one she rearranged.
        let stage = ann
            .until(|f| f["type"] == "stage" && f["label"] == "Turn 1 · Register 1")
            .await;
        let anns = stage["revealed"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["robot"] == "Ann")
            .unwrap()["card"]
            .clone();
        assert_eq!(anns, json!(hand[3]));
    });
}

#[test]
fn an_optional_question_declined_for_the_turn_or_the_game_is_not_asked_again() {
    let (ws, server, infos) = option_table("conditional_program", 30);
    let tokens = &infos[0].tokens();
    runtime().block_on(async {
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        ann.program_and_ready().await;
        bob.program_and_ready().await;
        let asked = ann.state_where(|s| s["question"].is_object()).await;
        let q = asked["question"].clone();
        assert_eq!(q["optional"], true, "{q}");
        // Her program stays in view while she answers (read only).
        assert_eq!(asked["phase"], "deciding");
        assert!(asked["desk"]["registers"][0].is_string(), "{asked}");
        let kept = q["choices"][1].as_str().unwrap().to_string();
        for (bad, refused) in [
            (json!({"type": "answer", "question": q["id"], "choice": kept, "quiet": "turn"}), "with its default"),
            (json!({"type": "answer", "question": q["id"], "choice": "no", "quiet": "ever"}), "unknown variant `ever`"),
        ] {
            ann.send(bad.clone()).await;
            let error = ann.error().await;
            assert!(error.contains(refused), "{bad}: {error}");
        }
        ann.send(json!({"type": "answer", "question": q["id"], "choice": kept}))
            .await;
        // The swap question shows the two cards; declined for the turn, it is asked once.
        let mut swaps = 0;
        loop {
            let frame = ann
                .until(|f| {
                    (f["type"] == "state" && f["question"].is_object())
                        || (f["type"] == "stage" && f["label"] == "Turn 1 · End of turn")
                })
                .await;
            if frame["type"] == "stage" {
                break;
            }
            let q = &frame["question"];
            let quiet = if q["key"] == "conditional_swap" {
                swaps += 1;
                assert_eq!(q["cards"][0], json!(kept), "{q}");
                assert_eq!(q["cards"].as_array().unwrap().len(), 2, "{q}");
                json!("turn")
            } else {
                json!(null)
            };
            ann.send(json!({"type": "answer", "question": q["id"], "choice": q["default"], "quiet": quiet}))
                .await;
        }
        assert_eq!(swaps, 1, "declined for the turn after the first");
        // Turn 2: asked again; declined for the game, and kept in the save.
        ann.state_where(|s| s["turn"] == 2 && s["phase"] == "programming")
            .await;
        bob.state_where(|s| s["turn"] == 2 && s["phase"] == "programming")
            .await;
        ann.program_and_ready().await;
        bob.program_and_ready().await;
        let asked = ann.state_where(|s| s["question"].is_object()).await;
        assert_eq!(asked["question"]["key"], "conditional_program", "{asked}");
        let q = &asked["question"];
        ann.send(json!({"type": "answer", "question": q["id"], "choice": "no", "quiet": "game"}))
            .await;
        ann.until(|f| f["type"] == "stage" && f["label"] == "Turn 2 · End of turn")
            .await;
        server.lobby.flush_saves();
        let saved: Value =
            serde_json::from_str(&std::fs::read_to_string(ws.path("t.save.json")).unwrap()).unwrap();
        assert_eq!(
            saved["table"]["seats"][0]["quiet"]["conditional_program"], "game",
            "{}",
            saved["table"]
        );
        // Turn 3: not asked at all.
        ann.state_where(|s| s["turn"] == 3 && s["phase"] == "programming")
            .await;
        bob.state_where(|s| s["turn"] == 3 && s["phase"] == "programming")
            .await;
        ann.program_and_ready().await;
        bob.program_and_ready().await;
        // (Other questions, such as scrapping an option to stop damage, get their default.)
        loop {
            let f = ann
                .until(|f| {
                    f["type"] == "state" && (f["question"].is_object() || f["phase"] == "over")
                })
                .await;
            if f["phase"] == "over" {
                break;
            }
            let q = &f["question"];
            assert_ne!(q["key"], "conditional_program", "asked again: {q}");
            ann.send(json!({"type": "answer", "question": q["id"], "choice": q["default"]}))
                .await;
        }
    });
}

#[test]
fn recompile_is_asked_of_its_owner_after_the_deal_while_the_others_program() {
    // Ann holds Recompile, asked once every seat has its hand.
    let (_ws, server, infos) = option_table("recompile", 30);
    let tokens = &infos[0].tokens();
    runtime().block_on(async {
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        let mut bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        let asked = ann.state_where(|s| s["question"].is_object()).await;
        assert_eq!(asked["question"]["key"], "recompile", "{asked}");
        let first = ann.hand();
        assert_eq!(first.len(), 9, "Ann sees the hand she may redraw: {asked}");
        // Bob programs and says Ready while Ann decides, and sees no question.
        let bobs = bob
            .state_where(|s| s["seats"][0]["status"] == "deciding" && s["desk"].is_object())
            .await;
        assert!(bobs["question"].is_null(), "{bobs}");
        for (i, card) in bob.hand().iter().take(5).enumerate() {
            bob.send(json!({"type": "place", "register": i + 1, "card": card}))
                .await;
        }
        bob.send(json!({"type": "ready"})).await;
        let waiting = bob.state_where(|s| s["desk"]["ready"] == true).await;
        assert_eq!(waiting["seats"][0]["status"], "deciding", "{waiting}");
        assert!(waiting["question"].is_null(), "{waiting}");
        assert_eq!(waiting["desk"]["ready"], true, "{waiting}");
        // Ann places a card, then redraws: her desk is dealt the new hand, Bob's stays ready.
        ann.send(json!({"type": "place", "register": 1, "card": first[0]}))
            .await;
        ann.state_where(|s| s["desk"]["registers"][0] == first[0])
            .await;
        let id = asked["question"]["id"].clone();
        ann.send(json!({"type": "answer", "question": id, "choice": "yes"}))
            .await;
        // The damage Recompile costs may be absorbed by scrapping an option: she does not.
        let absorb = ann.state_where(|s| s["question"]["key"] == "absorb").await;
        let id = absorb["question"]["id"].clone();
        ann.send(json!({"type": "answer", "question": id, "choice": "no"}))
            .await;
        let redrawn = ann
            .state_where(|s| s["question"].is_null() && s["desk"]["hand"] != json!(first))
            .await;
        assert!(redrawn["desk"]["registers"][0].is_null(), "{redrawn}");
        assert_eq!(bob.state["desk"]["ready"], true);
        ann.program_and_ready().await;
        bob.until(|f| f["type"] == "stage" && f["label"] == "Turn 1 · End of turn")
            .await;
    });
}
