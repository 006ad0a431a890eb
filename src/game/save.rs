//! Saves and replays. A save is the whole position between two stages of the turn loop:
//! the engine's state (which already holds the RNG and every script's memory, design.md
//! principle 1), the registers' cards, the turn loop's progress and the history so far.
//! Resuming rebuilds the game from the game file and the save, so a resumed game continues
//! byte for byte as the uninterrupted one would. A replay is the history of a finished game.
//!
//! Saves are written atomically (a temporary file beside the target, flushed, then renamed
//! over it), so a crash mid-write leaves the previous save intact.

use super::{Match, Outcome, Progress, Setup, TurnRecord};
use crate::cards::Card;
use crate::error::{Error, Result, Source};
use crate::script::RuleSet;
use crate::state::GameState;
use serde::{Deserialize, Serialize};
use std::io::Write;
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
    pub state: GameState,
    /// Each robot's registers (the JSON state leaves them out).
    pub programs: Vec<Vec<Option<Card>>>,
    /// Each robot's place in this turn's order of destruction (re-entry order, §7.5).
    pub destroyed_order: Vec<Option<u64>>,
    pub history: Vec<TurnRecord>,
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

impl Match {
    /// The position now, as a save.
    pub fn save(&self, extra_variants: &[String]) -> Save {
        let state = self.game.state().clone();
        let game = std::fs::canonicalize(&self.setup.path).unwrap_or(self.setup.path.clone());
        Save {
            format: SAVE_FORMAT,
            game,
            extra_variants: extra_variants.to_vec(),
            progress: self.progress.clone(),
            programs: state.robots.iter().map(|r| r.program.clone()).collect(),
            destroyed_order: state.robots.iter().map(|r| r.destroyed_order).collect(),
            state,
            history: self.history.clone(),
        }
    }

    /// The game a save was taken from, at the saved position.
    pub fn resume(setup: Setup, rules: RuleSet, save: Save) -> Result<Match> {
        let mut m = Match::start(setup, rules)?;
        let names = |s: &GameState| s.robots.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
        if names(&m.game.state()) != names(&save.state) {
            return Err(Error::Other(format!(
                "the save's robots ({}) are not the game file's ({})",
                names(&save.state).join(", "),
                names(&m.game.state()).join(", ")
            )));
        }
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
        m.game.restore(state);
        m.progress = save.progress;
        m.history = save.history;
        Ok(m)
    }

    /// The replay of this game (finished or not).
    pub fn replay(&self, extra_variants: &[String]) -> Replay {
        Replay {
            game: std::fs::canonicalize(&self.setup.path).unwrap_or(self.setup.path.clone()),
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
    pub fn load(path: &Path) -> Result<Save> {
        let save: Save = Source::read(path)?.parse_json("not a rally save")?;
        if save.format != SAVE_FORMAT {
            return Err(Error::File {
                file: path.to_path_buf(),
                message: format!(
                    "save format {} is not supported (expected {SAVE_FORMAT})",
                    save.format
                ),
            });
        }
        Ok(save)
    }
}

/// `saves/x.save.json` → `saves/x.SUFFIX`: the files kept beside a save (its replay, a
/// table's tokens).
pub fn beside(save: &Path, suffix: &str) -> PathBuf {
    let name = save
        .file_name()
        .map_or("game".into(), |n| n.to_string_lossy().to_string());
    let stem = name
        .strip_suffix(".save.json")
        .or_else(|| name.strip_suffix(".json"))
        .unwrap_or(&name);
    save.with_file_name(format!("{stem}.{suffix}"))
}

/// Writes JSON to `path` atomically.
pub fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value).expect("saves serialize");
    write_atomic(path, text.as_bytes())
}

/// Writes `bytes` to a temporary file beside `path`, syncs it, then renames it over `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let err = |e: std::io::Error| Error::File {
        file: path.to_path_buf(),
        message: e.to_string(),
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    {
        let mut f = std::fs::File::create(&tmp).map_err(err)?;
        f.write_all(bytes).map_err(err)?;
        f.sync_all().map_err(err)?;
    }
    std::fs::rename(&tmp, path).map_err(err)
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
