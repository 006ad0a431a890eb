//! The lobby over real WebSockets: a spectator sits down at a free seat with a name, the
//! host renames, kicks and moves seats (the links follow), names and the chat are checked,
//! rate-limited and saved, and a finished game's standings and rematch (same links).

use crate::support::table_client::{runtime, serve, Client, Workspace};
use rally::table::protocol::Settings;
use rally::table::server::Server;
use rally::table::{TableInfo, Tokens};
use serde_json::{json, Value};
use std::sync::Arc;

fn table(ws: &Workspace) -> (Server, Arc<TableInfo>) {
    let (server, mut infos) = serve(vec![ws.launch("t", Settings::default(), false)]);
    (server, infos.remove(0))
}

/// The table's save as JSON.
fn saved(ws: &Workspace, server: &Server) -> Value {
    server.lobby.flush_saves();
    serde_json::from_str(&std::fs::read_to_string(ws.path("t.save.json")).unwrap()).unwrap()
}

#[test]
fn a_spectator_sits_down_at_a_free_seat_with_a_name_and_plays_it() {
    let ws = Workspace::new();
    let (server, info) = table(&ws);
    let tokens = info.tokens();
    runtime().block_on(async {
        let mut guest = Client::connect(&server, "t", &tokens.spectator).await;
        let seats = guest.state["seats"].clone();
        assert_eq!(seats[0]["free"], true, "{seats}");
        assert_eq!(seats[0]["player"], Value::Null);
        assert!(
            guest.state.get("seat_tokens").is_none(),
            "no links for a spectator"
        );
        let mut other = Client::connect(&server, "t", &tokens.spectator).await;
        // Bad names change nothing.
        for (name, why) in [
            (json!(""), "cannot be empty"),
            (json!("x".repeat(25)), "at most 24"),
            (json!("Ada\u{7}"), "U+0007"),
            (json!("Ada\u{202e}"), "U+202E"),
            (json!(7), "invalid type"),
        ] {
            guest
                .send(json!({"type": "sit", "seat": 0, "name": name}))
                .await;
            let e = guest.error().await;
            assert!(e.contains(why), "{name}: {e}");
        }
        guest
            .send(json!({"type": "sit", "seat": 3, "name": "Ada"}))
            .await;
        assert!(guest.error().await.contains("no seat 3"));
        guest
            .send(json!({"type": "sit", "seat": 0, "name": "  <b>Ada</b> & co "}))
            .await;
        let seated = guest.until(|f| f["type"] == "seated").await;
        assert_eq!(seated["token"], tokens.seats[0], "the seat's own link");
        assert_eq!(seated["seat"], "Ann");
        let state = guest.state_where(|s| s["role"] == "seat").await;
        assert_eq!(state["seat"], "Ann");
        assert_eq!(
            state["seats"][0]["player"], "<b>Ada</b> & co",
            "trimmed, as typed"
        );
        assert_eq!(state["seats"][0]["free"], false);
        other
            .send(json!({"type": "sit", "seat": 0, "name": "Eve"}))
            .await;
        assert!(other.error().await.contains("taken"));
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        host.send(json!({"type": "sit", "seat": 1, "name": "Hal"}))
            .await;
        assert!(host.error().await.contains("only a spectator"));
        assert_eq!(
            host.state["seat_tokens"],
            json!(tokens.seats),
            "the host's links"
        );
        // A seat's player renames themself; Bob's link seats Bob: the game starts.
        guest.send(json!({"type": "name", "name": "Ada L."})).await;
        other
            .state_where(|s| s["seats"][0]["player"] == "Ada L.")
            .await;
        other.send(json!({"type": "name", "name": "Eve"})).await;
        assert!(other.error().await.contains("take a seat first"));
        let _bob = Client::connect(&server, "t", &tokens.seats[1]).await;
        guest.dealt().await;
        assert_eq!(saved(&ws, &server)["table"]["seats"][0]["name"], "Ada L.");
    });
}

#[test]
fn the_host_renames_moves_and_kicks_seats_and_the_links_follow() {
    let ws = Workspace::new();
    let (server, info) = table(&ws);
    let tokens = info.tokens();
    runtime().block_on(async {
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        ann.send(json!({"type": "rename", "seat": 0, "name": "Annie"}))
            .await;
        assert!(ann.error().await.contains("only the host"));
        host.send(json!({"type": "rename", "seat": 1, "name": "Bobby"}))
            .await;
        assert!(host.error().await.contains("nobody sits"));
        host.send(json!({"type": "rename", "seat": 0, "name": "Annie"}))
            .await;
        ann.state_where(|s| s["seats"][0]["player"] == "Annie")
            .await;

        // Ann's person moves to Bob's robot: her link plays Bob now, Bob's link Ann.
        host.send(json!({"type": "move_seat", "seat": 0, "to": 0}))
            .await;
        assert!(host.error().await.contains("itself"));
        host.send(json!({"type": "move_seat", "seat": 0, "to": 1}))
            .await;
        let seated = ann.until(|f| f["type"] == "seated").await;
        assert_eq!(seated["seat"], "Bob");
        assert_eq!(seated["token"], tokens.seats[0], "her link goes with her");
        let state = ann.state_where(|s| s["seat"] == "Bob").await;
        assert_eq!(state["seats"][1]["player"], "Annie");
        assert_eq!(state["seats"][0]["free"], true);
        assert_eq!(
            info.tokens().seats,
            [
                tokens.seats[1].clone(),
                tokens.seats[0].clone(),
                tokens.seats[2].clone()
            ]
        );
        let again = Client::connect(&server, "t", &tokens.seats[0]).await;
        assert_eq!(again.state["seat"], "Bob");
        again.close().await;

        // Kicked: her pages are told and closed, her link no longer works, the seat is free.
        host.send(json!({"type": "kick", "seat": 0})).await;
        assert!(host.error().await.contains("nobody sits"));
        host.send(json!({"type": "kick", "seat": 1})).await;
        let kicked = ann.until(|f| f["type"] == "kicked").await;
        assert!(kicked["text"].as_str().unwrap().contains("someone else"));
        assert!(ann.next().await.is_none(), "the connection is closed");
        let refused = Client::try_connect(&server, "t", &tokens.seats[0]).await;
        assert!(refused.is_err(), "the old link is refused");
        let state = host.state_where(|s| s["seats"][1]["free"] == true).await;
        assert_eq!(state["seats"][1]["player"], Value::Null);
        let new = info.tokens().seats[1].clone();
        assert_ne!(new, tokens.seats[0]);
        assert_eq!(state["seat_tokens"][1], new);
        server.lobby.flush_saves();
        let file: Tokens =
            serde_json::from_str(&std::fs::read_to_string(ws.path("t.tokens.json")).unwrap())
                .unwrap();
        assert_eq!(file.seats[1], new, "the tokens file has the new link");
        let bob = Client::connect(&server, "t", &new).await;
        assert_eq!(bob.state["seat"], "Bob");
    });
}

#[test]
fn the_chat_is_checked_rate_limited_saved_and_comes_back_with_the_table() {
    let ws = Workspace::new();
    let (server, info) = table(&ws);
    let tokens = info.tokens();
    runtime().block_on(async {
        let mut ann = Client::connect(&server, "t", &tokens.seats[0]).await;
        ann.send(json!({"type": "name", "name": "Ada"})).await;
        let mut spectator = Client::connect(&server, "t", &tokens.spectator).await;
        spectator.send(json!({"type": "chat", "text": "hi"})).await;
        assert!(spectator.error().await.contains("take a seat"));
        for (text, why) in [
            (json!("x".repeat(201)), "at most 200"),
            (json!("a\nb"), "U+000A"),
            (json!(""), "empty"),
        ] {
            ann.send(json!({"type": "chat", "text": text})).await;
            assert!(ann.error().await.contains(why));
        }
        ann.send(json!({"type": "chat", "text": "<script>alert(1)</script>"}))
            .await;
        let line = spectator.until(|f| f["type"] == "chat").await;
        assert_eq!(
            line["lines"],
            json!([{"from": "Ada", "robot": "Ann", "text": "<script>alert(1)</script>"}]),
            "as typed: the pages show it as text"
        );
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        host.send(json!({"type": "chat", "text": "welcome"})).await;
        spectator
            .until(|f| f["type"] == "chat" && f["lines"][0]["from"] == "host")
            .await;
        ann.send(json!({"type": "chat", "text": "two"})).await;
        ann.send(json!({"type": "chat", "text": "three"})).await;
        ann.send(json!({"type": "chat", "text": "four"})).await;
        assert!(ann.error().await.contains("too fast"));
        let late = Client::connect(&server, "t", &tokens.spectator).await;
        let all = late
            .frames
            .iter()
            .find(|f| f["type"] == "chat")
            .expect("the chat so far");
        assert_eq!(all["lines"].as_array().unwrap().len(), 4, "{all}");
    });
    let save = saved(&ws, &server);
    assert_eq!(save["table"]["chat"].as_array().unwrap().len(), 4);
    drop(server);
    let launch = ws.launch("t", Settings::default(), false);
    let (save, tokens) = rally::table::thread::resume(&launch.save).unwrap();
    let (server, _) = serve(vec![rally::table::Launch {
        resume: Some(save),
        tokens: tokens.unwrap(),
        ..launch
    }]);
    runtime().block_on(async {
        let spectator = Client::connect(&server, "t", &info.tokens().spectator).await;
        let all = spectator
            .frames
            .iter()
            .find(|f| f["type"] == "chat")
            .unwrap();
        assert_eq!(all["lines"][0]["text"], "<script>alert(1)</script>");
        assert_eq!(
            spectator.state["seats"][0]["player"], "Ada",
            "the name came back"
        );
    });
}

/// Resumes `t` from a save changed by `edit`: the error, if it is refused.
fn resume_edited(ws: &Workspace, edit: impl Fn(&mut Value)) -> Option<String> {
    let path = ws.path("t.save.json");
    let mut save: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut save);
    std::fs::write(&path, save.to_string()).unwrap();
    let launch = ws.launch("t", Settings::default(), false);
    let (save, tokens) = rally::table::thread::resume(&path).unwrap();
    let lobby = Arc::new(rally::table::Lobby::default());
    lobby
        .open(rally::table::Launch {
            resume: Some(save),
            tokens: tokens.unwrap(),
            ..launch
        })
        .err()
        .map(|e| e.to_string())
}

#[test]
fn a_save_without_names_or_chat_loads_and_a_bad_name_in_one_is_refused() {
    let ws = Workspace::new();
    let (server, info) = table(&ws);
    runtime().block_on(async {
        let mut ann = Client::connect(&server, "t", &info.tokens().seats[0]).await;
        ann.send(json!({"type": "name", "name": "Ada"})).await;
        ann.send(json!({"type": "chat", "text": "hello"})).await;
        ann.until(|f| f["type"] == "chat").await;
    });
    server.lobby.flush_saves();
    drop(server);
    // As the saves written before names and the chat.
    let old = resume_edited(&ws, |s| {
        let table = s["table"].as_object_mut().unwrap();
        table.remove("chat");
        for seat in table["seats"].as_array_mut().unwrap() {
            seat.as_object_mut().unwrap().remove("name");
        }
    });
    assert_eq!(old, None, "an older save loads");
    let bad = resume_edited(&ws, |s| {
        s["table"]["seats"][0]["name"] = json!("Ada\u{1b}[2J")
    });
    assert!(
        bad.as_deref().unwrap_or("").contains("t.save.json:1:")
            && bad
                .as_deref()
                .unwrap()
                .contains("a name cannot hold the character U+001B"),
        "{bad:?}"
    );
    let bad = resume_edited(&ws, |s| {
        s["table"]["seats"][0]["name"] = Value::Null;
        s["table"]["chat"] = json!([{"from": "Ada", "robot": "Ann", "text": "x".repeat(500)}]);
    });
    assert!(
        bad.as_deref()
            .unwrap_or("")
            .contains("a chat line is at most 200"),
        "{bad:?}"
    );
}

#[test]
fn a_finished_game_shows_its_standings_and_a_rematch_keeps_the_seats_and_links() {
    let ws = Workspace::new();
    let (server, info) = table(&ws);
    let tokens = info.tokens();
    runtime().block_on(async {
        let mut host = Client::connect(&server, "t", &tokens.host).await;
        host.send(json!({"type": "rematch"})).await;
        assert!(host.error().await.contains("once the game is over"));
        let mut spectator = Client::connect(&server, "t", &tokens.spectator).await;
        spectator
            .send(json!({"type": "sit", "seat": 2, "name": "Cy"}))
            .await;
        spectator.until(|f| f["type"] == "seated").await;
        // Bots play Ann and Bob; Cy's seat is a person's, away: a bot steps in at once.
        host.send(json!({"type": "settings", "bot_after": 1})).await;
        spectator.close().await;
        host.send(json!({"type": "start"})).await;
        let over = host.state_where(|s| s["phase"] == "over").await;
        let standings = over["standings"].as_array().unwrap().clone();
        assert_eq!(standings.len(), 3, "{over}");
        for s in &standings {
            for key in [
                "robot",
                "flags",
                "lives",
                "deaths",
                "damage_dealt",
                "winner",
            ] {
                assert!(s.get(key).is_some(), "{key} in {s}");
            }
        }
        let cy = standings.iter().find(|s| s["robot"] == "Cog").unwrap();
        assert_eq!(cy["player"], "Cy");
        let winner = standings
            .iter()
            .find(|s| s["winner"] == true)
            .map(|s| s["robot"].clone());
        assert_eq!(
            over["frame"]["winner"],
            winner.unwrap_or(Value::Null),
            "marked on the board"
        );
        let run = host
            .frames
            .iter()
            .rev()
            .find(|f| f["type"] == "welcome")
            .unwrap()["run"]
            .clone();

        let mut cog = Client::connect(&server, "t", &tokens.seats[2]).await;
        cog.send(json!({"type": "rematch"})).await;
        assert!(cog.error().await.contains("only the host"));
        host.send(json!({"type": "rematch"})).await;
        let welcome = host.until(|f| f["type"] == "welcome").await;
        assert_ne!(
            welcome["run"], run,
            "a new game: the pages start their log afresh"
        );
        let fresh = host.state_where(|s| s["phase"] != "over").await;
        assert_eq!(fresh["standings"], Value::Null);
        assert_eq!(fresh["seats"][2]["player"], "Cy", "the seats are kept");
        assert_eq!(info.tokens().seats, tokens.seats, "and their links");
        // Cy plays the new game from the same link.
        let hand = cog.dealt().await;
        assert_eq!(cog.state["turn"], 1);
        assert_eq!(hand.len(), 9);
        assert_eq!(cog.state["seat"], "Cog");
    });
}
