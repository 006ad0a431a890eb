//! The replay log: everything needed to resolve a recorded game again (which board, the
//! seed, the robots with their programs, the variants switched on) and what happened the
//! first time (the events and the robots at the end). `rally run SCENARIO --record LOG` writes
//! one; `rally run --replay LOG` resolves it again under the rules on disk now and shows what
//! changed, so a rules edit can be checked against games already played. The format is
//! JSON, described for users in docs/hot-reload.md; `rally_replay` is its version.

use crate::cards::Card;
use crate::error::{Error, Result};
use crate::files::Source;
use crate::formats::scenario::Scenario;
use crate::geometry::{Dir, Pos};
use crate::script::variant::Choice;
use crate::state::Resolution;
use crate::state::{Event, Robot, State};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::{Component, Path, PathBuf};

/// The version this build writes and reads.
pub const VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayLog {
    /// The format version.
    pub rally_replay: u32,
    /// The scenario whose board the game was played on, relative to the log's folder.
    pub scenario: PathBuf,
    pub seed: u64,
    pub registers: u8,
    pub end_of_turn: bool,
    /// The variants switched on, with the parameters set (defaults are filled in again).
    pub variants: Vec<RecordedVariant>,
    /// The robots as the game began, with their programs.
    pub robots: Vec<RecordedRobot>,
    /// What happened when it was recorded.
    pub result: RecordedResult,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedVariant {
    pub name: String,
    #[serde(default)]
    pub params: toml::Table,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedRobot {
    pub name: String,
    pub at: Pos,
    pub facing: Dir,
    pub damage: i32,
    pub lives: i32,
    pub flags: u32,
    pub archive: Pos,
    pub powered_down: bool,
    #[serde(default)]
    pub vars: Map<String, Value>,
    /// Registers 1 to 5; `null` is an empty register.
    pub program: Vec<Option<Card>>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedResult {
    pub robots: Vec<Robot>,
    pub events: Vec<Event>,
}

impl ReplayLog {
    /// The log of `scenario` as resolved (with `choices` switched on) into `end`, to be
    /// written at `log`.
    pub fn record(scenario: &Scenario, choices: &[Choice], end: &State, log: &Path) -> Self {
        ReplayLog {
            rally_replay: VERSION,
            scenario: relative_to(&scenario.path, log.parent().unwrap_or(Path::new(""))),
            seed: scenario.seed,
            registers: scenario.registers,
            end_of_turn: scenario.end_of_turn,
            variants: choices
                .iter()
                .map(|c| RecordedVariant {
                    name: c.name.clone(),
                    params: c.params.clone(),
                })
                .collect(),
            robots: scenario
                .robots
                .iter()
                .map(|r| RecordedRobot {
                    name: r.name.to_string(),
                    at: r.at,
                    facing: r.facing,
                    damage: r.damage,
                    lives: r.lives,
                    flags: r.flags,
                    archive: r.archive,
                    powered_down: r.powered_down,
                    vars: (*r.vars).clone(),
                    program: r.program.clone(),
                })
                .collect(),
            result: RecordedResult {
                robots: end.robots.clone(),
                events: end.events.clone(),
            },
        }
    }

    /// The log as its file `path` will hold it.
    pub fn text(&self, path: &Path) -> Result<String> {
        serde_json::to_string_pretty(self)
            .map(|text| text + "\n")
            .map_err(|e| Error::File {
                file: path.to_path_buf(),
                message: format!("cannot write the replay log: {e}"),
            })
    }

    pub fn read(path: &Path) -> Result<ReplayLog> {
        let source = Source::read(path)?;
        // The version first: a log of another version is not read as a broken one of this.
        let version = serde_json::from_str::<Value>(&source.text)
            .ok()
            .and_then(|v| v.get("rally_replay").cloned());
        if let Some(version) = version.filter(|v| v.as_u64() != Some(u64::from(VERSION))) {
            return Err(Error::File {
                file: path.to_path_buf(),
                message: format!(
                    "replay log version {version}, this rally reads version {VERSION}"
                ),
            });
        }
        source.parse_json("not a rally replay log")
    }

    /// The recorded game as a scenario to resolve again: the board from the scenario file as
    /// it is now, everything else from the log. It has no expectations: the recorded result
    /// is what the new one is compared with.
    pub fn scenario(&self, log: &Path) -> Result<Scenario> {
        let path = log.parent().unwrap_or(Path::new("")).join(&self.scenario);
        let mut scenario = Scenario::load(&path)?;
        scenario.seed = self.seed;
        scenario.registers = self.registers;
        scenario.end_of_turn = self.end_of_turn;
        scenario.expect.clear();
        scenario.variants = self
            .variants
            .iter()
            .map(|v| Choice {
                name: v.name.clone(),
                params: v.params.clone(),
                written: None,
            })
            .collect();
        scenario.robots = self
            .robots
            .iter()
            .map(|r| {
                let mut robot = Robot::new(r.name.as_str(), r.at, r.facing);
                robot.damage = r.damage;
                robot.lives = r.lives;
                robot.flags = r.flags;
                robot.archive = r.archive;
                robot.powered_down = r.powered_down;
                robot.vars = r.vars.clone().into();
                robot.program = r.program.clone();
                robot
            })
            .collect();
        Ok(scenario)
    }

    pub fn resolution(&self) -> Resolution {
        Resolution {
            events: self.result.events.clone(),
            robots: self.result.robots.clone(),
        }
    }
}

/// `path` as seen from the folder `base` (`../tests/x.toml`), so that a log and its scenario
/// can move together; absolute when they share nothing.
fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let absolute = |p: &Path| {
        let p = if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        };
        p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
    };
    let (path, base) = (absolute(path), absolute(base));
    let common = path
        .components()
        .zip(base.components())
        .take_while(|(a, b)| a == b)
        .count();
    if common <= 1 {
        return path;
    }
    let ups = base.components().skip(common).map(|_| Component::ParentDir);
    ups.chain(path.components().skip(common)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let scenario = dir.path().join("a/b/s.toml");
        let logs = dir.path().join("logs");
        std::fs::create_dir_all(scenario.parent().unwrap()).unwrap();
        std::fs::create_dir_all(&logs).unwrap();
        std::fs::write(&scenario, "").unwrap();
        assert_eq!(
            relative_to(&scenario, &logs),
            PathBuf::from("../a/b/s.toml")
        );
        assert_eq!(
            relative_to(&scenario, scenario.parent().unwrap()),
            PathBuf::from("s.toml")
        );
    }
}
