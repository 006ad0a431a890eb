//! Load on loopback: many tables on one server, each with four clients (two seats that
//! program like simple bots, a spectator and the host) and a bot in the third seat, play the
//! whole 3-turn game. Nothing may be lost (every client gets every stage, in order, and no
//! error), and the time from the last Ready to the first frame of the resolution is
//! reported as percentiles.
//!
//! CI plays `RALLY_LOAD_TABLES` tables (default 8) in a debug build. The figure in
//! docs/table.md comes from the full run:
//! `RALLY_LOAD_TABLES=50 cargo test --release --test tests table_load -- --nocapture`.

use crate::support::table_client::{serve, Client, Workspace};
use rally::table::protocol::Settings;
use rally::table::server::Server;
use rally::table::TableInfo;
use serde::Deserialize;
use serde_json::json;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const TURNS: u32 = 3;
/// Stages per turn: the start, five registers, the end.
const STAGES: usize = 7;

/// What the test reads of a frame: serde skips the rest without building it, so the 200
/// clients cost little next to the server they measure on the same two cores.
#[derive(Deserialize)]
struct Frame {
    #[serde(rename = "type")]
    kind: String,
    label: Option<String>,
    turn: Option<u32>,
    phase: Option<String>,
    desk: Option<Desk>,
    replay: Option<String>,
    message: Option<String>,
}

#[derive(Deserialize)]
struct Desk {
    hand: Vec<String>,
    registers: Vec<Option<String>>,
    locked: Vec<bool>,
    ready: bool,
}

/// A client of the load test: the frames it has read, the error frames kept.
struct Player {
    client: Client,
    errors: Vec<String>,
}

impl Player {
    async fn connect(server: &Server, table: &str, token: &str) -> Player {
        Player {
            client: Client::connect(server, table, token).await,
            errors: Vec::new(),
        }
    }

    async fn next(&mut self) -> Frame {
        let text = self
            .client
            .next_text()
            .await
            .expect("the connection stays open");
        let frame: Frame = serde_json::from_str(&text).unwrap();
        if frame.kind == "error" {
            self.errors.push(frame.message.clone().unwrap_or_default());
        }
        frame
    }

    /// Frames until one matches.
    async fn until(&mut self, matches: impl Fn(&Frame) -> bool) -> Frame {
        loop {
            let frame = self.next().await;
            if matches(&frame) {
                return frame;
            }
        }
    }

    /// Places cards in the open registers of turn `turn` (as many as the hand allows) and
    /// waits until the table shows them placed, as a person sees their cards land before
    /// pressing Ready.
    async fn program(&mut self, turn: u32) {
        let state = self
            .until(|f| {
                f.kind == "state"
                    && f.turn == Some(turn)
                    && f.phase.as_deref() == Some("programming")
                    && f.desk.as_ref().is_some_and(|d| !d.ready)
            })
            .await;
        let desk = state.desk.unwrap();
        let open = (1..=desk.locked.len()).filter(|r| !desk.locked[r - 1]);
        let mut placed = 0;
        for (register, card) in open.zip(&desk.hand) {
            self.client
                .send(json!({"type": "place", "register": register, "card": card}))
                .await;
            placed += 1;
        }
        let filled = |d: &Desk| d.registers.iter().filter(|c| c.is_some()).count();
        let before = filled(&desk);
        self.until(|f| {
            f.desk
                .as_ref()
                .is_some_and(|d| filled(d) == before + placed)
        })
        .await;
    }

    /// The labels of the stages up to and including `last`.
    async fn stages_until(&mut self, last: &str) -> Vec<String> {
        let mut labels = Vec::new();
        loop {
            let frame = self.until(|f| f.kind == "stage").await;
            let label = frame.label.unwrap();
            let done = label == last;
            labels.push(label);
            if done {
                return labels;
            }
        }
    }
}

/// A spectator or the host: reads until the last stage of the game; the stage labels seen
/// and the error frames.
async fn watch(mut watcher: Player) -> (Vec<String>, Vec<String>) {
    let labels = watcher
        .stages_until(&format!("Turn {TURNS} · End of turn"))
        .await;
    (labels, watcher.errors)
}

/// One table's game; returns the Ready-to-resolution times of its turns.
async fn play(server: &Server, info: &TableInfo) -> Vec<Duration> {
    let id = info.id.as_str();
    let tokens = &info.tokens();
    let spectator = Player::connect(server, id, &tokens.spectator).await;
    let host = Player::connect(server, id, &tokens.host).await;
    let watchers = [tokio::spawn(watch(spectator)), tokio::spawn(watch(host))];
    let mut ann = Player::connect(server, id, &tokens.seats[0]).await;
    let mut bob = Player::connect(server, id, &tokens.seats[1]).await;
    let mut times = Vec::new();
    let mut seen = [Vec::new(), Vec::new()];
    for turn in 1..=TURNS {
        ann.program(turn).await;
        ann.client.send(json!({"type": "ready"})).await;
        ann.until(|f| f.desk.as_ref().is_some_and(|d| d.ready))
            .await;
        bob.program(turn).await;
        let last_ready = Instant::now();
        bob.client.send(json!({"type": "ready"})).await;
        let first = bob.until(|f| f.kind == "stage").await;
        times.push(last_ready.elapsed());
        seen[1].push(first.label.unwrap());
        let end = format!("Turn {turn} · End of turn");
        seen[0].extend(ann.stages_until(&end).await);
        seen[1].extend(bob.stages_until(&end).await);
    }
    let over = ann.until(|f| f.phase.as_deref() == Some("over")).await;
    assert!(over.replay.is_some(), "table {id}: no replay link");
    let mut all = vec![(seen[0].clone(), ann.errors), (seen[1].clone(), bob.errors)];
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
        assert!(
            errors.is_empty(),
            "table {id}, client {i}: errors {errors:?}"
        );
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
    let cpu_before = cpu_time();
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
    let cpu_after = cpu_time();
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
    // Each game left its replay file beside its save, every turn in it.
    server.lobby.flush_saves();
    for info in &infos {
        let file = ws.path(&format!("{}.replay.json", info.id));
        let replay: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(replay["turns"].as_array().unwrap().len(), TURNS as usize);
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
    // CPU time barely depends on what else the machine runs, unlike the times above.
    if !cpu_after.is_empty() {
        let turns = times.len() as f64;
        let per_turn = |group: &str| {
            // A thread that ended (a table's, at its game's end) takes its time with it.
            let used = cpu_after
                .get(group)
                .copied()
                .unwrap_or_default()
                .saturating_sub(cpu_before.get(group).copied().unwrap_or_default());
            used.as_secs_f64() * 1000.0 / turns
        };
        let server: f64 = ["tables", "network", "saver"].map(per_turn).iter().sum();
        eprintln!(
            "CPU per table-turn: server {server:.2} ms (table threads {:.2}, network {:.2}, saver {:.2}); this test's clients {:.2} ms",
            per_turn("tables"),
            per_turn("network"),
            per_turn("saver"),
            per_turn("clients"),
        );
    }
}

/// The CPU time this process's threads have used so far, by what they do (their names:
/// `table …`, the server's `rally-serve`, `rally-saver`, and the rest: this test's
/// clients), from Linux's /proc/self/task/*/schedstat; empty where there is none.
fn cpu_time() -> BTreeMap<&'static str, Duration> {
    let mut used = BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return used;
    };
    for task in tasks.flatten() {
        let read = |file: &str| std::fs::read_to_string(task.path().join(file)).ok();
        let (Some(name), Some(stat)) = (read("comm"), read("schedstat")) else {
            continue;
        };
        let Some(nanos) = stat
            .split_whitespace()
            .next()
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let group = match name.trim() {
            n if n.starts_with("table ") => "tables",
            "rally-serve" => "network",
            "rally-saver" => "saver",
            _ => "clients",
        };
        *used.entry(group).or_default() += Duration::from_nanos(nanos);
    }
    used
}
