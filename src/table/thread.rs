//! The table thread: the only place a table's game changes. It owns the [`Game`], its rule
//! set (Lua is not `Send`), its hot reloader and the bots, and talks to the async side over
//! channels: [`Command`]s in, frames (JSON text) out, one sender per connection.
//!
//! The turn loop is `Game::advance`, as in `rally play`; the table plugs in as its
//! [`Seats`] and as the game's [`Chooser`]. Wherever the game waits for people (the
//! programming phase, a question, a pause on a script error), the thread *pumps*: it handles
//! the commands that arrive (connections, moves, answers, host settings) until what it waits
//! for has happened or a deadline passed. Every frame is built for its connection
//! (`Table::view`): a seat sees its own hand and program, nobody else's.

mod debug;

mod seating;

use super::chat::{self, Chat};
use super::desk::Desk;
use super::frames::{self, Secrets};
use super::protocol::{
    error_frame, DeskView, Incoming, OptionCard, QuestionView, Quiet, SeatView, Settings, View,
    MAX_SECONDS,
};
use super::saver::Saver;
use super::{Launch, ReplayPage, Role, TableInfo, Tokens};
use crate::board::Board;
use crate::cards::Card;
use crate::deal::{self, Hand};
use crate::decision::{BotPolicy, Chooser, Question, POWER_DOWN};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::game::bot::Bots;
use crate::game::journal::{self, Counted, Journal};
use crate::game::preview::{self, Pose};
use crate::game::save::{self, Save};
use crate::game::{Driver, Game, Seats, Setup, Stage, TurnRecord};
use crate::reload::{HotReload, Reloaded, WatchOptions};
use crate::state::{Robot, RobotId, State, REGISTERS};
use serde::{Deserialize, Serialize};
use serde_json::json;
use serde_json::value::RawValue;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Frames queued for one connection. Bounded: a browser that stops reading is dropped (it
/// reconnects and gets the whole table again) rather than growing the server's memory.
pub type Outbox = tokio::sync::mpsc::Sender<String>;

/// Frames a connection may have queued before it counts as gone.
pub const OUTBOX_FRAMES: usize = 256;

/// What the async side tells a table.
pub enum Command {
    /// A browser connected with a valid token.
    Connect {
        conn: u64,
        role: Role,
        out: Outbox,
    },
    Disconnect {
        conn: u64,
    },
    /// A message that parsed (`protocol::parse`); whether it is allowed now is checked here.
    Message {
        conn: u64,
        message: Incoming,
    },
    /// The saver wrote the game, or why it could not.
    Saved(std::result::Result<(), String>),
    /// The server stops: leave the game as saved.
    Shutdown,
}

/// How often a waiting table looks at its rule files.
const RELOAD_TICK: Duration = Duration::from_millis(100);

/// Where the table is, as the pages show it.
#[derive(Clone, Debug, PartialEq)]
enum Stand {
    /// Waiting for the people to take their seats (or the host to start).
    Waiting,
    Programming,
    Resolving,
    /// A script failed in the middle of a stage and the table waits for a fixed script;
    /// the message is for the host.
    Paused(String),
    /// The game cannot go on (a script failed at a table without hot reload, the save's
    /// journal could not be written): the host's message and everybody else's. The save
    /// holds the game as it stood before the failure, for `--resume` once it is fixed.
    Stopped {
        host: String,
        others: String,
    },
    Over,
}

/// A browser connected to the table.
struct Connection {
    role: Role,
    out: Outbox,
    /// The last state frame it was sent: an unchanged state is not sent again (a card
    /// placed at one seat changes nobody else's view).
    shown: Arc<str>,
}

/// A seat: whether it waits for a person, and whether one has taken it.
struct SeatState {
    /// The robot's name.
    name: String,
    /// The name its player gave (`lobby::name`), while someone sits there.
    player: Option<String>,
    /// The game waits for a person here before it starts (`driver = "human"` or the start
    /// page's choice); the other seats are a bot's until someone opens their link.
    person: bool,
    /// A person has sat here: the seat is theirs from then on, while they are away too (a
    /// bot steps in only after the host's `bot_after`).
    taken: bool,
    connections: usize,
    /// When the last connection went away.
    absent_since: Option<Instant>,
    /// The optional questions its player declined for a while (`quiet`), by key: they get
    /// their default without being asked.
    quiet: BTreeMap<String, Hush>,
}

/// How long a declined optional question stays unasked: to the end of a turn, or the game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Hush {
    Turn(u32),
    Game,
}

impl Hush {
    fn covers(self, turn: u32) -> bool {
        match self {
            Hush::Turn(t) => t == turn,
            Hush::Game => true,
        }
    }
}

/// A question waiting for its answer.
struct Pending {
    view: QuestionView,
    robot: RobotId,
    /// The turn it is asked in (a "not this turn" lasts to its end).
    turn: u32,
    deadline: Instant,
    /// The player's page has said it shows the question (its time then starts again).
    shown: bool,
    answer: Option<String>,
}

/// What a table keeps in its save besides the game (`Save::table`, docs/formats.md): who
/// sits where, the host's settings and, while a turn is programmed, every seat's desk, so
/// a table comes back as the people left it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Kept {
    /// The game has started (the table no longer waits for its people to sit down).
    started: bool,
    settings: Settings,
    seats: Vec<KeptSeat>,
    /// The desks of the turn being programmed, one per robot (`null`: it does not
    /// program); empty between turns.
    #[serde(default)]
    desks: Vec<Option<KeptDesk>>,
    /// The table's chat, oldest line first (saves before it had none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    chat: Vec<chat::Line>,
    /// The turn log so far: its stages are the first lines of a journal beside the save
    /// (`x.log.jsonl`), so a save does not copy the whole log. Saves of an older rally have
    /// none (their table starts its log afresh).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    log: Option<KeptLog>,
    /// The stages `log` counts, read from the journal when the save is.
    #[serde(skip)]
    stages: Vec<Box<RawValue>>,
}

/// How much of the log's journal a save counts: its first `stages` lines, `bytes` long.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeptLog {
    /// The journal's file name, in the save's folder.
    file: String,
    stages: u64,
    bytes: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeptSeat {
    /// The game waits for a person here.
    person: bool,
    /// A person has taken it.
    taken: bool,
    /// The optional questions its player declined for a turn or the game.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    quiet: BTreeMap<String, Hush>,
    /// The name its player gave (saves before names had none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

/// A desk as the player left it: restored only onto the same hand, dealt again from the
/// save, and only through the desk's own rules (`Desk::place`...).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeptDesk {
    hand: Vec<Card>,
    registers: Vec<Option<Card>>,
    power_down: bool,
    ready: bool,
}

impl From<&Desk> for KeptDesk {
    fn from(d: &Desk) -> KeptDesk {
        KeptDesk {
            hand: d.hand.cards.clone(),
            registers: d.registers.to_vec(),
            power_down: d.power_down,
            ready: d.ready,
        }
    }
}

/// A save as the table writes it: the game's, and the table's own part.
#[derive(Serialize)]
struct TableSave<'a> {
    #[serde(flatten)]
    game: &'a Save,
    #[serde(skip_serializing_if = "Option::is_none")]
    journal: Option<Counted>,
    table: Kept,
}

/// Where a table's saves go, and the game as of its last stage.
struct Saving {
    saver: Arc<Saver>,
    path: PathBuf,
    me: Sender<Command>,
    game: Option<Arc<Save>>,
    /// The game's finished turns, appended by the saver before the save that counts them.
    journal: Arc<Mutex<Unjournaled>>,
    /// How many finished turns have been handed to `journal`.
    handed: usize,
    /// How many stages of the turn log have been handed to `journal`.
    logged: usize,
}

/// A table's journals and what waits for the saver to append to them (a save the saver
/// skips for a newer one leaves its turns and stages here for the next).
struct Unjournaled {
    journal: Journal,
    turns: Vec<TurnRecord>,
    log: Journal,
    stages: Vec<Box<RawValue>>,
}

/// `saves/x.save.json` → `saves/x.log.jsonl`, the turn log's journal.
fn log_path(save: &std::path::Path) -> PathBuf {
    save::beside(save, "log.jsonl")
}

/// Everything the table thread keeps besides the game itself.
pub(super) struct Table {
    info: Arc<TableInfo>,
    rx: Receiver<Command>,
    conns: BTreeMap<u64, Connection>,
    seats: Vec<SeatState>,
    settings: Settings,
    stand: Stand,
    desks: Vec<Option<Desk>>,
    timer: Option<Instant>,
    question: Option<Pending>,
    next_question: u64,
    /// The robots as the pages last saw them (questions come mid-register, when the game
    /// itself is busy).
    robots: Vec<Robot>,
    turn: u32,
    generation: u64,
    board: Rc<Board>,
    board_svg: String,
    /// The sentences the rules give their scripts' events (kept with the board across a
    /// reload).
    sentences: crate::text::sentence::Sentences,
    /// What each option card does (its script's `describe`), by name, for the seats table.
    option_texts: BTreeMap<String, String>,
    /// The robot vars every page may see (the scripts' `public_vars`).
    public_vars: std::collections::BTreeSet<String>,
    outcome: Option<String>,
    /// The turn log: each stage's entry as every page was told it (`frames::stage`), for a
    /// page that (re)joins.
    log: Vec<Box<RawValue>>,
    /// This run of the table (when it started, in ms since 1970): the stages' numbers start
    /// again at 1 in a table resumed from its save.
    run: u64,
    /// How bots answer questions for the seats they play.
    bots: BotPolicy,
    started: bool,
    closed: bool,
    /// Why the last save failed, while saving fails.
    save_failure: Option<String>,
    standing: Option<Standing>,
    /// Why the rule files saved last do not load (for the host), until a save that loads.
    reload_error: Option<String>,
    saving: Saving,
    /// Desks from the save this table resumed from, for the first deal.
    resumed_desks: Vec<Option<KeptDesk>>,
    /// The turn this table came back from its save at: the pages opened during it are told.
    resumed_at: Option<u32>,
    chat: Chat,
    /// The finished game's standings (`standings::of`).
    standings: Option<Vec<super::standings::Standing>>,
    /// The host asked for a new game on this table (once this one is over).
    rematch: bool,
    /// The host's debug panel.
    debug: debug::Panel,
    /// Each person's program preview while programming, and what it was rehearsed from.
    previews: Vec<Option<Previewed>>,
}

/// A seat's program preview (`game::preview`), with what it was rehearsed from: it is
/// rehearsed again when the program, the rules or the robots change.
struct Previewed {
    program: [Option<Card>; REGISTERS],
    generation: u64,
    robots: Vec<Robot>,
    poses: Vec<Pose>,
}

/// The robots' standing frame as last serialized, and what it was made of.
struct Standing {
    turn: u32,
    generation: u64,
    robots: Vec<Robot>,
    frame: Rc<RawValue>,
}

type Shared = Rc<RefCell<Table>>;

/// Runs a table to the end of the game, then keeps serving its final state until the server
/// shuts down. `ready` gets the table's public description, or why it could not start.
pub(super) fn run(
    launch: Launch,
    saver: Arc<Saver>,
    me: Sender<Command>,
    rx: Receiver<Command>,
    ready: SyncSender<std::result::Result<Arc<TableInfo>, String>>,
) {
    super::yield_to_the_network();
    let (mut m, hot, kept) = match start(&launch) {
        Ok(started) => started,
        Err(e) => {
            let _ = ready.send(Err(e.to_string()));
            return;
        }
    };
    let info = Arc::new(TableInfo::new(
        launch.id.clone(),
        title(&m, &launch.extra),
        m.setup.seats.iter().map(|s| s.name.clone()).collect(),
        m.setup
            .seats
            .iter()
            .map(|s| s.driver == Driver::Human)
            .collect(),
        launch.tokens.clone(),
    ));
    let journal = Journal::new(&launch.save, launch.resume.as_ref());
    // The log's journal goes on where the save counted it only in the file it was read from.
    let log_counted = kept
        .as_ref()
        .and_then(|k| k.log.as_ref())
        .filter(|l| {
            l.file
                == log_path(&launch.save)
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
        })
        .filter(|_| (launch.resume.as_ref()).is_some_and(|r| journal::continues(&launch.save, r)))
        .map(|l| (l.stages as usize, l.bytes));
    let log = Journal::at(log_path(&launch.save), log_counted);
    let table = Rc::new(RefCell::new(Table {
        seats: m
            .setup
            .seats
            .iter()
            .map(|s| SeatState {
                name: s.name.clone(),
                player: None,
                person: s.driver == Driver::Human,
                taken: false,
                connections: 0,
                absent_since: None,
                quiet: BTreeMap::new(),
            })
            .collect(),
        info: info.clone(),
        rx,
        conns: BTreeMap::new(),
        settings: launch.settings,
        stand: Stand::Waiting,
        desks: vec![None; m.setup.seats.len()],
        timer: None,
        question: None,
        next_question: 1,
        robots: m.engine.state().robots.clone(),
        turn: m.engine.state().turn,
        generation: 1,
        board: m.engine.board(),
        board_svg: crate::pictures::html::board_svg(&m.engine),
        sentences: m.engine.rules().sentences.clone(),
        option_texts: option_texts(&m.engine),
        public_vars: m.engine.rules().public_vars(),
        outcome: None,
        log: Vec::new(),
        run: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64),
        bots: m.setup.bot_policy(),
        started: false,
        closed: false,
        save_failure: None,
        standing: None,
        reload_error: None,
        saving: Saving {
            saver: saver.clone(),
            path: launch.save.clone(),
            me: me.clone(),
            game: None,
            handed: journal.turns(),
            logged: log.turns(),
            journal: Arc::new(Mutex::new(Unjournaled {
                journal,
                turns: Vec::new(),
                log,
                stages: Vec::new(),
            })),
        },
        resumed_desks: Vec::new(),
        resumed_at: None,
        chat: Chat::default(),
        standings: None,
        rematch: false,
        previews: Vec::new(),
        debug: Default::default(),
    }));
    if let Some(kept) = kept {
        table.borrow_mut().resume(kept);
    }
    // A save exists before the table's links are given out: they work after a crash.
    table.borrow_mut().stage_saved(&m, &launch.extra);
    table.borrow().settle();
    if ready.send(Ok(info)).is_err() {
        return;
    }
    m.engine
        .set_chooser(Box::new(TableChooser::new(table.clone())));
    let mut seats = TableSeats {
        bots: Bots::new(m.setup.seats.iter().map(|s| s.strength)),
        table: table.clone(),
        hot,
    };
    let mut launch = launch;
    loop {
        if let Err(e) = play(&mut m, &mut seats, &launch, &saver, &me) {
            tracing::error!("table {}: {e}", launch.id);
            let others = match e {
                Error::Script(_) => {
                    "the game stopped: a rule script failed (the host has the error)"
                }
                _ => "the game stopped (the host has the reason)",
            };
            let mut t = table.borrow_mut();
            t.stand = Stand::Stopped {
                host: format!(
                    "✗ {e}\n  the game stopped: fix it, then `rally serve --resume {}` goes on from the last save",
                    launch.save.display()
                ),
                others: others.into(),
            };
            t.broadcast();
        }
        // The game is over (or stopped): keep answering until the server shuts down, or
        // until the host asks for a rematch.
        loop {
            let mut t = table.borrow_mut();
            if t.closed {
                return;
            }
            if std::mem::take(&mut t.rematch) {
                drop(t);
                match rematch(&mut launch, &m, &table) {
                    Ok((next, hot)) => {
                        m = next;
                        m.engine
                            .set_chooser(Box::new(TableChooser::new(table.clone())));
                        seats.bots = Bots::new(m.setup.seats.iter().map(|s| s.strength));
                        seats.hot = hot;
                        break;
                    }
                    Err(e) => {
                        let text = format!("✗ the rematch could not start: {e}");
                        let notice = json!({"type": "notice", "level": "error", "text": text});
                        table.borrow_mut().send_host(&notice.to_string());
                        continue;
                    }
                }
            }
            t.pump(None);
        }
    }
}

/// A new game of the same game file on this table, after one is over: the same seats,
/// players and links; it starts at once (the people are seated). The finished game's
/// replay stays on disk until the new game's replaces it.
fn rematch(launch: &mut Launch, over: &Game, table: &Shared) -> Result<(Game, Option<HotReload>)> {
    launch.game = over.setup.path.clone();
    launch.resume = None;
    launch.people = Some(table.borrow().seats.iter().map(|s| s.person).collect());
    let (m, hot, _) = start(launch)?;
    let mut t = table.borrow_mut();
    t.stand = Stand::Waiting;
    t.started = true;
    t.desks = vec![None; m.setup.seats.len()];
    t.timer = None;
    t.question = None;
    t.robots = m.engine.state().robots.clone();
    t.turn = m.engine.state().turn;
    t.board = m.engine.board();
    t.board_svg = crate::pictures::html::board_svg(&m.engine);
    t.sentences = m.engine.rules().sentences.clone();
    t.public_vars = m.engine.rules().public_vars();
    t.bots = m.setup.bot_policy();
    t.outcome = None;
    t.standings = None;
    t.standing = None;
    t.log.clear();
    t.run += 1;
    t.resumed_desks.clear();
    t.resumed_at = None;
    t.info.set_replay(None);
    let journal = Journal::new(&launch.save, None);
    t.saving.handed = journal.turns();
    t.saving.logged = 0;
    t.saving.journal = Arc::new(Mutex::new(Unjournaled {
        journal,
        turns: Vec::new(),
        log: Journal::at(log_path(&launch.save), None),
        stages: Vec::new(),
    }));
    t.stage_saved(&m, &launch.extra);
    // Every page starts the new game afresh (a new run: its log starts again).
    let welcome = t.welcome();
    t.send_all(&welcome);
    t.broadcast();
    Ok((m, hot))
}

/// The game, from its file or its save, the reloader for its rules, and what the save kept
/// of the table.
fn start(launch: &Launch) -> Result<(Game, Option<HotReload>, Option<Kept>)> {
    let game_path = match &launch.resume {
        Some(save) => save.game.clone(),
        None => launch.game.clone(),
    };
    let mut setup = Setup::load(&game_path)?;
    let kept = match &launch.resume {
        Some(save) => kept(save, setup.seats.len())?,
        None => None,
    };
    let people = match &kept {
        Some(k) => Some(k.seats.iter().map(|s| s.person).collect()),
        None => launch.people.clone(),
    };
    if let Some(people) = &people {
        for (seat, &person) in setup.seats.iter_mut().zip(people) {
            seat.driver = if person { Driver::Human } else { Driver::Bot };
        }
    }
    let choices = setup.choices(&launch.extra);
    let common = crate::script::RuleFolders {
        extra_variants: Vec::new(),
        ..launch.common.clone()
    };
    let rules = common.rules(Some(&game_path), choices.clone())?;
    let m = match &launch.resume {
        Some(save) => {
            if let Some(changed) = save.rules_changed(&rules) {
                tracing::warn!("table {}: {changed}", launch.id);
            }
            Game::resume(setup, rules, save.clone())?
        }
        None => Game::start(setup, rules)?,
    };
    let hot = if launch.reload {
        let sources = crate::script::Sources {
            project: common.project(Some(&game_path)),
            choices,
        };
        match HotReload::new(sources, &WatchOptions::default()) {
            Ok(hot) => Some(hot),
            Err(e) => {
                tracing::warn!("hot reload is off for table {}: {e}", launch.id);
                None
            }
        }
    } else {
        None
    };
    Ok((m, hot, kept))
}

/// The table's part of a save, checked: one seat per robot, settings in range.
fn kept(save: &Save, robots: usize) -> Result<Option<Kept>> {
    let Some(value) = &save.table else {
        return Ok(None);
    };
    let mut kept: Kept = serde_json::from_value(value.clone())
        .map_err(|e| save.error("/table", format!("not a table's part of a save: {e}")))?;
    if kept.seats.len() != robots {
        return Err(save.error(
            "/table/seats",
            format!("{} seats for {robots} robots", kept.seats.len()),
        ));
    }
    if !kept.desks.is_empty() && kept.desks.len() != robots {
        return Err(save.error(
            "/table/desks",
            format!("{} desks for {robots} robots", kept.desks.len()),
        ));
    }
    for (i, seat) in kept.seats.iter().enumerate() {
        if let Some(Err(e)) = seat.name.as_deref().map(super::lobby::name) {
            return Err(save.error(&format!("/table/seats/{i}/name"), e));
        }
    }
    for (i, line) in kept.chat.iter().enumerate() {
        if let Err(e) = chat::line(&line.text).and(super::lobby::words(
            &line.from,
            super::lobby::MAX_NAME,
            "a chat line's sender",
        )) {
            return Err(save.error(&format!("/table/chat/{i}"), e));
        }
    }
    let s = kept.settings;
    if [s.bot_after, s.choice_timeout, s.timer]
        .iter()
        .any(|&v| v > MAX_SECONDS)
        || s.choice_timeout == 0
    {
        return Err(save.error(
            "/table/settings",
            format!("settings out of range: 0 to {MAX_SECONDS} seconds, choice_timeout at least 1"),
        ));
    }
    if let (Some(log), Some(origin)) = (&kept.log, &save.origin) {
        let lines = journal::Lines {
            file: &log.file,
            count: log.stages,
            bytes: log.bytes,
            record: "a stage of the turn log",
            records: "stages of the turn log",
        };
        kept.stages = journal::read_lines(&origin.path, &lines, |m| save.error("/table/log", m))?;
    }
    Ok(Some(kept))
}

/// What each option card of the rules does, by name: its script's `describe`, without the
/// note for script writers naming its questions ("(question `brakes`)").
fn option_texts(engine: &Engine) -> BTreeMap<String, String> {
    engine
        .rules()
        .options
        .iter()
        .map(|o| {
            let text = match o.describe.find(" (question") {
                Some(i) => format!(
                    "{}{}",
                    &o.describe[..i],
                    &o.describe[i..]
                        .rsplit_once(')')
                        .map_or("", |(_, rest)| rest)
                ),
                None => o.describe.clone(),
            };
            (o.name.clone(), text)
        })
        .collect()
}

/// `practice on Practice Floor`, with the variants added on top of the game file's:
/// `practice on Practice Floor + ice-rink`.
fn title(m: &Game, extra: &[String]) -> String {
    let stem = m
        .setup
        .path
        .file_stem()
        .map_or("game".into(), |s| s.to_string_lossy().to_string());
    let added = extra.iter().map(|v| format!(" + {v}")).collect::<String>();
    format!("{stem} on {}{added}", m.engine.board().name)
}

/// The turn loop: wait for the players, then advance stage by stage, telling every page
/// what happened and saving after each stage, until the game is over.
fn play(
    m: &mut Game,
    seats: &mut TableSeats,
    launch: &Launch,
    saver: &Saver,
    me: &Sender<Command>,
) -> Result<()> {
    let table = seats.table.clone();
    // Wait for every person to take a seat, or for the host to start.
    loop {
        let mut t = table.borrow_mut();
        if t.closed {
            return Ok(());
        }
        // A table of bots alone waits for the host: it would be over before anyone looked.
        let people: Vec<&SeatState> = t.seats.iter().filter(|s| s.person).collect();
        let seated = !people.is_empty() && people.iter().all(|s| s.connections > 0);
        if t.started || seated {
            t.started = true;
            t.save();
            break;
        }
        t.pump(None);
    }
    while !m.is_over() {
        if table.borrow().closed {
            return Ok(());
        }
        seats.reload(&mut m.engine);
        debug::boundary(m, seats, &launch.extra);
        let turn = m.engine.state().turn;
        {
            let mut t = table.borrow_mut();
            t.stand = Stand::Resolving;
            t.turn = turn;
        }
        let stage = match m.advance(seats) {
            Ok(stage) => stage,
            Err(_) if table.borrow().closed => return Ok(()),
            Err(Error::Script(message)) if seats.hot.is_some() => {
                seats.pause(&mut m.engine, message);
                continue;
            }
            Err(e) => return Err(e),
        };
        {
            let mut t = table.borrow_mut();
            let now = m.engine.state().robots.clone();
            let stage = t.debug.untold(&stage);
            let message = t.stage_message(turn, &stage, &now);
            t.robots = now;
            t.turn = m.engine.state().turn;
            t.send_all(&message);
            // The turn's desks are played: the next deal opens new ones.
            if matches!(*stage, Stage::EndOfTurn { .. }) {
                t.desks.iter_mut().for_each(|d| *d = None);
            }
        }
        // After every stage: a newer save replaces one still waiting in the saver's queue,
        // so the file is at most the stage being written behind.
        table.borrow_mut().stage_saved(m, &launch.extra);
    }
    // The replay is written by the saver and its page made when first asked for: the end
    // of a game costs its table little, beside other tables still playing.
    let replay = Arc::new(m.replay(&launch.extra));
    let written = replay.clone();
    save_later(saver, &launch.replay_path(), me, move |path| {
        save::write_json(path, &*written)
    });
    let outcome = m.progress.outcome.as_ref().map(|o| o.text());
    let page = {
        let t = table.borrow();
        ReplayPage::new(
            (*t.board).clone(),
            t.board_svg.clone(),
            t.sentences.clone(),
            format!("{} — replay", t.info.title),
            outcome.clone().unwrap_or_default(),
            replay,
        )
    };
    let mut t = table.borrow_mut();
    t.info.set_replay(Some(Arc::new(page)));
    t.outcome = outcome;
    let mut standings = super::standings::of(&m.engine.state().robots, &m.history);
    for s in &mut standings {
        s.player = t
            .seats
            .iter()
            .find(|seat| seat.name == s.robot)
            .and_then(|seat| seat.player.clone());
    }
    t.standings = Some(standings);
    // The board marks the winner: the standing frame is made again.
    t.standing = None;
    t.stand = Stand::Over;
    t.broadcast();
    Ok(())
}

/// Has the saver write `path` with `write`; the table hears how it went (`Command::Saved`).
fn save_later(
    saver: &Saver,
    path: &std::path::Path,
    me: &Sender<Command>,
    write: impl FnOnce(&std::path::Path) -> Result<()> + Send + 'static,
) {
    let (file, me) = (path.to_path_buf(), me.clone());
    saver.save(
        path,
        Box::new(move || {
            let saved = write(&file).map_err(|e| e.to_string());
            let _ = me.send(Command::Saved(saved));
        }),
    );
}

impl Table {
    /// The desks of `hands`, each with what `earlier` had placed on it if it was for the
    /// same hand (`saved`: `earlier` comes from a save, and a desk it cannot give back is
    /// worth a warning); programming is open.
    fn open_desks(
        &mut self,
        state: &State,
        hands: &[Hand],
        earlier: Vec<Option<KeptDesk>>,
        saved: bool,
    ) {
        self.robots = state.robots.clone();
        self.turn = state.turn;
        self.desks = vec![None; state.robots.len()];
        for hand in hands {
            let mut desk = Desk::new(hand.clone(), &state.robots[hand.robot].program);
            if let Some(kept) = earlier.get(hand.robot).cloned().flatten() {
                let damage = state.robots[hand.robot].damage;
                if let Err(e) = restore(&mut desk, &kept, damage) {
                    if saved {
                        tracing::warn!("table {}: a saved desk is not restored: {e}", self.info.id);
                    }
                }
            }
            self.desks[hand.robot] = Some(desk);
        }
        self.stand = Stand::Programming;
        self.timer = None;
        self.save();
    }

    /// The game as of its last stage (`m` between two stages), saved with the table.
    fn stage_saved(&mut self, m: &Game, extra: &[String]) {
        let s = &mut self.saving;
        let finished = save::finished_turns(m);
        if finished > s.handed || self.log.len() > s.logged {
            let mut pending = s.journal.lock().expect("the saver does not panic");
            pending
                .turns
                .extend_from_slice(&m.history[s.handed.min(finished)..finished]);
            pending.stages.extend_from_slice(&self.log[s.logged..]);
            s.handed = finished;
            s.logged = self.log.len();
        }
        s.game = Some(Arc::new(m.save_after(extra, finished)));
        self.save();
    }

    /// Has the saver write the game as of its last stage with the table as it is now
    /// (seats, settings, the desks of a turn being programmed): after every stage and every
    /// change at the table. The saver replaces a save still waiting, so this is cheap.
    fn save(&mut self) {
        let Some(game) = self.saving.game.clone() else {
            return;
        };
        let mut kept = self.kept();
        let s = &self.saving;
        let (journal, finished, logged) = (s.journal.clone(), s.handed, s.logged);
        save_later(&s.saver, &s.path, &s.me, move |path| {
            let counted = {
                let mut pending = journal.lock().expect("the saver does not panic");
                let pending = &mut *pending;
                let turns = std::mem::take(&mut pending.turns);
                if let Err(e) = pending.journal.append(&turns) {
                    pending.turns = turns;
                    return Err(e);
                }
                let stages = std::mem::take(&mut pending.stages);
                if let Err(e) = pending.log.append(&stages) {
                    pending.stages = stages;
                    return Err(e);
                }
                kept.log = Some(KeptLog {
                    file: pending.log.file_name(),
                    stages: logged as u64,
                    bytes: pending.log.end(logged),
                });
                pending.journal.counted(finished)
            };
            save::write_json(
                path,
                &TableSave {
                    game: &game,
                    journal: Some(counted),
                    table: kept,
                },
            )
        });
    }

    /// Waits until the last save asked for is on disk (before the table waits for a person).
    fn settle(&self) {
        self.saving.saver.settle(&self.saving.path);
    }

    /// The table's part of its save.
    fn kept(&self) -> Kept {
        let programming = self.stand == Stand::Programming;
        Kept {
            started: self.started,
            settings: self.settings,
            seats: self
                .seats
                .iter()
                .map(|s| KeptSeat {
                    person: s.person,
                    taken: s.taken,
                    quiet: s.quiet.clone(),
                    name: s.player.clone(),
                })
                .collect(),
            chat: self.chat.lines(),
            desks: if programming {
                self.desks
                    .iter()
                    .map(|d| d.as_ref().map(KeptDesk::from))
                    .collect()
            } else {
                Vec::new()
            },
            log: None,
            stages: Vec::new(),
        }
    }

    /// The table as its save left it: the seats people had taken are theirs (away until
    /// they open their link again), the host's settings, the desks for the deal to come.
    fn resume(&mut self, kept: Kept) {
        let now = Instant::now();
        self.started = kept.started;
        self.settings = kept.settings;
        for (seat, k) in self.seats.iter_mut().zip(&kept.seats) {
            seat.person = k.person;
            seat.taken = k.taken;
            seat.quiet = k.quiet.clone();
            seat.player = k.name.clone().filter(|_| k.taken);
            seat.absent_since = k.taken.then_some(now);
        }
        self.resumed_desks = kept.desks;
        self.chat = Chat::from_lines(kept.chat);
        self.log = kept.stages;
        self.resumed_at = Some(self.turn);
    }

    /// The message every page gets after `stage` of turn `turn`: the robots go from where
    /// the pages last saw them to `now`, and nothing face down is in it.
    fn stage_message(&mut self, turn: u32, stage: &Stage, now: &[Robot]) -> String {
        // Locked when the turn was programmed: face up all turn (the seats show them).
        let locked: Vec<Card> = self
            .desks
            .iter()
            .flatten()
            .flat_map(|d| (0..REGISTERS).filter_map(|i| d.registers[i].filter(|_| d.locked[i])))
            .collect();
        let revealed = match stage {
            Stage::Programmed { .. } => 0,
            Stage::Register { register, .. } => *register as usize,
            Stage::EndOfTurn { .. } => REGISTERS,
        };
        let secrets = Secrets::new(now, revealed, &locked);
        let telling = frames::Telling {
            public: &self.public_vars,
            sentences: &self.sentences,
        };
        let seq = self.log.len() as u64 + 1;
        let (message, entry) = frames::stage(
            &self.board,
            &telling,
            (seq, turn),
            stage,
            &self.robots,
            now,
            &secrets,
        );
        self.log.push(entry);
        message
    }

    /// The `log` frame: every stage of the game so far as the pages were told it (the same
    /// message for every role: no card in it was face down to anyone when it was sent).
    fn log_frame(&self) -> String {
        let mut frame = String::from(r#"{"type":"log","stages":["#);
        for (i, entry) in self.log.iter().enumerate() {
            if i > 0 {
                frame.push(',');
            }
            frame.push_str(entry.get());
        }
        frame.push_str("]}");
        frame
    }

    /// Handles the commands that arrive within `wait` (`None`: until one arrives), then
    /// every command already queued behind it.
    fn pump(&mut self, wait: Option<Duration>) {
        let first = match wait {
            None => self.rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(w) => self.rx.recv_timeout(w),
        };
        match first {
            Ok(command) => self.handle(command),
            Err(RecvTimeoutError::Timeout) => return,
            Err(RecvTimeoutError::Disconnected) => {
                self.closed = true;
                return;
            }
        }
        while let Ok(command) = self.rx.try_recv() {
            self.handle(command);
        }
    }

    fn handle(&mut self, command: Command) {
        match command {
            Command::Connect { conn, role, out } => {
                if let Role::Seat(r) = role {
                    let seat = &mut self.seats[r];
                    seat.connections += 1;
                    seat.absent_since = None;
                    if !std::mem::replace(&mut seat.taken, true) {
                        self.save();
                    }
                }
                let welcome = self.welcome();
                self.conns.insert(
                    conn,
                    Connection {
                        role,
                        out,
                        shown: Arc::from(""),
                    },
                );
                self.send(conn, welcome);
                if !self.log.is_empty() {
                    let log = self.log_frame();
                    self.send(conn, log);
                }
                let said = self.chat.lines();
                if !said.is_empty() {
                    self.send(conn, Chat::frame(&said, true));
                }
                if self.resumed_at == Some(self.turn) {
                    let text = format!(
                        "the table came back from its save in turn {}: hands, programs and seats as they were",
                        self.turn
                    );
                    let notice = json!({"type": "notice", "level": "info", "text": text});
                    self.send(conn, notice.to_string());
                }
                self.broadcast();
            }
            Command::Disconnect { conn } => {
                if let Some(Role::Seat(r)) = self.conns.remove(&conn).map(|c| c.role) {
                    self.left(r);
                }
                self.broadcast();
            }
            Command::Message { conn, message } => {
                let Some(role) = self.conns.get(&conn).map(|c| c.role) else {
                    return;
                };
                match self.act(conn, role, message) {
                    Ok(()) => {
                        self.save();
                        self.broadcast();
                    }
                    Err(e) => self.send(conn, error_frame(&e)),
                }
            }
            Command::Saved(saved) => self.saved(saved),
            Command::Shutdown => self.closed = true,
        }
    }

    /// The first frame a page gets: the table, its board and this run of it.
    fn welcome(&self) -> String {
        json!({
            "type": "welcome",
            "table": self.info.id,
            "title": self.info.title,
            "board": self.board_svg,
            "run": self.run,
        })
        .to_string()
    }

    /// Tells the host when saving starts failing and when it works again (not at every
    /// stage that fails the same way).
    fn saved(&mut self, saved: std::result::Result<(), String>) {
        if saved.as_ref().err() == self.save_failure.as_ref() {
            return;
        }
        let (level, text) = match &saved {
            Err(e) => (
                "error",
                format!("✗ the game could not be saved: {e}\n  the table plays on and tries again after the next stage"),
            ),
            Ok(()) => ("info", "the game is saved again".to_string()),
        };
        self.save_failure = saved.err();
        let notice = json!({"type": "notice", "level": level, "text": text}).to_string();
        self.send_host(&notice);
    }

    fn left(&mut self, robot: RobotId) {
        let seat = &mut self.seats[robot];
        seat.connections = seat.connections.saturating_sub(1);
        if seat.connections == 0 {
            seat.absent_since = Some(Instant::now());
        }
    }

    /// One message from a connection with `role`: allowed now, or the sentence saying why not.
    fn act(&mut self, conn: u64, role: Role, message: Incoming) -> std::result::Result<(), String> {
        if message.is_host_action() && role != Role::Host {
            return Err("only the host can do that (open the host link)".into());
        }
        let robot = match role {
            Role::Seat(r) => Some(r),
            _ => None,
        };
        match message {
            Incoming::Sit { seat, name } => self.sit(conn, role, seat, name.0),
            Incoming::Name { name } => {
                let robot = robot.ok_or("only a seat's player gives a name (take a seat first)")?;
                self.seats[robot].player = Some(name.0);
                Ok(())
            }
            Incoming::Rename { seat, name } => {
                let seat = self.seat_index(seat)?;
                if !self.seats[seat].taken {
                    return Err(format!("nobody sits at {}'s seat", self.seats[seat].name));
                }
                self.seats[seat].player = Some(name.0);
                Ok(())
            }
            Incoming::Kick { seat } => self.kick(seat),
            Incoming::MoveSeat { seat, to } => self.swap(seat, to),
            Incoming::Chat { text } => self.say(role, text.0),
            Incoming::Rematch {} => {
                if self.stand != Stand::Over {
                    return Err("a rematch starts once the game is over".into());
                }
                self.rematch = true;
                Ok(())
            }
            debug @ (Incoming::Pause {}
            | Incoming::Resume {}
            | Incoming::Undo {}
            | Incoming::Rewind { .. }
            | Incoming::Edit { .. }
            | Incoming::OptionCard { .. }
            | Incoming::ProgramCard { .. }) => self.debug(debug),
            Incoming::Start {} => {
                if self.started {
                    return Err("the game has already started".into());
                }
                self.started = true;
                Ok(())
            }
            Incoming::Settings {
                bot_after,
                choice_timeout,
                timer,
            } => {
                for (name, value) in [
                    ("bot_after", bot_after),
                    ("choice_timeout", choice_timeout),
                    ("timer", timer),
                ] {
                    if value.is_some_and(|v| v > MAX_SECONDS) {
                        return Err(format!("{name}: at most {MAX_SECONDS} seconds"));
                    }
                }
                if choice_timeout == Some(0) {
                    return Err("choice_timeout: at least 1 second".into());
                }
                let s = &mut self.settings;
                s.bot_after = bot_after.unwrap_or(s.bot_after);
                s.choice_timeout = choice_timeout.unwrap_or(s.choice_timeout);
                s.timer = timer.unwrap_or(s.timer);
                if s.timer == 0 {
                    self.timer = None;
                }
                Ok(())
            }
            Incoming::Answer {
                question,
                choice,
                quiet,
            } => {
                let Some(robot) = robot else {
                    return Err("only a seat answers questions".into());
                };
                let pending = self
                    .question
                    .as_mut()
                    .filter(|p| p.robot == robot && p.view.id == question && p.answer.is_none())
                    .ok_or("there is no such question for you now")?;
                if !pending.view.choices.contains(&choice) {
                    return Err(format!(
                        "`{choice}` is not an answer: choose one of {}",
                        pending.view.choices.join(", ")
                    ));
                }
                if let Some(quiet) = quiet {
                    if !pending.view.optional || choice != pending.view.default {
                        return Err(
                            "only an optional question is declined for a while, with its default"
                                .into(),
                        );
                    }
                    let hush = match quiet {
                        Quiet::Turn => Hush::Turn(pending.turn),
                        Quiet::Game => Hush::Game,
                    };
                    let key = pending.view.key.clone();
                    pending.answer = Some(choice);
                    self.seats[robot].quiet.insert(key, hush);
                    return Ok(());
                }
                pending.answer = Some(choice);
                Ok(())
            }
            Incoming::Shown { question } => {
                let Some(robot) = robot else {
                    return Err("only a seat answers questions".into());
                };
                let timeout = Duration::from_secs(self.settings.choice_timeout);
                let pending = self
                    .question
                    .as_mut()
                    .filter(|p| p.robot == robot && p.view.id == question && p.answer.is_none())
                    .ok_or("there is no such question for you now")?;
                // Once: a page cannot keep a question open for ever.
                if !std::mem::replace(&mut pending.shown, true) {
                    pending.deadline = Instant::now() + timeout;
                }
                Ok(())
            }
            Incoming::Place { .. }
            | Incoming::Clear { .. }
            | Incoming::Move { .. }
            | Incoming::PowerDown { .. }
            | Incoming::Ready {}
            | Incoming::Unready {} => {
                let Some(robot) = robot else {
                    return Err("only a seat programs (this link watches)".into());
                };
                if self.stand != Stand::Programming {
                    if message == (Incoming::Unready {}) && self.stand == Stand::Resolving {
                        return Err("everyone was ready: the turn has started, Ready stays".into());
                    }
                    return Err("this is not the time to program: wait for the next turn".into());
                }
                let damage = self.robots[robot].damage;
                let desk = self.desks[robot]
                    .as_mut()
                    .ok_or("your robot does not program this turn")?;
                match message {
                    Incoming::Place { register, card } => desk.place(register, card.0),
                    Incoming::Clear { register } => desk.clear(register),
                    Incoming::Move { from, to } => desk.move_card(from, to),
                    Incoming::PowerDown { on } => desk.set_power_down(on, damage),
                    // The programming phase ends as soon as the last seat is ready (the
                    // stand is no longer `Programming`, refused above): an un-Ready that
                    // comes in the same batch of commands is taken before the table looks.
                    Incoming::Unready {} => desk.set_unready(),
                    _ => desk.set_ready(),
                }
            }
        }
    }

    /// Whether a bot decides for `robot` now: a seat nobody has taken (a bot's, or a
    /// person's the game started without), or one whose player has been away longer than
    /// the host allows. A seat a person took stays theirs while they are away: a reload or
    /// a closed tab does not give it back to the bot.
    fn bot_decides(&self, robot: RobotId) -> bool {
        let s = &self.seats[robot];
        if s.connections > 0 {
            return false;
        }
        // While the host pauses, an absent player's time stands still.
        !s.taken
            || (!self.debug.pausing()
                && self.settings.bot_after > 0
                && s.absent_since
                    .is_some_and(|t| t.elapsed() >= Duration::from_secs(self.settings.bot_after)))
    }

    /// When an absent player's seat passes to a bot, if it will.
    fn bot_deadline(&self, robot: RobotId) -> Option<Instant> {
        let s = &self.seats[robot];
        if !s.taken || s.connections > 0 || self.settings.bot_after == 0 || self.debug.pausing() {
            return None;
        }
        s.absent_since
            .map(|t| t + Duration::from_secs(self.settings.bot_after))
    }

    fn send(&mut self, conn: u64, frame: String) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        if c.out.try_send(frame).is_err() {
            // Full or closed: the browser is gone or not reading; it gets everything again
            // when it reconnects.
            let role = c.role;
            self.conns.remove(&conn);
            if let Role::Seat(r) = role {
                self.left(r);
            }
        }
    }

    /// The same frame to every connection.
    fn send_all(&mut self, frame: &str) {
        let conns: Vec<u64> = self.conns.keys().copied().collect();
        for conn in conns {
            self.send(conn, frame.to_string());
        }
    }

    /// A frame for the host pages only.
    fn send_host(&mut self, frame: &str) {
        let hosts: Vec<u64> = self
            .conns
            .iter()
            .filter(|(_, c)| c.role == Role::Host)
            .map(|(c, _)| *c)
            .collect();
        for conn in hosts {
            self.send(conn, frame.to_string());
        }
    }

    /// Every connection's view of the table now. A view depends on the connection's role
    /// alone, so it is built once per role and shared (a thousand spectators cost one).
    fn broadcast(&mut self) {
        let board = self.standing();
        let conns: Vec<(u64, Role)> = self.conns.iter().map(|(&id, c)| (id, c.role)).collect();
        let mut built: Vec<(Role, Arc<str>)> = Vec::new();
        for (conn, role) in conns {
            let frame = match built.iter().find(|(r, _)| *r == role) {
                Some((_, frame)) => frame.clone(),
                None => {
                    let frame: Arc<str> = serde_json::to_string(&self.view(role, &board))
                        .expect("views serialize")
                        .into();
                    built.push((role, frame.clone()));
                    frame
                }
            };
            let Some(c) = self.conns.get_mut(&conn) else {
                continue;
            };
            if *c.shown != *frame {
                c.shown = frame.clone();
                self.send(conn, frame.to_string());
            }
        }
    }

    /// The robots as they stand, serialized for the state frames: again only when they
    /// changed (at stage boundaries), not at every card placed.
    fn standing(&mut self) -> Rc<RawValue> {
        let current = self.standing.as_ref().filter(|s| {
            (s.turn, s.generation) == (self.turn, self.generation) && s.robots == self.robots
        });
        if let Some(s) = current {
            return s.frame.clone();
        }
        let winner = self.standings.iter().flatten().find(|s| s.winner);
        let frame: Rc<RawValue> = frames::standing(
            &self.board,
            self.turn,
            &self.robots,
            &self.public_vars,
            winner.map(|w| w.robot.as_str()),
        )
        .into();
        self.standing = Some(Standing {
            turn: self.turn,
            generation: self.generation,
            robots: self.robots.clone(),
            frame: frame.clone(),
        });
        frame
    }

    fn view<'a>(&self, role: Role, frame: &'a RawValue) -> View<'a> {
        let now = Instant::now();
        let robot = match role {
            Role::Seat(r) => Some(r),
            _ => None,
        };
        let seats = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let r = &self.robots[i];
                let desk = self.desks[i].as_ref();
                let status = match (&self.stand, desk) {
                    (Stand::Waiting, _) if s.person && s.connections == 0 => "waiting",
                    _ if self.question.as_ref().is_some_and(|q| q.robot == i) => "deciding",
                    _ if r.destroyed && r.lives <= 0 => "out",
                    (Stand::Programming, Some(d)) if d.ready => "ready",
                    (Stand::Programming, Some(_)) => "programming",
                    _ => "",
                };
                let locked = (0..REGISTERS)
                    .map(|j| {
                        let locked_card = desk
                            .map(|d| d.locked[j].then_some(d.registers[j]).flatten())
                            .unwrap_or_else(|| {
                                deal::is_locked(r, j)
                                    .then(|| r.program.get(j).copied().flatten())
                                    .flatten()
                            });
                        locked_card.map(|c| c.to_string())
                    })
                    .collect();
                SeatView {
                    name: s.name.clone(),
                    player: s.player.clone(),
                    free: !s.taken && s.connections == 0,
                    color: crate::pictures::svg::robot_color(i, r),
                    driver: if self.bot_decides(i) { "bot" } else { "person" },
                    connected: s.connections > 0 || !(s.person || s.taken),
                    status,
                    locked,
                    options: r
                        .options
                        .iter()
                        .map(|o| match o.uses_left {
                            Some(n) => format!("{} ({n} left)", o.name),
                            None => o.name.clone(),
                        })
                        .collect(),
                    option_cards: r
                        .options
                        .iter()
                        .map(|o| OptionCard {
                            name: o.name.clone(),
                            title: crate::pictures::words::option_words(&o.name),
                            text: self.option_texts.get(&o.name).cloned().unwrap_or_default(),
                            uses_left: o.uses_left,
                        })
                        .collect(),
                }
            })
            .collect();
        // The desk while programming, and while its player answers a question mid-turn
        // (the program stays in view, read only, for questions about it).
        let asked = |r: RobotId| self.question.as_ref().is_some_and(|q| q.robot == r);
        let desk = robot.and_then(|r| {
            let d = self.desks[r].as_ref()?;
            (self.stand == Stand::Programming || asked(r)).then(|| DeskView {
                hand: d.hand.cards.iter().map(Card::to_string).collect(),
                registers: d
                    .registers
                    .iter()
                    .map(|c| c.map(|c| c.to_string()))
                    .collect(),
                locked: d.locked.to_vec(),
                power_down: d.power_down,
                can_power_down: self.robots[r].damage > 0,
                ready: d.ready,
                complete: d.complete(),
                preview: self
                    .previews
                    .get(r)
                    .and_then(Option::as_ref)
                    .map_or_else(Vec::new, |p| p.poses.clone()),
            })
        });
        let question = self
            .question
            .as_ref()
            .filter(|q| Some(q.robot) == robot && q.answer.is_none())
            .map(|q| QuestionView {
                timeout_ms: q.deadline.saturating_duration_since(now).as_millis() as u64,
                ..q.view.clone()
            });
        let reload_error = self.reload_error.clone().filter(|_| role == Role::Host);
        let paused = match &self.stand {
            Stand::Paused(message) if role == Role::Host => Some(message.clone()),
            Stand::Paused(_) => Some("a rule script failed: the host is fixing it".into()),
            Stand::Stopped { host, .. } if role == Role::Host => Some(host.clone()),
            Stand::Stopped { others, .. } => Some(others.clone()),
            _ if self.debug.paused() => Some("the host paused the table".into()),
            _ => None,
        };
        View {
            kind: "state",
            role: match role {
                Role::Seat(_) => "seat",
                Role::Host => "host",
                Role::Spectator => "spectator",
            },
            seat: robot.map(|r| self.seats[r].name.clone()),
            windows: robot.map(|r| self.seats[r].connections),
            turn: self.turn,
            phase: match (&self.stand, &self.question) {
                _ if self.debug.paused() => "paused",
                (Stand::Waiting, _) => "waiting",
                (Stand::Over, _) => "over",
                (Stand::Paused(_), _) => "paused",
                (Stand::Stopped { .. }, _) => "stopped",
                (_, Some(_)) => "deciding",
                (Stand::Programming, _) => "programming",
                (Stand::Resolving, _) => "resolving",
            },
            rules: self.generation,
            seats,
            desk,
            vars: robot.map(|r| (*self.robots[r].vars).clone()),
            question,
            timer_ms: self
                .timer
                .map(|t| t.saturating_duration_since(now).as_millis() as u64),
            settings: self.settings,
            paused,
            reload_error,
            outcome: self.outcome.clone(),
            standings: self.standings.clone(),
            seat_tokens: (role == Role::Host).then(|| self.info.tokens().seats),
            replay: self
                .outcome
                .is_some()
                // Relative to the table's page, so it works behind a proxy's path prefix.
                .then(|| format!("{}/replay", self.info.id)),
            frame,
            debug: (role == Role::Host).then(|| self.debug.view(&self.robots)),
        }
    }
}

/// The table as the game's [`Seats`]: the programming phase for everyone at once (the
/// decisions around it, power down included, come through [`TableChooser`]).
struct TableSeats {
    table: Shared,
    bots: Bots,
    hot: Option<HotReload>,
}

impl TableSeats {
    /// Picks up saved rule files at a stage boundary and tells the pages.
    fn reload(&mut self, engine: &mut Engine) {
        let Some(reloaded) = self.hot.as_mut().and_then(|h| h.at_boundary(engine)) else {
            return;
        };
        let mut t = self.table.borrow_mut();
        match &reloaded {
            Reloaded::Swapped {
                generation,
                changed,
                ..
            } => {
                t.generation = *generation;
                t.reload_error = None;
                t.board = engine.board();
                t.board_svg = crate::pictures::html::board_svg(engine);
                t.sentences = engine.rules().sentences.clone();
                t.option_texts = option_texts(engine);
                t.public_vars = engine.rules().public_vars();
                let files: Vec<String> = changed
                    .iter()
                    .map(|p| crate::files::display_path(p))
                    .collect();
                let board = json!({"type": "board", "board": t.board_svg}).to_string();
                t.send_all(&board);
                let notice = json!({
                    "type": "notice",
                    "level": "info",
                    // The pages show it once their boards have played every stage sent
                    // before it: the new rules apply from that point on.
                    "text": format!("rules v{generation} from here on ({} changed)", files.join(", ")),
                    "rules": generation,
                    "files": files,
                    // The stages resolved under the old rules: the last one's number.
                    "after": t.log.len(),
                })
                .to_string();
                t.send_all(&notice);
                t.broadcast();
            }
            Reloaded::Failed { .. } => {
                let text = reloaded.to_string();
                let notice = json!({"type": "notice", "level": "error", "text": text}).to_string();
                t.send_host(&notice);
                // It stays on the host page (a notice goes away) until a save that loads.
                t.reload_error = Some(text);
                t.broadcast();
            }
        }
    }

    /// A script failed mid-stage (rolled back): wait until a fixed rule set loads.
    fn pause(&mut self, engine: &mut Engine, message: String) {
        let before = self.table.borrow().generation;
        {
            let mut t = self.table.borrow_mut();
            t.stand = Stand::Paused(format!(
                "✗ {message}\n  paused: save a fixed script to go on"
            ));
            t.broadcast();
        }
        loop {
            self.reload(engine);
            let mut t = self.table.borrow_mut();
            if t.closed || t.generation != before {
                t.stand = Stand::Resolving;
                t.broadcast();
                return;
            }
            t.pump(Some(RELOAD_TICK));
        }
    }

    /// The program a bot gives `desk`'s seat: around the cards its player has placed
    /// already, which stay where they are (a bot stepping in for an absent player finishes
    /// their program, it does not replace it). Returns the open registers' cards in order.
    fn stand_in(&mut self, engine: &mut Engine, desk: &Desk) -> Result<Vec<Card>> {
        let hand = &desk.hand;
        let placed: Vec<usize> = hand
            .open
            .iter()
            .copied()
            .filter(|&i| desk.registers[i].is_some())
            .collect();
        if placed.is_empty() {
            return self.bots.program(engine, hand);
        }
        // The bot plans the registers left, with the placed cards in the robot's program
        // as if locked, from the cards left in the hand.
        let rest = Hand {
            robot: hand.robot,
            cards: hand
                .cards
                .iter()
                .copied()
                .filter(|c| !desk.registers.contains(&Some(*c)))
                .collect(),
            open: hand
                .open
                .iter()
                .copied()
                .filter(|i| !placed.contains(i))
                .collect(),
        };
        let before = {
            let mut state = engine.state_mut();
            let program = &mut state.robots[hand.robot].program;
            let before = program.clone();
            program.resize(REGISTERS, None);
            for &i in &placed {
                program[i] = desk.registers[i];
            }
            before
        };
        let planned = self.bots.program(engine, &rest);
        engine.state_mut().robots[hand.robot].program = before;
        let mut planned = planned?.into_iter();
        Ok(hand
            .open
            .iter()
            .filter_map(|&i| desk.registers[i].or_else(|| planned.next()))
            .collect())
    }

    /// Rehearses the program preview again for every person's desk whose program, rules or
    /// robots changed since its last one; returns whether any preview changed. A script
    /// failing in the rehearsal leaves that seat without a preview (the game itself is
    /// untouched, and will say so if it fails the same way). The messages that arrive while
    /// it rehearses are all handled before the next refresh (`pump` drains the queue), so a
    /// flood of card moves costs one rehearsal per seat and round, not one per message.
    fn refresh_previews(&mut self, engine: &mut Engine) -> bool {
        let stale: Vec<(RobotId, [Option<Card>; REGISTERS])> = {
            let t = self.table.borrow();
            let robots = &engine.state().robots;
            t.desks
                .iter()
                .enumerate()
                .filter(|&(r, _)| !t.bot_decides(r))
                .filter_map(|(r, d)| Some((r, d.as_ref()?.registers)))
                .filter(|(r, program)| {
                    !t.previews
                        .get(*r)
                        .and_then(Option::as_ref)
                        .is_some_and(|p| {
                            p.program == *program
                                && p.generation == t.generation
                                && p.robots == *robots
                        })
                })
                .collect()
        };
        let mut changed = false;
        for (robot, program) in stale {
            let poses = preview::preview(engine, robot, &program).unwrap_or_else(|e| {
                tracing::debug!("no preview for robot {robot}: {e}");
                Vec::new()
            });
            let robots = engine.state().robots.clone();
            let mut t = self.table.borrow_mut();
            let generation = t.generation;
            if t.previews.len() <= robot {
                t.previews.resize_with(robot + 1, || None);
            }
            let slot = &mut t.previews[robot];
            changed |= slot.as_ref().is_none_or(|p| p.poses != poses);
            *slot = Some(Previewed {
                program,
                generation,
                robots,
                poses,
            });
        }
        changed
    }

    /// How long to wait for commands before looking at deadlines and rule files again.
    fn tick(&self, deadline: Option<Instant>) -> Option<Duration> {
        let now = Instant::now();
        let until = deadline.map(|d| d.saturating_duration_since(now));
        match (until, self.hot.is_some()) {
            (Some(u), true) => Some(u.min(RELOAD_TICK)),
            (None, true) => Some(RELOAD_TICK),
            (u, false) => u,
        }
    }
}

impl Seats for TableSeats {
    /// Every seat gets its hand as dealt and can program while the `on_deal` hooks ask
    /// their questions (Recompile's, of its owner only): one player's question does not
    /// keep the others' hands from them.
    fn dealing(&mut self, engine: &mut Engine, hands: &[Hand]) -> Result<()> {
        let mut t = self.table.borrow_mut();
        let resumed = std::mem::take(&mut t.resumed_desks);
        t.open_desks(&engine.state(), hands, resumed, true);
        t.broadcast();
        Ok(())
    }

    /// The programming phase: every seat gets its hand at once; bots program at once;
    /// people place cards until all are ready (or the timer, or a bot taking an absent
    /// player's seat, finishes a program).
    fn hands_dealt(&mut self, engine: &mut Engine, hands: &[Hand]) -> Result<()> {
        {
            let mut t = self.table.borrow_mut();
            // The desks opened at the deal keep what was placed on them, where the hand is
            // still the same (an `on_deal` hook such as Recompile changes only its own).
            let earlier = t
                .desks
                .iter()
                .map(|d| d.as_ref().map(KeptDesk::from))
                .collect();
            t.open_desks(&engine.state(), hands, earlier, false);
        }
        // Every page learns that programming is open (each seat gets its hand) once the bots
        // have programmed, even when no bot has anything to program.
        let mut shown = false;
        loop {
            // Bots program for their seats and for absent players, now.
            let for_bots: Vec<Hand> = {
                let t = self.table.borrow();
                hands
                    .iter()
                    .filter(|h| !t.desks[h.robot].as_ref().is_some_and(|d| d.ready))
                    .filter(|h| t.bot_decides(h.robot))
                    .cloned()
                    .collect()
            };
            for hand in &for_bots {
                let desk = self.table.borrow().desks[hand.robot]
                    .clone()
                    .expect("dealt");
                let program = self.stand_in(engine, &desk)?;
                let mut t = self.table.borrow_mut();
                t.desks[hand.robot]
                    .as_mut()
                    .expect("dealt")
                    .set_program(&program);
            }
            let previewed = self.refresh_previews(engine);
            let mut t = self.table.borrow_mut();
            if !for_bots.is_empty() || !shown || previewed {
                t.broadcast();
                shown = true;
            }
            if t.closed {
                return Err(Error::Other("the server is shutting down".into()));
            }
            let waiting: Vec<RobotId> = t
                .desks
                .iter()
                .enumerate()
                .filter(|(_, d)| d.as_ref().is_some_and(|d| !d.ready))
                .map(|(i, _)| i)
                .collect();
            if waiting.is_empty() {
                break;
            }
            // The classic timer: once all but one are ready, the last has `timer` seconds;
            // it stops when someone takes Ready back.
            if waiting.len() > 1 && t.timer.take().is_some() {
                t.broadcast();
            }
            if t.settings.timer > 0 && waiting.len() == 1 && t.timer.is_none() {
                t.timer = Some(Instant::now() + Duration::from_secs(t.settings.timer));
                t.broadcast();
            }
            // The host's pause stops the timer (`Table::paused_for`).
            if t.timer.is_some_and(|d| Instant::now() >= d) && !t.debug.pausing() {
                for &r in &waiting {
                    t.desks[r].as_mut().expect("dealt").fill_and_ready();
                }
                t.timer = None;
                t.broadcast();
                continue;
            }
            let deadline = waiting
                .iter()
                .filter_map(|&r| t.bot_deadline(r))
                .chain(t.timer.filter(|_| !t.debug.pausing()))
                .min();
            drop(t);
            let wait = self.tick(deadline);
            self.table.borrow_mut().pump(wait);
            self.reload(engine);
        }
        let mut t = self.table.borrow_mut();
        t.stand = Stand::Resolving;
        t.timer = None;
        t.previews.clear();
        Ok(())
    }

    fn program(&mut self, _engine: &mut Engine, hand: &Hand) -> Result<Vec<Card>> {
        let t = self.table.borrow();
        Ok(t.desks[hand.robot]
            .as_ref()
            .map_or(Vec::new(), Desk::program))
    }
}

/// A saved desk onto `desk`, dealt the same hand again, through the desk's own rules: a
/// save's cards go only where a player could have put them. On an error `desk` is as dealt.
fn restore(desk: &mut Desk, kept: &KeptDesk, damage: i32) -> std::result::Result<(), String> {
    if kept.hand != desk.hand.cards || kept.registers.len() != REGISTERS {
        return Err("it was for another hand".into());
    }
    let mut restored = desk.clone();
    for &i in &desk.hand.open {
        if let Some(card) = kept.registers[i] {
            restored.place(i as u8 + 1, card)?;
        }
    }
    restored.set_power_down(kept.power_down, damage)?;
    if kept.ready {
        restored.set_ready()?;
    }
    *desk = restored;
    Ok(())
}

/// What became of a question put to a player: an answer (`None`: the default, as a bot or a
/// player's "don't ask again" gives it), or nobody answered before its timeout.
enum Reply {
    Answered(Option<String>),
    TimedOut,
}

/// Asks `robot`'s player `q` and waits for the answer, the timeout (the default), or a
/// bot taking the seat over. The game as of the last stage is on disk before the question
/// is shown: a table stopped while a person decides comes back to the same question.
fn ask(table: &Shared, q: &Question) -> Reply {
    let bot = table.borrow().bot_decides(q.robot);
    if bot {
        return Reply::Answered(table.borrow_mut().bots.choose(q));
    }
    // Declined for this turn or the game: the default, unasked.
    let quiet = table.borrow().seats[q.robot]
        .quiet
        .get(&q.key)
        .is_some_and(|h| h.covers(q.turn));
    if quiet {
        return Reply::Answered(None);
    }
    table.borrow().settle();
    {
        let mut t = table.borrow_mut();
        let id = t.next_question;
        t.next_question += 1;
        let timeout = Duration::from_secs(t.settings.choice_timeout);
        t.question = Some(Pending {
            view: QuestionView {
                id,
                robot: q.robot_name.clone(),
                key: q.key.clone(),
                text: if q.text.is_empty() {
                    q.key.clone()
                } else {
                    q.text.clone()
                },
                choices: q.choices.clone(),
                default: q.default_answer().to_string(),
                timeout_ms: timeout.as_millis() as u64,
                cards: match q.detail.get("cards") {
                    Some(serde_json::Value::Array(cards)) => cards
                        .iter()
                        .filter_map(|c| c.as_str())
                        .filter(|c| Card::parse(c).is_ok())
                        .map(str::to_string)
                        .collect(),
                    _ => Vec::new(),
                },
                square: q.detail.get("at").and_then(crate::pictures::words::square),
                optional: q.default_answer() == "no",
            },
            robot: q.robot,
            turn: q.turn,
            deadline: Instant::now() + timeout,
            shown: false,
            answer: None,
        });
        t.broadcast();
    }
    let answer = loop {
        let mut t = table.borrow_mut();
        let p = t.question.as_ref().expect("asked");
        if let Some(a) = &p.answer {
            break Reply::Answered(Some(a.clone()));
        }
        if t.closed {
            break Reply::Answered(None);
        }
        if Instant::now() >= p.deadline {
            break Reply::TimedOut;
        }
        if t.bot_decides(q.robot) {
            break Reply::Answered(t.bots.choose(q));
        }
        let deadline = [Some(p.deadline), t.bot_deadline(q.robot)]
            .into_iter()
            .flatten()
            .min();
        let wait = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        t.pump(wait);
    };
    let mut t = table.borrow_mut();
    t.question = None;
    t.broadcast();
    answer
}

/// The game's chooser at a table: every question (the scripts' `ctx:choose`, and the turn
/// loop's power down, staying down and re-entry, `game::questions`) goes to the robot's
/// player as a dialog; bots, absent players and rehearsals get the bots' answers. Power
/// down was already announced on the desk while programming: that is the answer.
struct TableChooser {
    table: Shared,
    /// The last question was left to its timeout.
    timed_out: bool,
}

impl TableChooser {
    fn new(table: Shared) -> TableChooser {
        TableChooser {
            table,
            timed_out: false,
        }
    }
}

impl Chooser for TableChooser {
    fn choose(&mut self, q: &Question) -> Option<String> {
        self.timed_out = false;
        if q.rehearsal {
            return self.table.borrow_mut().bots.choose(q);
        }
        if q.key == POWER_DOWN {
            let t = self.table.borrow();
            let announced = t.desks[q.robot].as_ref().map(|d| d.power_down);
            if let (false, Some(down)) = (t.bot_decides(q.robot), announced) {
                return Some(if down { "yes" } else { "no" }.into());
            }
        }
        match ask(&self.table, q) {
            Reply::Answered(answer) => answer,
            Reply::TimedOut => {
                self.timed_out = true;
                None
            }
        }
    }

    fn timed_out(&self) -> bool {
        self.timed_out
    }
}

/// Loads a save for `--resume`, with its tokens (written beside it when the table began;
/// `None` if there is no such file). A tokens file that is there but not one token of 32
/// hex digits per seat, a host's and the spectators' (all different) is refused: an empty
/// host token would make anyone who opens the table its host.
pub fn resume(path: &std::path::Path) -> Result<(Save, Option<Tokens>)> {
    let save = Save::load(path)?;
    let file = super::tokens_path(path);
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((save, None)),
        Err(e) => {
            return Err(Error::File {
                file,
                message: format!("cannot read the table's tokens: {e}"),
            })
        }
    };
    let refused = |message: String| Error::File {
        file: file.clone(),
        message,
    };
    let tokens: Tokens = serde_json::from_str(&text).map_err(|e| {
        refused(format!(
            "not a table's tokens ({{\"seats\": [...], \"host\": ..., \"spectator\": ...}}): {e}"
        ))
    })?;
    tokens.check(save.state.robots.len()).map_err(refused)?;
    Ok((save, Some(tokens)))
}
