//! The playtest table (`rally serve`): people at their own browsers, bots in the empty
//! seats, hot reload for everyone. design.md, "The table":
//!
//! ```text
//!  browser (seat / spectator / host page, plain JS)
//!       │  WebSocket: JSON messages, validated, per-seat token
//!       v
//!  axum on tokio ── lobby: tables by id ──> one OS thread per table, owning its Game,
//!                                           its rule set (Lua is not Send) and its reloader
//!                                           <── channels: commands in, frames out
//! ```
//!
//! - [`server`]: HTTP and WebSocket routes; checks tokens, reads and limits messages
//!   ([`protocol`]), and only routes: it never looks inside a game.
//! - [`thread`]: the table thread, the only place a game changes; it plays the same
//!   `Game`, bots, decision interface, saves and hot reload as `rally play`.
//! - `desk`: the rules of programming a turn at the table (hand, registers, ready).
//! - [`frames`]: what the pages draw of each stage, with no card shown before it is face up.
//! - `saver`: the saves written off the table threads, so a table never waits for the
//!   disk.
//! - [`links`](mod@links): where the printed links point (the machine's addresses, `--base-url`).
//! - [`lobby`] and [`chat`]: the players' names and the chat's lines, checked;
//!   [`standings`]: the end screen's.
//!
//! The server adds seats, tokens, frames and a lobby, nothing about the rules.

pub mod chat;
pub(crate) mod desk;
pub mod frames;
pub mod links;
pub mod lobby;
pub mod protocol;
pub(crate) mod saver;
pub mod server;
pub mod standings;
pub mod start;
pub mod thread;

use crate::error::{Error, Result};
use crate::game::save::Save;
use crate::script::RuleFolders;
use protocol::Settings;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use thread::Command;

/// How much the table and saver threads give way (`nice`) to the network threads.
const NICENESS: i32 = 10;

/// Lowers this thread's CPU priority below the server's network threads'. When many tables
/// resolve turns at once, the CPU is shared fairly among all runnable threads, so the two
/// network threads carrying every page's messages and frames would get 2 shares of 50: a
/// player's Ready would wait behind the other tables' registers on its way in, and the
/// first frame of the resolution on its way out (tests/table_load.rs with 50 tables: p99
/// 60–95 ms at equal priority, about half with this; docs/table.md). The engine's work and
/// the saves are what can wait a few milliseconds. On Linux `nice` is per thread; elsewhere
/// it would be the whole process's, so it is left alone there.
#[allow(unsafe_code)] // two libc calls
fn yield_to_the_network() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        // SAFETY: setpriority on this thread's own id changes nothing but its priority; it
        // fails only without the right to, and then nothing changes.
        if unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, NICENESS) } != 0 {
            tracing::debug!(
                "a thread keeps its priority: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}

/// Who a connection is: the token it came with decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The player of robot number `n` (its place in the game file).
    Seat(usize),
    /// The designer: host actions, and script errors shown.
    Host,
    Spectator,
}

/// The secrets in a table's links: one per seat, the host's and the spectators'. 128 random
/// bits each, from the operating system.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tokens {
    pub seats: Vec<String>,
    pub host: String,
    pub spectator: String,
}

impl Tokens {
    pub fn new(seats: usize) -> Result<Tokens> {
        Ok(Tokens {
            seats: (0..seats).map(|_| token()).collect::<Result<_>>()?,
            host: token()?,
            spectator: token()?,
        })
    }

    /// Whether these are a table's tokens for `seats` seats: each 32 lowercase hex digits
    /// ([`token`]), all different. The sentence says what is wrong.
    pub fn check(&self, seats: usize) -> std::result::Result<(), String> {
        if self.seats.len() != seats {
            return Err(format!(
                "{} seat tokens for a game of {seats} seats",
                self.seats.len()
            ));
        }
        let named = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("seat {}'s token", i + 1), t))
            .chain([
                ("the host's token".to_string(), &self.host),
                ("the spectators' token".to_string(), &self.spectator),
            ]);
        let mut seen = BTreeSet::new();
        for (who, t) in named {
            let well_formed = t.len() == 32
                && t.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
            if !well_formed {
                return Err(format!(
                    "{who} is {t:?}: a token is 32 hex digits (0-9, a-f)"
                ));
            }
            if !seen.insert(t) {
                return Err(format!("{who} is another link's token too"));
            }
        }
        Ok(())
    }

    /// The role `token` gives, if any. Every token is compared, each in constant time, so a
    /// wrong token's timing tells nothing about a right one.
    pub fn role(&self, token: &str) -> Option<Role> {
        let mut found = None;
        for (i, t) in self.seats.iter().enumerate() {
            if same(t, token) {
                found = Some(Role::Seat(i));
            }
        }
        if same(&self.host, token) {
            found = Some(Role::Host);
        }
        if same(&self.spectator, token) {
            found = Some(Role::Spectator);
        }
        found
    }
}

/// Whether `given` is the secret `token`, compared in constant time.
pub fn same(given: &str, token: &str) -> bool {
    given.len() == token.len()
        && given
            .bytes()
            .zip(token.bytes())
            .fold(0, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// 128 random bits from the operating system, in hex.
pub fn token() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::Other(format!("no randomness for the table's tokens: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The tokens of a table are kept beside its save (`X.save.json` → `X.tokens.json`), so
/// `rally serve --resume X.save.json` brings the same links back.
pub fn tokens_path(save: &Path) -> PathBuf {
    crate::game::save::beside(save, "tokens.json")
}

/// Why a new table may not be saved to `save`: the file holds a game not finished (or
/// something rally cannot read as a finished game), which the new table would replace.
/// `None`: no file there, or a finished game's.
pub fn unfinished_save(save: &Path) -> Option<String> {
    if !save.exists() {
        return None;
    }
    let shown = save.display();
    match Save::load(save) {
        Ok(s) if s.progress.outcome.is_some() => None,
        Ok(s) => Some(format!(
            "{shown} holds an unfinished game (turn {}): `rally serve --resume {shown}` brings it back, `--new` starts over it",
            s.state.turn
        )),
        Err(e) => Some(format!(
            "{shown} is there but is not a finished game ({e}): move it away, or `--new` starts over it"
        )),
    }
}

/// Everything a table thread needs to start its game (all `Send`: the rules are loaded on
/// the thread).
#[derive(Clone)]
pub struct Launch {
    pub id: String,
    /// The game file (ignored when resuming: the save names it).
    pub game: PathBuf,
    pub resume: Option<Save>,
    pub common: RuleFolders,
    /// Variants on top of the game file's.
    pub extra: Vec<String>,
    /// Where the game is saved after every stage.
    pub save: PathBuf,
    pub tokens: Tokens,
    pub settings: Settings,
    /// Watch the rule files (hot reload).
    pub reload: bool,
    /// Which seats wait for a person (the start page's choice); `None`: as the game file
    /// says (`driver = "human"`).
    pub people: Option<Vec<bool>>,
}

impl Launch {
    /// Where the finished game's replay goes: beside the save.
    pub fn replay_path(&self) -> PathBuf {
        crate::game::save::beside(&self.save, "replay.json")
    }
}

/// What the async side knows of a table.
pub struct TableInfo {
    pub id: String,
    pub title: String,
    pub seats: Vec<String>,
    /// Which seats are for people (the others are bots').
    pub people: Vec<bool>,
    /// The links' tokens: the table thread replaces a seat's when the host sends its
    /// player away ([`TableInfo::tokens`]).
    tokens: Mutex<Tokens>,
    /// The replay viewer's page, once the game is over (until a rematch starts).
    replay: Mutex<Option<Arc<ReplayPage>>>,
}

impl TableInfo {
    pub fn new(
        id: String,
        title: String,
        seats: Vec<String>,
        people: Vec<bool>,
        tokens: Tokens,
    ) -> TableInfo {
        TableInfo {
            id,
            title,
            seats,
            people,
            tokens: Mutex::new(tokens),
            replay: Mutex::new(None),
        }
    }

    /// The links' tokens now.
    pub fn tokens(&self) -> Tokens {
        self.tokens.lock().expect("tokens lock").clone()
    }

    pub(crate) fn set_tokens(&self, tokens: Tokens) {
        *self.tokens.lock().expect("tokens lock") = tokens;
    }

    /// The role `token` gives on this table now.
    pub fn role(&self, token: &str) -> Option<Role> {
        self.tokens.lock().expect("tokens lock").role(token)
    }

    /// The finished game's replay page, if the game is over.
    pub fn replay(&self) -> Option<Arc<ReplayPage>> {
        self.replay.lock().expect("replay lock").clone()
    }

    pub(crate) fn set_replay(&self, page: Option<Arc<ReplayPage>>) {
        *self.replay.lock().expect("replay lock") = page;
    }
}

/// A finished game's page in the replay viewer, made the first time someone asks for it
/// (off the table's thread; the replay file is on disk anyway).
pub struct ReplayPage {
    pub board: crate::board::Board,
    pub board_svg: String,
    /// The sentences of the scripts' events, for the replay's words.
    pub sentences: crate::text::sentence::Sentences,
    pub title: String,
    pub outcome: String,
    pub replay: Arc<crate::game::save::Replay>,
    page: OnceLock<String>,
}

impl ReplayPage {
    pub fn new(
        board: crate::board::Board,
        board_svg: String,
        sentences: crate::text::sentence::Sentences,
        title: String,
        outcome: String,
        replay: Arc<crate::game::save::Replay>,
    ) -> ReplayPage {
        ReplayPage {
            board,
            board_svg,
            sentences,
            title,
            outcome,
            replay,
            page: OnceLock::new(),
        }
    }

    pub fn page(&self) -> &str {
        self.page.get_or_init(|| {
            let frames = crate::pictures::html::game_frames(&self.replay.turns);
            crate::pictures::html::page_for(
                &self.board,
                &self.board_svg,
                &self.sentences,
                &self.title,
                &self.outcome,
                &frames,
            )
        })
    }
}

/// The server's open WebSockets, by table and by address.
#[derive(Default)]
pub struct OpenConnections {
    tables: BTreeMap<String, usize>,
    addresses: BTreeMap<std::net::IpAddr, usize>,
}

/// One counted WebSocket ([`Lobby::seat_connection`]); dropping it gives its place back.
pub struct ConnectionSlot {
    open: Arc<Mutex<OpenConnections>>,
    table: String,
    from: std::net::IpAddr,
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let mut open = self.open.lock().expect("lobby lock");
        let give_back = |n: &mut usize| *n = n.saturating_sub(1);
        open.tables.entry(self.table.clone()).and_modify(give_back);
        open.addresses.entry(self.from).and_modify(give_back);
    }
}

/// A running table: its description and the way to its thread.
pub struct TableHandle {
    pub info: Arc<TableInfo>,
    commands: Mutex<Sender<Command>>,
}

impl TableHandle {
    /// Sends a command to the table thread; false if the table has stopped.
    pub fn send(&self, command: Command) -> bool {
        self.commands
            .lock()
            .expect("table channel lock")
            .send(command)
            .is_ok()
    }
}

/// The tables of one server, by id.
#[derive(Default)]
pub struct Lobby {
    tables: Mutex<BTreeMap<String, Arc<TableHandle>>>,
    /// Ids given out by [`Lobby::reserve`] whose tables have not opened yet.
    reserved: Mutex<BTreeSet<String>>,
    /// What the start page may open; `None`: no start page.
    pub offer: Option<start::Offer>,
    next_connection: AtomicU64,
    /// Open WebSockets by table and by address (`Lobby::seat_connection`).
    open: Arc<Mutex<OpenConnections>>,
    threads: Mutex<Vec<std::thread::JoinHandle<()>>>,
    saver: Arc<saver::Saver>,
}

impl Lobby {
    /// A lobby whose start page opens what `offer` allows.
    pub fn with_offer(offer: start::Offer) -> Lobby {
        let mut lobby = Lobby::default();
        lobby.offer = Some(offer);
        lobby
    }

    /// A table id nobody on this server has or is about to have, from `name` (`practice`,
    /// then `practice-2`...), kept for the caller's [`Lobby::open`]; `None` when the server
    /// already hosts [`start::MAX_TABLES`] tables.
    pub fn reserve(&self, name: &str) -> Option<String> {
        let tables = self.tables.lock().expect("lobby lock");
        let mut reserved = self.reserved.lock().expect("lobby lock");
        if tables.len() + reserved.len() >= start::MAX_TABLES {
            return None;
        }
        let taken = |id: &String| tables.contains_key(id) || reserved.contains(id);
        let mut id = name.to_string();
        let mut n = 2;
        while taken(&id) {
            id = format!("{name}-{n}");
            n += 1;
        }
        reserved.insert(id.clone());
        Some(id)
    }

    /// Gives back an id [`Lobby::reserve`] gave out, for a table that will not open.
    pub fn release(&self, id: &str) {
        self.reserved.lock().expect("lobby lock").remove(id);
    }

    /// Starts a table on its own thread and waits until its game has loaded; the tokens
    /// are written beside the save. Its id must be free or reserved for it.
    pub fn open(&self, launch: Launch) -> Result<Arc<TableInfo>> {
        let id = launch.id.clone();
        let opened = self.start(launch);
        self.release(&id);
        opened
    }

    fn start(&self, launch: Launch) -> Result<Arc<TableInfo>> {
        let (tx, rx) = std::sync::mpsc::channel();
        let (ready_tx, ready_rx) = sync_channel(1);
        let id = launch.id.clone();
        if self.tables.lock().expect("lobby lock").contains_key(&id) {
            return Err(Error::Other(format!("there is already a table `{id}`")));
        }
        let tokens_file = tokens_path(&launch.save);
        let tokens_text = serde_json::to_string_pretty(&launch.tokens).expect("tokens serialize");
        let (saver, me) = (self.saver.clone(), tx.clone());
        let handle = std::thread::Builder::new()
            .name(format!("table {id}"))
            .spawn(move || thread::run(launch, saver, me, rx, ready_tx))
            .map_err(|e| Error::Other(format!("cannot start a table thread: {e}")))?;
        let info = match ready_rx.recv() {
            Ok(Ok(info)) => info,
            Ok(Err(message)) => {
                let _ = handle.join();
                return Err(Error::Other(message));
            }
            Err(_) => {
                let _ = handle.join();
                return Err(Error::Other(format!("table `{id}` stopped while starting")));
            }
        };
        crate::files::write_atomic(&tokens_file, tokens_text.as_bytes())?;
        self.threads.lock().expect("lobby lock").push(handle);
        self.tables.lock().expect("lobby lock").insert(
            id,
            Arc::new(TableHandle {
                info: info.clone(),
                commands: Mutex::new(tx),
            }),
        );
        Ok(info)
    }

    pub fn get(&self, id: &str) -> Option<Arc<TableHandle>> {
        self.tables.lock().expect("lobby lock").get(id).cloned()
    }

    pub fn list(&self) -> Vec<Arc<TableInfo>> {
        self.tables
            .lock()
            .expect("lobby lock")
            .values()
            .map(|t| t.info.clone())
            .collect()
    }

    /// Counts a WebSocket to table `id` from `from`, if neither is at its limit
    /// (`server::MAX_PER_TABLE`, `server::MAX_PER_ADDRESS`); it is counted until the
    /// returned guard is dropped.
    pub fn seat_connection(&self, id: &str, from: std::net::IpAddr) -> Option<ConnectionSlot> {
        let mut open = self.open.lock().expect("lobby lock");
        let at_table = open.tables.get(id).copied().unwrap_or(0);
        let at_address = open.addresses.get(&from).copied().unwrap_or(0);
        if at_table >= server::MAX_PER_TABLE || at_address >= server::MAX_PER_ADDRESS {
            return None;
        }
        *open.tables.entry(id.to_string()).or_default() += 1;
        *open.addresses.entry(from).or_default() += 1;
        Some(ConnectionSlot {
            open: self.open.clone(),
            table: id.to_string(),
            from,
        })
    }

    /// A number no other connection of this server has.
    pub fn connection_id(&self) -> u64 {
        self.next_connection.fetch_add(1, Ordering::Relaxed)
    }

    /// Waits until every save the tables asked for is on disk.
    pub fn flush_saves(&self) {
        self.saver.flush();
    }

    /// Tells every table to stop and waits for their threads and their last saves.
    pub fn shutdown(&self) {
        for table in self.tables.lock().expect("lobby lock").values() {
            table.send(Command::Shutdown);
        }
        let threads = std::mem::take(&mut *self.threads.lock().expect("lobby lock"));
        for t in threads {
            let _ = t.join();
        }
        self.saver.flush();
    }
}

impl Drop for Lobby {
    /// A table thread keeps a way to itself (for its saves' outcomes), so it does not end
    /// when the lobby's handles go: the lobby stops its tables.
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// `games/practice.toml` → `practice`; `saves/practice.save.json` → `practice`: letters,
/// digits and dashes only, since it goes into links.
pub fn table_name(path: &Path) -> String {
    let stem = match path.file_stem() {
        Some(stem) if path.extension().is_some_and(|e| e == "toml") => {
            stem.to_string_lossy().to_string()
        }
        _ => crate::game::save::name(path),
    };
    let clean: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if clean.is_empty() {
        "table".into()
    } else {
        clean
    }
}

/// The links a table prints: one per seat (people's seats only), the spectators' and the
/// host's.
pub fn links(base: &str, info: &TableInfo) -> Vec<(String, String)> {
    let url = |token: &str| format!("{base}/t/{}#{token}", info.id);
    let tokens = info.tokens();
    let mut out = Vec::new();
    for (i, name) in info.seats.iter().enumerate() {
        let who = if info.people[i] {
            format!("seat {name}")
        } else {
            format!("seat {name} (a bot; a person may take it)")
        };
        out.push((who, url(&tokens.seats[i])));
    }
    out.push(("spectators".into(), url(&tokens.spectator)));
    out.push(("host".into(), url(&tokens.host)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_decide_the_role() {
        let t = Tokens::new(3).unwrap();
        assert_eq!(t.host.len(), 32);
        let mut all = t.seats.clone();
        all.extend([t.host.clone(), t.spectator.clone()]);
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 5, "every token differs");
        assert_eq!(t.role(&t.seats[2]), Some(Role::Seat(2)));
        assert_eq!(t.role(&t.host), Some(Role::Host));
        assert_eq!(t.role(&t.spectator), Some(Role::Spectator));
        assert_eq!(t.role(""), None);
        assert_eq!(t.role(&t.host[..31]), None);
        assert_eq!(t.role(&t.host.to_uppercase()), None);
        assert_eq!(t.check(3), Ok(()));
        assert!(t
            .check(2)
            .unwrap_err()
            .contains("3 seat tokens for a game of 2"));
        for bad in [
            "",
            "abc",
            &t.host.to_uppercase(),
            &format!("{}g", &t.host[..31]),
        ] {
            let mut u = t.clone();
            u.host = bad.to_string();
            assert!(
                u.check(3).unwrap_err().contains("the host's token"),
                "{bad:?}"
            );
        }
        let mut u = t.clone();
        u.spectator = u.seats[1].clone();
        assert!(u.check(3).unwrap_err().contains("another link's token"));
    }

    #[test]
    fn files_beside_the_save() {
        assert_eq!(
            tokens_path(Path::new("saves/x.save.json")),
            Path::new("saves/x.tokens.json")
        );
    }

    #[test]
    fn tables_are_named_after_their_game_or_save_in_link_safe_letters() {
        for (path, name) in [
            ("games/practice.toml", "practice"),
            ("saves/practice.save.json", "practice"),
            ("saves/old.json", "old"),
            ("games/Die Bahn 2.toml", "Die-Bahn-2"),
            ("games/ü.toml", "-"),
            (".toml", "-toml"),
        ] {
            assert_eq!(table_name(Path::new(path)), name, "{path}");
        }
    }

    #[test]
    fn ids_are_reserved_once_and_a_server_hosts_at_most_max_tables() {
        let lobby = Lobby::default();
        assert_eq!(lobby.reserve("arena").as_deref(), Some("arena"));
        assert_eq!(lobby.reserve("arena").as_deref(), Some("arena-2"));
        lobby.release("arena");
        assert_eq!(lobby.reserve("arena").as_deref(), Some("arena"));
        for _ in 3..=start::MAX_TABLES {
            assert!(lobby.reserve("t").is_some());
        }
        assert_eq!(
            lobby.reserve("t"),
            None,
            "the {}th table",
            start::MAX_TABLES + 1
        );
    }
}
