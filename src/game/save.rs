//! Saves and replays. A save is the whole position between two stages of the turn loop:
//! the engine's state (which already holds the RNG and every script's memory, design.md
//! principle 1), the registers' cards, the turn loop's progress and the history so far.
//! Resuming rebuilds the game from the game file and the save, so a resumed game continues
//! byte for byte as the uninterrupted one would. A replay is the history of a finished game.
//!
//! Saves are written atomically (a temporary file beside the target, flushed, then renamed
//! over it), so a crash mid-write leaves the previous save intact.

use super::{Game, Outcome, Phase, Progress, Setup, TurnRecord};
use crate::board::file::MAX_SIDE;
use crate::cards::Card;
use crate::error::{Error, Result};
use crate::files::Source;
use crate::script::RuleSet;
use crate::state::{State, LETHAL_DAMAGE, REGISTERS};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The save format's version; a save from another version is refused with a message.
pub const SAVE_FORMAT: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Save {
    pub format: u32,
    /// The game file, as an absolute path.
    pub game: PathBuf,
    /// Variants switched on from the command line (`--variant`), on top of the file's.
    pub extra_variants: Vec<String>,
    pub progress: Progress,
    pub state: State,
    /// Each robot's registers (the JSON state leaves them out).
    pub programs: Vec<Vec<Option<Card>>>,
    /// Each robot's place in this turn's order of destruction (re-entry order, §7.5).
    pub destroyed_order: Vec<Option<u64>>,
    /// The turns so far; in a save with a `journal`, the turns after the journal's (once
    /// loaded, every turn).
    pub history: Vec<TurnRecord>,
    /// The turns before `history`, written once in a journal beside the save
    /// (`super::journal`): how much of it is this save's. Saves of an older rally have none
    /// (every turn is in `history`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal: Option<super::journal::Counted>,
    /// What `rally serve` keeps of its table beside the game (seating, the desks of a turn
    /// being programmed, the host's settings: `table::thread`, docs/formats.md); `rally
    /// play` writes none and ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<serde_json::Value>,
    /// The rule files the game was playing with when it was saved, each with its hash, in
    /// every layer (built-in, packs, project): a resumed game says which have changed since.
    /// Saves of an older rally have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<super::study::Rules>,
    /// The file it was read from, so that checks made later (against the game's board and
    /// rules) can point into it.
    #[serde(skip)]
    pub origin: Option<Source>,
}

/// What a finished game leaves behind: who played, how it ended, and every turn.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Replay {
    pub game: PathBuf,
    pub seed: u64,
    pub variants: Vec<String>,
    pub robots: Vec<ReplayRobot>,
    pub outcome: Option<Outcome>,
    pub turns: Vec<TurnRecord>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReplayRobot {
    pub name: String,
    pub driver: super::Driver,
    pub strength: super::bot::Strength,
}

impl Game {
    /// The position now, as a save.
    pub fn save(&self, extra_variants: &[String]) -> Save {
        self.save_after(extra_variants, 0)
    }

    /// The position now, as a save without the first `journaled` turns (the caller writes
    /// them in a journal and sets `journal`).
    pub fn save_after(&self, extra_variants: &[String], journaled: usize) -> Save {
        let state = self.engine.state().clone();
        Save {
            format: SAVE_FORMAT,
            game: self.game_file().to_path_buf(),
            extra_variants: extra_variants.to_vec(),
            progress: self.progress.clone(),
            programs: state.robots.iter().map(|r| r.program.clone()).collect(),
            destroyed_order: state.robots.iter().map(|r| r.destroyed_order).collect(),
            state,
            history: self.history[journaled.min(self.history.len())..].to_vec(),
            journal: None,
            table: None,
            // A rule file that cannot be read again leaves the save without its hashes
            // rather than unwritten.
            rules: self.rule_hashes(),
            origin: None,
        }
    }

    /// The game a save was taken from, at the saved position.
    /// Everything in the save is checked against the game (its robots, board and rules)
    /// before any of it is used.
    pub fn resume(setup: Setup, rules: RuleSet, save: Save) -> Result<Game> {
        let mut m = Game::start(setup, rules)?;
        save.check_against(&m)?;
        let mut state = save.state;
        for ((r, program), order) in state
            .robots
            .iter_mut()
            .zip(save.programs)
            .zip(save.destroyed_order)
        {
            r.program = program;
            r.destroyed_order = order;
        }
        m.engine.restore(state);
        m.progress = save.progress;
        m.history = save.history;
        Ok(m)
    }

    /// The replay of this game (finished or not).
    pub fn replay(&self, extra_variants: &[String]) -> Replay {
        Replay {
            game: self.game_file().to_path_buf(),
            seed: self.setup.seed,
            variants: self
                .setup
                .choices(extra_variants)
                .into_iter()
                .map(|c| c.name)
                .collect(),
            robots: self
                .setup
                .seats
                .iter()
                .map(|s| ReplayRobot {
                    name: s.name.clone(),
                    driver: s.driver,
                    strength: s.strength,
                })
                .collect(),
            outcome: self.progress.outcome.clone(),
            turns: self.history.clone(),
        }
    }
}

impl Save {
    /// Reads a save and checks everything that can be checked without the game file: that
    /// its lists agree, its numbers are in range, and its game file is one rally can read.
    pub fn load(path: &Path) -> Result<Save> {
        let source = Source::read(path)?;
        let mut save: Save = source.parse_json("not a rally save")?;
        save.origin = Some(source);
        if save.format != SAVE_FORMAT {
            return Err(save.error(
                "/format",
                format!(
                    "save format {} is not supported (expected {SAVE_FORMAT})",
                    save.format
                ),
            ));
        }
        save.check()?;
        if let Some(counted) = &save.journal {
            let mut all = super::journal::read(path, counted, |m| save.error("/journal", m))?;
            all.append(&mut save.history);
            save.history = all;
        }
        Ok(save)
    }

    /// A note saying which rule files changed since the game was saved (it goes on with
    /// the rules as they are now), or `None` when they are the same or the save predates
    /// rule hashes.
    pub fn rules_changed(&self, rules: &RuleSet) -> Option<String> {
        let now = super::study::Rules::of(rules).ok()?;
        let changes = self.rules.as_ref()?.changes(&now);
        (!changes.is_empty()).then(|| {
            format!(
                "note: the rules changed since this game was saved ({}); it goes on with the rules as they are now",
                changes.join(", ")
            )
        })
    }

    /// An error at the value `pointer` names in the save's file.
    pub fn error(&self, pointer: &str, message: String) -> Error {
        match &self.origin {
            Some(source) => source.json_error_at(pointer, message),
            None => Error::Other(message),
        }
    }

    fn check(&self) -> Result<()> {
        if !crate::files::is_file(&self.game) {
            return Err(self.error(
                "/game",
                format!(
                    "the game file `{}` is not a regular file that exists",
                    self.game.display()
                ),
            ));
        }
        let robots = &self.state.robots;
        if robots.is_empty() {
            return Err(self.error("/state/robots", "the save has no robots".into()));
        }
        for (key, pointer, len) in [
            (
                "progress.announced",
                "/progress/announced",
                self.progress.announced.len(),
            ),
            ("programs", "/programs", self.programs.len()),
            (
                "destroyed_order",
                "/destroyed_order",
                self.destroyed_order.len(),
            ),
        ] {
            if len != robots.len() {
                return Err(self.error(
                    pointer,
                    format!(
                        "`{key}` has {len} entries for {} robots: it needs one per robot",
                        robots.len()
                    ),
                ));
            }
        }
        for (i, program) in self.programs.iter().enumerate() {
            if program.len() > REGISTERS {
                return Err(self.error(
                    &format!("/programs/{i}"),
                    format!(
                        "{} registers: a program has at most {REGISTERS}",
                        program.len()
                    ),
                ));
            }
        }
        if let Phase::Register(r) = self.progress.phase {
            if !(1..=REGISTERS as u8).contains(&r) {
                return Err(self.error(
                    "/progress/phase",
                    format!("register {r}: expected 1 to {REGISTERS}"),
                ));
            }
        }
        if self.state.register as usize > REGISTERS {
            return Err(self.error(
                "/state/register",
                format!(
                    "register {}: expected 0 to {REGISTERS}",
                    self.state.register
                ),
            ));
        }
        if self.state.turn == 0 {
            return Err(self.error("/state/turn", "turn 0: turns count from 1".into()));
        }
        for (i, r) in robots.iter().enumerate() {
            let at = |key: &str| format!("/state/robots/{i}/{key}");
            if robots[..i].iter().any(|o| o.name == r.name) {
                return Err(self.error(&at("name"), format!("two robots are named `{}`", r.name)));
            }
            if !(0..=LETHAL_DAMAGE).contains(&r.damage)
                || (!r.destroyed && r.damage == LETHAL_DAMAGE)
            {
                return Err(self.error(
                    &at("damage"),
                    format!(
                        "robot `{}` has {} damage: a robot has 0 to {} ({LETHAL_DAMAGE} destroys it)",
                        r.name,
                        r.damage,
                        LETHAL_DAMAGE - 1
                    ),
                ));
            }
            if r.lives < 0 {
                return Err(self.error(
                    &at("lives"),
                    format!("robot `{}` has {} lives", r.name, r.lives),
                ));
            }
        }
        Ok(())
    }

    /// Checks the save against the game it continues: the same robots, every robot and
    /// archive on the board, flags and options that exist.
    fn check_against(&self, m: &Game) -> Result<()> {
        let names = |s: &State| s.robots.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
        let game_names = names(&m.engine.state());
        if game_names != names(&self.state) {
            return Err(self.error(
                "/state/robots",
                format!(
                    "the save's robots ({}) are not the game file's ({})",
                    names(&self.state).join(", "),
                    game_names.join(", ")
                ),
            ));
        }
        let board = m.engine.board();
        let rules = m.engine.rules();
        let flags = board.flags().len();
        // A destroyed robot stays where it fell, which may be off the board, but not far.
        let near = |p: crate::geometry::Pos| {
            (-MAX_SIDE..board.width + MAX_SIDE).contains(&p.x)
                && (-MAX_SIDE..board.height + MAX_SIDE).contains(&p.y)
        };
        let size = format!("{}×{}", board.width, board.height);
        let robots = &self.state.robots;
        for (i, r) in robots.iter().enumerate() {
            let at = |key: &str| format!("/state/robots/{i}/{key}");
            if !(board.contains(r.at) || r.destroyed && near(r.at)) {
                return Err(self.error(
                    &at("at"),
                    format!("robot `{}` at {} is outside the {size} board", r.name, r.at),
                ));
            }
            if !board.contains(r.archive) {
                return Err(self.error(
                    &at("archive"),
                    format!(
                        "robot `{}`'s archive {} is outside the {size} board",
                        r.name, r.archive
                    ),
                ));
            }
            if let Some(other) = robots[..i]
                .iter()
                .find(|o| !o.destroyed && !r.destroyed && o.at == r.at)
            {
                return Err(self.error(
                    &at("at"),
                    format!(
                        "robots `{}` and `{}` both stand on {}",
                        other.name, r.name, r.at
                    ),
                ));
            }
            if r.flags as usize > flags {
                return Err(self.error(
                    &at("flags"),
                    format!(
                        "robot `{}` touched {} flags, but the course has {flags}",
                        r.name, r.flags
                    ),
                ));
            }
            for (j, held) in r.options.iter().enumerate() {
                if rules.option_def(&held.name).is_none() {
                    return Err(self.error(
                        &format!("/state/robots/{i}/options/{j}"),
                        format!("robot `{}` holds an unknown option `{}`", r.name, held.name),
                    ));
                }
            }
        }
        let deck = self
            .state
            .option_deck
            .iter()
            .flatten()
            .map(|n| ("option_deck", n));
        let discards = self
            .state
            .option_discards
            .iter()
            .map(|n| ("option_discards", n));
        if let Some((list, name)) = deck
            .chain(discards)
            .find(|(_, name)| rules.option_def(name).is_none())
        {
            return Err(self.error(
                &format!("/state/{list}"),
                format!("there is no option `{name}`"),
            ));
        }
        Ok(())
    }
}

/// `saves/x.save.json` → `saves/x.SUFFIX`: the files kept beside a save (its replay, a
/// table's tokens).
pub fn beside(save: &Path, suffix: &str) -> PathBuf {
    save.with_file_name(format!("{}.{suffix}", name(save)))
}

/// `saves/x.save.json` (or `x.json`) → `x`: the name a save and the files beside it share.
pub fn name(save: &Path) -> String {
    let file = save
        .file_name()
        .map_or("game".into(), |n| n.to_string_lossy().to_string());
    let stem = file
        .strip_suffix(".save.json")
        .or_else(|| file.strip_suffix(".json"))
        .unwrap_or(&file);
    stem.to_string()
}

/// The turns before the one being played: what a save leaves to its journal.
pub fn finished_turns(m: &Game) -> usize {
    m.history.len().saturating_sub(1)
}

/// Saves `m` at `path` (atomically), its finished turns appended to `journal` first.
pub fn write_with_journal(
    path: &Path,
    m: &Game,
    extra_variants: &[String],
    journal: &mut super::journal::Journal,
) -> Result<()> {
    let finished = finished_turns(m);
    journal.append(&m.history[journal.turns().min(finished)..finished])?;
    let mut save = m.save_after(extra_variants, finished);
    save.journal = Some(journal.counted(finished));
    write_json(path, &save)
}

/// Writes JSON to `path` atomically.
pub fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Error::File {
        file: path.to_path_buf(),
        message: format!("cannot write: {e}"),
    })?;
    crate::files::write_atomic(path, text.as_bytes())
}

/// A whole game as recorded, from its replay or its save: what the replay viewer shows and
/// `rally run --replay` re-resolves.
pub struct GameRecord {
    pub game: PathBuf,
    /// Variant names on top of the game file's.
    pub variants: Vec<String>,
    pub outcome: Option<Outcome>,
    pub turns: Vec<TurnRecord>,
}

impl GameRecord {
    /// The game `input` records, if it is a game's replay (`turns`) or a save (`history`); `None`
    /// for anything else (a scenario replay log, with `rally_replay`, or not JSON at all).
    pub fn read(input: &Path) -> Result<Option<GameRecord>> {
        let source = Source::read(input)?;
        let Ok(serde_json::Value::Object(fields)) = serde_json::from_str(&source.text) else {
            return Ok(None);
        };
        if fields.contains_key("rally_replay") {
            Ok(None)
        } else if fields.contains_key("turns") {
            let replay: Replay = source.parse_json("not a rally game replay")?;
            Ok(Some(GameRecord {
                game: replay.game,
                variants: replay.variants,
                outcome: replay.outcome,
                turns: replay.turns,
            }))
        } else if fields.contains_key("history") {
            let save = Save::load(input)?;
            Ok(Some(GameRecord {
                game: save.game,
                variants: save.extra_variants,
                outcome: save.progress.outcome,
                turns: save.history,
            }))
        } else {
            Ok(None)
        }
    }
}
