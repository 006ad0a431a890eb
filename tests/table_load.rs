//! Load on loopback: many tables on one server, each with four clients (two seats that
//! program like simple bots, a spectator and the host) and a bot in the third seat, play the
//! whole 3-turn game. Nothing may be lost (every client gets every stage, in order, and no
//! error), and the time from the last Ready to the first frame of the resolution is
//! reported as percentiles.
//!
//! CI plays `RALLY_LOAD_TABLES` tables (default 8) in a debug build. The figure in
//! docs/table.md comes from the full run:
//! `RALLY_LOAD_TABLES=50 cargo test --release --test table_load -- --nocapture`.

mod support;
mod table_client;

use rally::table::protocol::Settings;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use table_client::{serve, Client, Workspace};

const TURNS: u32 = 3;
/// Stages per turn: the start, five registers, the end.
const STAGES: usize = 7;

/// Places cards in the open registers (as many as the hand allows) and says Ready.
async fn program(client: &mut Client, turn: u32) -> usize {
    let state = client
        .state_where(|s| {
            s["turn"] == turn && s["phase"] == "programming" && s["desk"]["ready"] == false
        })
        .await;
    let desk = &state["desk"];
    let open: Vec<usize> = desk["locked"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, l)| **l == json!(false))
        .map(|(i, _)| i + 1)
        .collect();
    let hand = client.hand();
    for (register, card) in open.iter().zip(&hand) {
        client
            .send(json!({"type": "place", "register": register, "card": card}))
            .await;
    }
    open.len().min(hand.len())
}

/// Reads until the last stage of the game and returns the stage labels seen.
async fn watch(mut client: Client) -> (Vec<String>, usize) {
    let last = format!("Turn {TURNS} · End of turn");
    let mut labels = Vec::new();
    loop {
        let frame = client.next().await.expect("the connection stays open");
        if frame["type"] == "stage" {
            labels.push(frame["label"].as_str().unwrap().to_string());
            if frame["label"] == last.as_str() {
                break;
            }
        }
    }
    let errors = client
        .frames
        .iter()
        .filter(|f| f["type"] == "error")
        .count();
    (labels, errors)
}

/// One table's game; returns the Ready-to-resolution times of its turns.
async fn play(
    server: &rally::table::server::Server,
    info: &rally::table::TableInfo,
) -> Vec<Duration> {
    let id = info.id.as_str();
    let tokens = &info.tokens;
    let spectator = Client::connect(server, id, &tokens.spectator).await;
    let host = Client::connect(server, id, &tokens.host).await;
    let watchers = [tokio::spawn(watch(spectator)), tokio::spawn(watch(host))];
    let mut ann = Client::connect(server, id, &tokens.seats[0]).await;
    let mut bob = Client::connect(server, id, &tokens.seats[1]).await;
    let mut times = Vec::new();
    let mut seen = [Vec::new(), Vec::new()];
    for turn in 1..=TURNS {
        program(&mut ann, turn).await;
        ann.send(json!({"type": "ready"})).await;
        ann.state_where(|s| s["desk"]["ready"] == true || s["phase"] != "programming")
            .await;
        program(&mut bob, turn).await;
        let last_ready = Instant::now();
        bob.send(json!({"type": "ready"})).await;
        let first = bob.until(|f| f["type"] == "stage").await;
        times.push(last_ready.elapsed());
        seen[1].push(first["label"].as_str().unwrap().to_string());
        let end = format!("Turn {turn} · End of turn");
        for (i, client) in [&mut ann, &mut bob].into_iter().enumerate() {
            loop {
                let frame = client.until(|f| f["type"] == "stage").await;
                let label = frame["label"].as_str().unwrap().to_string();
                seen[i].push(label.clone());
                if label == end {
                    break;
                }
            }
        }
    }
    let over = ann.state_where(|s| s["phase"] == "over").await;
    assert!(over["replay"].is_string(), "table {id}: no replay link");
    for (who, client) in [("Ann", &ann), ("Bob", &bob)] {
        let errors: Vec<&Value> = client
            .frames
            .iter()
            .filter(|f| f["type"] == "error")
            .collect();
        assert!(
            errors.is_empty(),
            "table {id}: {who} got errors: {errors:?}"
        );
    }
    let mut all: Vec<(Vec<String>, usize)> = seen.into_iter().map(|s| (s, 0)).collect();
    for w in watchers {
        all.push(w.await.unwrap());
    }
    let expected: Vec<String> = (1..=TURNS)
        .flat_map(|t| {
            let mut labels = vec![format!("Turn {t} · Start")];
            labels.extend((1..=5).map(|r| format!("Turn {t} · Register {r}")));
            labels.push(format!("Turn {t} · End of turn"));
            labels
        })
        .collect();
    assert_eq!(expected.len(), TURNS as usize * STAGES);
    for (i, (labels, errors)) in all.iter().enumerate() {
        assert_eq!(
            labels, &expected,
            "table {id}, client {i}: stages lost or out of order"
        );
        assert_eq!(*errors, 0, "table {id}, client {i}: error frames");
    }
    times
}

#[test]
fn many_tables_play_whole_games_and_lose_nothing() {
    let tables: usize = std::env::var("RALLY_LOAD_TABLES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(8);
    let ws = Workspace::new();
    let launches = (0..tables)
        .map(|i| ws.launch(&format!("t{i}"), Settings::default(), false))
        .collect();
    let (server, infos) = serve(launches);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let started = Instant::now();
    let server = std::sync::Arc::new(server);
    let mut times: Vec<Duration> = runtime.block_on(async {
        let games: Vec<_> = infos
            .iter()
            .map(|info| {
                let server = server.clone();
                let info = info.clone();
                tokio::spawn(async move { play(&server, &info).await })
            })
            .collect();
        let mut all = Vec::new();
        for g in games {
            all.extend(g.await.unwrap());
        }
        all
    });
    let wall = started.elapsed();
    for info in &infos {
        let replay = ureq::get(&format!("http://{}/t/{}/replay", server.addr, info.id))
            .call()
            .unwrap()
            .body_mut()
            .read_to_string()
            .unwrap();
        assert!(
            replay.contains("rally replay"),
            "table {}: the replay page",
            info.id
        );
    }
    times.sort();
    let pick = |p: f64| times[((p * times.len() as f64).ceil() as usize).clamp(1, times.len()) - 1];
    eprintln!(
        "{tables} tables × 4 clients × {TURNS} turns in {wall:.2?}: last Ready → first resolution frame: median {:.1?}, p99 {:.1?}, max {:.1?} ({} turns)",
        pick(0.5),
        pick(0.99),
        times[times.len() - 1],
        times.len()
    );
    assert_eq!(times.len(), tables * TURNS as usize);
}
