//! Whole games (rules.md §2): a game file names the course, the robots and who drives them;
//! [`Game`] plays it turn by turn on top of the [`Engine`]: power down takes effect,
//! cards are dealt and programmed, the five registers run, the end of the turn repairs and
//! re-enters robots, and the first robot to touch the last flag wins at once.
//!
//! The turn loop is a small state machine ([`Phase`]) advanced one stage at a time, so the
//! caller can draw, pause and save between registers, and a saved game resumes exactly where
//! it stopped. Decisions (programs, power down, re-entry) come from a [`Seats`]
//! implementation: bots ([`bot`]), or people at the terminal (`commands::play`).

pub mod bot;
pub mod columns;
pub mod journal;
pub mod moment;
pub mod preview;
pub(crate) mod questions;
pub(crate) mod rerun;
pub mod save;
pub mod scenario;
pub mod sim;
pub(crate) mod study;
pub mod tally;

use crate::board::file::Placement;
use crate::board::{Board, BoardRef, Layout, Origin};
use crate::cards::Card;
use crate::deal::{self, Hand};
use crate::detail;
use crate::engine::{Engine, Programming};
use crate::error::{Error, Result};
use crate::files::Source;
use crate::geometry::{Dir, Pos};
use crate::script::variant::Choice;
use crate::script::RuleSet;
use crate::state::{Event, Robot, RobotId, State, StepSnapshot};
use bot::Strength;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use toml::Spanned;

/// Who decides for a robot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Driver {
    /// A person at this terminal.
    Human,
    /// A bot of the robot's `strength`.
    #[default]
    Bot,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct GameFile {
    #[serde(default)]
    description: String,
    board: BoardRef,
    #[serde(default)]
    seed: u64,
    /// Default 3.
    lives: Option<Spanned<i32>>,
    /// Default 100.
    turn_limit: Option<Spanned<u32>>,
    #[serde(default)]
    variants: crate::script::variant::Names,
    #[serde(default)]
    variant: crate::script::variant::Settings,
    flags: Option<Spanned<Vec<[i32; 2]>>>,
    #[serde(default)]
    robot: Vec<Spanned<SeatFile>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct SeatFile {
    name: String,
    #[serde(default)]
    driver: Driver,
    #[serde(default)]
    strength: Strength,
    start: Option<u32>,
    /// Default: the facing its dock gives, else north.
    facing: Option<Dir>,
    /// Option cards it starts the game with (playtesting an option: `rally sim`).
    #[serde(default)]
    options: Vec<String>,
}

/// A count of the game file that must be at least 1 (`lives`, `turn_limit`), or `default`.
fn at_least_1<T: Copy + Into<i64> + std::fmt::Display>(
    source: &Source,
    value: &Option<Spanned<T>>,
    key: &str,
    default: T,
) -> Result<T> {
    match value {
        Some(v) if (*v.get_ref()).into() < 1 => Err(source.error_at(
            v.span().start,
            format!("{key} = {}: expected at least 1", v.get_ref()),
        )),
        Some(v) => Ok(*v.get_ref()),
        None => Ok(default),
    }
}

/// One robot of the game file and who drives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Seat {
    pub name: String,
    pub driver: Driver,
    /// The bot's strength; for a person, the bot that stands in for them in `rally sim`.
    pub strength: Strength,
    /// The start square (dock) number.
    pub dock: u32,
    /// The way it faces at the start; none: its dock's facing, else north.
    pub facing: Option<Dir>,
    /// Option cards it starts with.
    pub options: Vec<String>,
    /// Its `[[robot]]` table in the game file, for errors found once the rules are loaded.
    pub origin: Origin,
}

/// A game file, read and checked (everything but the board's elements, which need the rules).
#[derive(Clone, Debug)]
pub struct Setup {
    pub path: PathBuf,
    pub description: String,
    pub layout: Layout,
    pub seats: Vec<Seat>,
    pub seed: u64,
    pub lives: i32,
    /// After this many turns without a winner the game ends undecided.
    pub turn_limit: u32,
    pub variants: Vec<Choice>,
    /// `[variant.NAME]` settings of variants the file does not switch on: they apply when
    /// `--variant NAME` or a `rally sim` column switches it on.
    pub parked: Vec<Choice>,
}

impl Setup {
    pub fn load(path: &Path) -> Result<Setup> {
        let source = Source::read(path)?;
        let file: GameFile = source.parse_toml()?;
        let whole = Origin {
            file: path.to_path_buf(),
            line: 1,
            column: 1,
        };
        let mut layout = file.board.layout(&source)?;
        if let Some(flags) = &file.flags {
            // The game's flags replace the board's own.
            layout.placements.retain(|p| p.element != "flag");
            let (line, column) = source.locate(flags.span().start);
            for (i, &[x, y]) in flags.get_ref().iter().enumerate() {
                let at = Pos::new(x, y);
                if !(0..layout.width).contains(&x) || !(0..layout.height).contains(&y) {
                    return Err(source.error_at(
                        flags.span().start,
                        format!(
                            "flag {} at {at} is outside the {}×{} board",
                            i + 1,
                            layout.width,
                            layout.height
                        ),
                    ));
                }
                let mut params = toml::Table::new();
                params.insert("number".into(), toml::Value::Integer(i as i64 + 1));
                layout.placements.push(Placement {
                    element: "flag".into(),
                    at,
                    params,
                    quarter_turns: 0,
                    origin: Origin {
                        file: path.to_path_buf(),
                        line,
                        column,
                    },
                    context: None,
                });
            }
        }
        if file.robot.is_empty() {
            return Err(whole.error("a game needs at least one [[robot]]"));
        }
        let mut seats: Vec<Seat> = Vec::new();
        for (i, spanned) in file.robot.iter().enumerate() {
            let r = spanned.get_ref();
            if seats.iter().any(|s| s.name == r.name) {
                return Err(source.error_at(
                    spanned.span().start,
                    format!("two robots are named `{}`", r.name),
                ));
            }
            let dock = r.start.unwrap_or(i as u32 + 1);
            if let Some(other) = seats.iter().find(|s| s.dock == dock) {
                return Err(source.error_at(
                    spanned.span().start,
                    format!(
                        "robots `{}` and `{}` both start on dock {dock}",
                        other.name, r.name
                    ),
                ));
            }
            let (line, column) = source.locate(spanned.span().start);
            seats.push(Seat {
                name: r.name.clone(),
                driver: r.driver,
                strength: r.strength,
                dock,
                facing: r.facing,
                options: r.options.clone(),
                origin: Origin {
                    file: path.to_path_buf(),
                    line,
                    column,
                },
            });
        }
        // Robots are kept in dock order: it breaks ties between robots destroyed at the same
        // time (re-entry, rules.md §7.5 item 5), as the listed order does in a scenario.
        seats.sort_by_key(|s| s.dock);
        let lives = at_least_1(&source, &file.lives, "lives", 3)?;
        let turn_limit = at_least_1(&source, &file.turn_limit, "turn_limit", 100)?;
        let (variants, parked) =
            crate::script::variant::choices_and_parked(&file.variants, &file.variant, &source);
        Ok(Setup {
            path: path.to_path_buf(),
            description: file.description,
            layout,
            seats,
            seed: file.seed,
            lives,
            turn_limit,
            variants,
            parked,
        })
    }

    /// How bots answer questions in this game: each seat as its strength would.
    pub fn bot_policy(&self) -> crate::decision::BotPolicy {
        crate::decision::BotPolicy::new(
            self.seats
                .iter()
                .map(|s| s.strength.power_down_at())
                .collect(),
        )
    }

    /// The game's variants plus `extra` names (from `--variant`), without duplicates.
    pub fn choices(&self, extra: &[String]) -> Vec<Choice> {
        crate::script::variant::with_extra_parked(&self.variants, extra, &self.parked)
    }

    /// A warning for each `[variant.NAME]` table of the file that none of `switched_on`
    /// (the variants each game or column plays with) uses: a parked setting ignored, or a
    /// misspelt variant name.
    pub fn unused_settings<'a>(
        &self,
        switched_on: impl IntoIterator<Item = &'a Choice> + Clone,
    ) -> Vec<String> {
        self.parked
            .iter()
            .filter(|p| !switched_on.clone().into_iter().any(|c| c.name == p.name))
            .map(|p| {
                let at = p.written.as_ref().map_or(String::new(), |w| {
                    format!("{}:{}:{}: ", w.name.file.display(), w.name.line, w.name.column)
                });
                format!(
                    "{at}[variant.{0}] sets parameters, but nothing switches `{0}` on (--variant, or rally sim's --compare or --sweep)",
                    p.name
                )
            })
            .collect()
    }

    /// A warning for each switched-on variant that changes nothing on this game's board
    /// ([`crate::script::variant::idle_on`]): played with it, the games are the same as without.
    pub fn idle_variant_warnings(&self, rules: &RuleSet) -> Result<Vec<String>> {
        let board = Board::compile(&self.layout, rules)?;
        Ok(crate::script::variant::idle_on(&board, rules)
            .into_iter()
            .map(|(variant, elements)| {
                let why = match elements.as_slice() {
                    [] => "it defines no element, and none of its rules acts here".to_string(),
                    names => format!(
                        "none of the elements it defines ({}) is on the board, and none of its rules acts here",
                        names
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                format!(
                    "{}: the variant `{variant}` changes nothing on the board `{}`: {why}",
                    self.path.display(),
                    board.name
                )
            })
            .collect())
    }

    /// The robots on their docks, compiled against `rules` to find the start squares.
    fn robots(&self, rules: &RuleSet) -> Result<Vec<Robot>> {
        let board = Board::compile(&self.layout, rules)?;
        if board.flags().is_empty() {
            return Err(Error::File {
                file: self.path.clone(),
                message:
                    "the course has no flags: add `flag` elements to the board or a `flags` list"
                        .into(),
            });
        }
        self.seats
            .iter()
            .map(|seat| {
                let start = board
                    .starts()
                    .iter()
                    .find(|s| s.number == seat.dock)
                    .ok_or_else(|| {
                        seat.origin.error(format!(
                            "robot `{}` starts on dock {}, but the board has no `start` square number {}",
                            seat.name, seat.dock, seat.dock
                        ))
                    })?;
                let facing = seat.facing.or(start.facing).unwrap_or(Dir::N);
                let mut robot = Robot::new(seat.name.as_str(), start.at, facing);
                robot.lives = self.lives;
                for name in &seat.options {
                    let def = rules.option_def(name).ok_or_else(|| {
                        seat.origin.error(format!(
                            "robot `{}`: there is no option `{name}`{}",
                            seat.name,
                            crate::error::suggest(name, rules.options.iter().map(|o| o.name.as_str()))
                        ))
                    })?;
                    robot.options.push(crate::state::HeldOption {
                        name: name.clone(),
                        uses_left: def.uses,
                    });
                }
                Ok(robot)
            })
            .collect()
    }
}

/// Where a game stands: what the next call to [`Game::advance`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Power down takes effect, cards are dealt and programmed.
    Program,
    /// This register (1..=5) runs next.
    Register(u8),
    /// Repairs, re-entry and the decisions for the next turn.
    EndOfTurn,
    /// The game is over.
    Over,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "end")]
pub enum Outcome {
    /// A robot touched the last flag.
    Won { robot: String, turn: u32 },
    /// Every robot lost its last life.
    NoneLeft { turn: u32 },
    /// Nobody won within the game's turn limit.
    TurnLimit { turn: u32 },
}

impl Outcome {
    /// One sentence for people.
    pub fn text(&self) -> String {
        match self {
            Outcome::Won { robot, turn } => {
                format!("The winner: {robot}, first to touch the last flag (turn {turn}).")
            }
            Outcome::NoneLeft { turn } => {
                format!("Every robot is out of lives after turn {turn}: nobody wins.")
            }
            Outcome::TurnLimit { turn } => {
                format!("Turn limit reached after turn {turn}: nobody wins.")
            }
        }
    }
}

/// The turn loop's own state, beside the engine's `State`; saved with it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub phase: Phase,
    /// Robots that announced power down for the next turn.
    pub announced: Vec<bool>,
    pub outcome: Option<Outcome>,
}

/// What one robot was dealt and programmed in a turn (the replay keeps it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dealt {
    pub robot: String,
    pub hand: Vec<Card>,
    pub program: Vec<Option<Card>>,
    pub power_down: bool,
}

/// One turn of a finished or running game: the deal, every event in order, and the robots
/// after each stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnRecord {
    pub turn: u32,
    pub dealt: Vec<Dealt>,
    pub events: Vec<Event>,
    /// The robots after each stage of the turn, in order (the replay viewer plays them).
    /// Absent from saves and replays of older versions.
    #[serde(default)]
    pub snapshots: Vec<Snapshot>,
}

/// The robots as they stood after one stage of a turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The stage just run: [`Phase::Program`] (the start of the turn: power down, the deal
    /// and programming), [`Phase::Register`] or [`Phase::EndOfTurn`].
    pub stage: Phase,
    /// How many of the turn's `events` had happened by then (the stage's own events are
    /// those since the previous snapshot).
    pub events: usize,
    /// As in the state's JSON (no registers).
    pub robots: Vec<Robot>,
    /// In a register, the robots after each step and card in which something happened, with
    /// `events` counted in the turn's events as above (the replay viewer's frames). Absent
    /// from older saves.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepSnapshot>,
}

impl Snapshot {
    /// "Start", "Register 2" or "End of turn".
    pub fn label(&self) -> String {
        match self.stage {
            Phase::Program => "Start".into(),
            Phase::Register(r) => format!("Register {r}"),
            Phase::EndOfTurn => "End of turn".into(),
            Phase::Over => "Game over".into(),
        }
    }
}

/// What [`Game::advance`] just did, with the events it produced.
#[derive(Clone, Debug)]
pub enum Stage {
    /// The turn began: power down took effect, and these hands were dealt and programmed.
    Programmed {
        hands: Vec<Hand>,
        events: Vec<Event>,
    },
    Register {
        register: u8,
        events: Vec<Event>,
        /// The robots after each step and card in which something happened (recorded games).
        steps: Vec<StepSnapshot>,
    },
    EndOfTurn {
        events: Vec<Event>,
    },
}

impl Stage {
    pub fn events(&self) -> &[Event] {
        match self {
            Stage::Programmed { events, .. }
            | Stage::Register { events, .. }
            | Stage::EndOfTurn { events } => events,
        }
    }
}

/// Where the programs of a game come from. Every method gets the game's engine, so a bot can
/// simulate with it; what it changes there must be restored before returning. Every
/// other decision (power down, re-entry, the scripts' questions) is a question to the
/// game's chooser ([`crate::decision`], `questions`).
pub trait Seats {
    /// The turn's hands as dealt, before the `on_deal` hooks (Recompile's question) may
    /// change them. Seats whose players program at the same time can start now, so that one
    /// player's question does not keep the others waiting; the hands they program are
    /// those of [`Seats::hands_dealt`].
    fn dealing(&mut self, _engine: &mut Engine, _hands: &[Hand]) -> Result<()> {
        Ok(())
    }
    /// The turn's hands were just dealt, before the first [`Seats::program`]. Seats whose
    /// players program at the same time (a table of browsers, `crate::table`) hand them all
    /// out here and collect the programs; seats that answer one at a time ignore it.
    fn hands_dealt(&mut self, _engine: &mut Engine, _hands: &[Hand]) -> Result<()> {
        Ok(())
    }
    /// The cards for the hand's open registers, in order (see [`deal::check_program`]).
    fn program(&mut self, engine: &mut Engine, hand: &Hand) -> Result<Vec<Card>>;
    /// Which of the hand's open registers (positions in `hand.open`) stay empty, the cards
    /// going into the others in order: a scenario's `-`. Default none.
    fn idle(&mut self, _engine: &Engine, _hand: &Hand) -> Vec<usize> {
        Vec::new()
    }
    /// The deal, if the seats fix it in advance (a scenario stacks the deck); `None`, the
    /// default: the deck is shuffled and dealt.
    fn stacked(&mut self, _engine: &Engine) -> Result<Option<deal::Stacked>> {
        Ok(None)
    }
}

/// A game being played: its engine plus the turn loop around it.
pub struct Game {
    pub setup: Setup,
    pub engine: Engine,
    pub progress: Progress,
    /// Every turn so far; empty unless `record` (simulations skip it).
    pub history: Vec<TurnRecord>,
    pub record: bool,
    /// The hashes of the rule files saves carry, made once for each rule set: a table saves
    /// after every stage, and reading and hashing every script each time cost the table
    /// threads nine tenths of their time.
    rule_hashes: std::cell::RefCell<Option<RuleHashes>>,
    /// The game file as an absolute path, as saves name it (found once: a table saves after
    /// every stage).
    game_file: PathBuf,
}

/// The rule set hashed (the same `Defs`: a reload makes new ones) and its hashes.
type RuleHashes = (std::rc::Rc<crate::script::Defs>, Option<study::Rules>);

impl Game {
    /// The game file as an absolute path (as given, if it cannot be found).
    pub fn game_file(&self) -> &Path {
        &self.game_file
    }

    /// The hashes of the rule files in force (`None` if one cannot be read again).
    pub fn rule_hashes(&self) -> Option<study::Rules> {
        let defs = &self.engine.rules().defs;
        let mut cached = self.rule_hashes.borrow_mut();
        match &*cached {
            Some((hashed, rules)) if std::rc::Rc::ptr_eq(hashed, defs) => rules.clone(),
            _ => {
                let rules = study::Rules::of(self.engine.rules()).ok();
                *cached = Some((defs.clone(), rules.clone()));
                rules
            }
        }
    }

    /// A new game at its start: every robot on its dock, turn 1.
    pub fn start(setup: Setup, rules: RuleSet) -> Result<Game> {
        let robots = setup.robots(&rules)?;
        let count = robots.len();
        let state = State::new(robots, setup.seed);
        let mut engine = Engine::new(setup.layout.clone(), state, rules)?;
        // Questions (options, double wrenches, power down, re-entry): bots answer, each as
        // its seat's strength would; a table with people installs its own chooser
        // (`commands::play`).
        engine.set_chooser(Box::new(setup.bot_policy()));
        Ok(Game {
            rule_hashes: Default::default(),
            game_file: std::fs::canonicalize(&setup.path).unwrap_or(setup.path.clone()),
            setup,
            engine,
            progress: Progress {
                phase: Phase::Program,
                announced: vec![false; count],
                outcome: None,
            },
            history: Vec::new(),
            record: true,
        })
    }

    pub fn is_over(&self) -> bool {
        self.progress.phase == Phase::Over
    }

    /// Plays until the game is over.
    pub fn play_out(&mut self, seats: &mut dyn Seats) -> Result<()> {
        while !self.is_over() {
            self.advance(seats)?;
        }
        Ok(())
    }

    /// Runs the next stage: the deal and programming, one register, or the end of the turn.
    /// A stage is a transaction: if a script or a seat fails, the game is left as it was, so
    /// the stage can be tried again (after a hot reload fixed the script, say).
    pub fn advance(&mut self, seats: &mut dyn Seats) -> Result<Stage> {
        TurnLoop {
            engine: &mut self.engine,
            progress: &mut self.progress,
            history: self.record.then_some(&mut self.history),
            turn_limit: self.setup.turn_limit,
        }
        .advance(seats)
    }
}

/// Power down takes effect as robot `id`'s turn begins (rules.md §2 step 1.1, §7.4.2): all its
/// damage is discarded and, dealt no cards, its registers are empty: no moves, no firing.
pub(crate) fn power_down(state: &mut State, id: RobotId) {
    let r = &mut state.robots[id];
    let discarded = r.damage;
    deal::set_damage(r, 0);
    r.program.iter_mut().for_each(|c| *c = None);
    state.log(
        Some(id),
        "powered_down",
        || detail! {"discarded" => discarded},
    );
}

/// A robot back on the board at the end of the turn (§7.5): on its archive square its player
/// picks the way it faces (question `reenter_facing`); a robot placed beside the archive
/// keeps the facing the engine found clear of other robots.
pub(crate) fn face_on_reentry(engine: &Engine, id: RobotId, on_archive: bool) -> Result<()> {
    let facing = questions::reenter_facing(engine, id)?;
    if on_archive {
        let mut state = engine.state_mut();
        if state.robots[id].facing != facing {
            state.robots[id].facing = facing;
            state.log(Some(id), "faced", || detail! {"facing" => facing});
        }
    }
    Ok(())
}

/// The turn loop itself, over an engine it borrows: what [`Game`] runs, and what a scenario of
/// several turns runs on its own engine (`scenario.rs`), so both play turns the same way.
pub struct TurnLoop<'a> {
    pub engine: &'a mut Engine,
    pub progress: &'a mut Progress,
    /// Where each turn is recorded (deal, events, snapshots), if anywhere.
    pub history: Option<&'a mut Vec<TurnRecord>>,
    /// After this turn the game ends undecided.
    pub turn_limit: u32,
}

impl TurnLoop<'_> {
    /// [`Game::advance`]: one stage, as a transaction.
    pub fn advance(&mut self, seats: &mut dyn Seats) -> Result<Stage> {
        let (state, progress) = (self.engine.state().clone(), self.progress.clone());
        let turns = self.history.as_ref().map_or(0, |h| h.len());
        let phase = progress.phase;
        let result = match self.progress.phase {
            Phase::Program => self.begin_turn(seats),
            Phase::Register(r) => self.register(r),
            Phase::EndOfTurn => self.end_turn(),
            Phase::Over => Err(Error::Other("the game is already over".into())),
        };
        let stage = match result {
            Ok(stage) => stage,
            Err(e) => {
                self.engine.restore(state);
                *self.progress = progress;
                if let Some(history) = self.history.as_deref_mut() {
                    history.truncate(turns);
                }
                return Err(e);
            }
        };
        if let Some(turn) = self.history.as_deref_mut().and_then(|h| h.last_mut()) {
            let robots = self
                .engine
                .state()
                .robots
                .iter()
                .map(Robot::as_saved)
                .collect();
            let before = turn.events.len();
            turn.events.extend_from_slice(stage.events());
            let steps = match &stage {
                Stage::Register { steps, .. } => steps
                    .iter()
                    .map(|m| StepSnapshot {
                        events: before + m.events,
                        robots: m.robots.iter().map(Robot::as_saved).collect(),
                        ..m.clone()
                    })
                    .collect(),
                _ => Vec::new(),
            };
            turn.snapshots.push(Snapshot {
                stage: phase,
                events: turn.events.len(),
                robots,
                steps,
            });
        }
        Ok(stage)
    }

    /// Events since the last stage, taken out of the state so it stays small to copy (the
    /// bots clone it for every candidate program).
    fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.engine.state_mut().events)
    }

    /// Power down takes effect, the turn starts, cards are dealt (`on_deal` hooks), programs
    /// are chosen and installed (`on_program` hooks), the leftovers discarded.
    fn begin_turn(&mut self, seats: &mut dyn Seats) -> Result<Stage> {
        {
            let mut state = self.engine.state_mut();
            state.register = 0;
            state.segment = "turn_start".into();
            for id in 0..state.robots.len() {
                let r = &mut state.robots[id];
                let down = self.progress.announced[id] && !r.destroyed;
                r.powered_down = down;
                if down {
                    power_down(&mut state, id);
                }
            }
        }
        self.progress.announced.iter_mut().for_each(|a| *a = false);
        self.engine.start_turn()?;
        let count = self.engine.state().robots.len();
        let sizes = (0..count)
            .map(|id| self.engine.hand_size(id))
            .collect::<Result<Vec<usize>>>()?;
        let stacked = seats.stacked(self.engine)?;
        let dealt = deal::deal(&mut self.engine.state_mut(), &sizes, stacked.as_ref());
        let as_dealt: Vec<Hand> = dealt
            .iter()
            .map(|&id| deal::hand(&self.engine.state(), id))
            .collect();
        seats.dealing(self.engine, &as_dealt)?;
        self.engine.programming(&dealt, Programming::Deal)?;
        let dealt: Vec<RobotId> = {
            let mut dealt = dealt;
            let mut state = self.engine.state_mut();
            dealt.retain(|&id| !state.robots[id].destroyed);
            deal::fill_new_locks(&mut state, &dealt);
            state.segment = "program".into();
            dealt
        };
        let hands: Vec<Hand> = dealt
            .iter()
            .map(|&id| deal::hand(&self.engine.state(), id))
            .collect();
        seats.hands_dealt(self.engine, &hands)?;
        let mut programs = Vec::with_capacity(hands.len());
        for hand in &hands {
            let chosen = seats.program(self.engine, hand)?;
            deal::check_program(hand, &chosen).map_err(|m| {
                Error::Other(format!(
                    "the program for {}: {m}",
                    self.engine.state().robots[hand.robot].name
                ))
            })?;
            let damaged = self.engine.state().robots[hand.robot].damage > 0;
            if damaged && questions::power_down(self.engine, hand.robot)? {
                self.progress.announced[hand.robot] = true;
            }
            let idle = seats.idle(self.engine, hand);
            programs.push((chosen, idle));
        }
        {
            let mut state = self.engine.state_mut();
            for (hand, (chosen, idle)) in hands.iter().zip(&programs) {
                deal::install(&mut state, hand, chosen, idle);
            }
        }
        self.engine.programming(&dealt, Programming::Program)?;
        let mut records = Vec::with_capacity(hands.len());
        {
            let mut state = self.engine.state_mut();
            deal::discard_leftovers(&mut state);
            for hand in &hands {
                let program = state.robots[hand.robot].program.clone();
                let shown: Vec<String> = program
                    .iter()
                    .map(|c| c.map_or("-".to_string(), |c| c.to_string()))
                    .collect();
                let power_down = self.progress.announced[hand.robot];
                state.log(
                    Some(hand.robot),
                    "programmed",
                    || detail! {"power_down" => power_down, "program" => shown},
                );
                records.push(Dealt {
                    robot: state.robots[hand.robot].name.to_string(),
                    hand: hand.cards.clone(),
                    program,
                    power_down,
                });
            }
        }
        if let Some(history) = self.history.as_deref_mut() {
            let turn = self.engine.state().turn;
            history.push(TurnRecord {
                turn,
                dealt: records,
                events: Vec::new(),
                snapshots: Vec::new(),
            });
        }
        self.progress.phase = Phase::Register(1);
        Ok(Stage::Programmed {
            hands,
            events: self.take_events(),
        })
    }

    fn register(&mut self, register: u8) -> Result<Stage> {
        let steps = if self.history.is_some() {
            self.engine.run_register_noted(register)?
        } else {
            self.engine.run_register(register)?;
            Vec::new()
        };
        let events = self.take_events();
        let state = self.engine.state();
        // §7.1: the first robot to touch the last flag wins (`World::rank_arrivals` logs
        // `won` once, a tie going to the higher card priority).
        let winner = state.finished.first().and_then(|name| state.find(name));
        self.progress.phase = match winner {
            Some(id) => {
                self.progress.outcome = Some(Outcome::Won {
                    robot: state.robots[id].name.to_string(),
                    turn: state.turn,
                });
                Phase::Over
            }
            None if (register as usize) < crate::state::REGISTERS => Phase::Register(register + 1),
            None => Phase::EndOfTurn,
        };
        drop(state);
        Ok(Stage::Register {
            register,
            events,
            steps,
        })
    }

    fn end_turn(&mut self) -> Result<Stage> {
        let destroyed: Vec<bool> = self
            .engine
            .state()
            .robots
            .iter()
            .map(|r| r.destroyed)
            .collect();
        self.engine.end_turn()?;
        for (id, &was_destroyed) in destroyed.iter().enumerate() {
            let (back, on_archive, down) = {
                let r = &self.engine.state().robots[id];
                (
                    was_destroyed && !r.destroyed,
                    r.at == r.archive,
                    r.powered_down,
                )
            };
            if back {
                face_on_reentry(self.engine, id, on_archive)?;
                self.progress.announced[id] = questions::reenter_powered_down(self.engine, id)?;
            } else if down && !was_destroyed {
                self.progress.announced[id] = questions::stay_down(self.engine, id)?;
            }
            // The robot's options may power it down for the next turn (Circuit Breaker).
            if !self.engine.state().robots[id].destroyed {
                let announced = self.progress.announced[id];
                self.progress.announced[id] =
                    self.engine.modify_flag(id, "power_down", announced)?;
                // A robot that plays the next turn is no longer powered down (§7.4.3): it
                // answered no to staying down, or re-entered active.
                if !self.progress.announced[id] {
                    self.engine.state_mut().robots[id].powered_down = false;
                }
            }
        }
        let mut state = self.engine.state_mut();
        deal::wipe(&mut state, &destroyed);
        let turn = state.turn;
        let outcome = if state.robots.iter().all(|r| r.destroyed && r.lives <= 0) {
            Some(Outcome::NoneLeft { turn })
        } else if turn >= self.turn_limit {
            Some(Outcome::TurnLimit { turn })
        } else {
            None
        };
        if outcome.is_some() {
            self.progress.outcome = outcome;
            self.progress.phase = Phase::Over;
        } else {
            state.turn += 1;
            self.progress.phase = Phase::Program;
        }
        drop(state);
        Ok(Stage::EndOfTurn {
            events: self.take_events(),
        })
    }
}
