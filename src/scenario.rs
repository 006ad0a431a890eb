//! Scenario files (`spec/formats.md`): a board, robots with programs, how many registers to
//! resolve, and optionally what must be true afterwards. `rally run` and `rally test` use them.

use crate::board::{BoardRef, Layout, Origin};
use crate::cards::Card;
use crate::decision::{Answer, Fixed};
use crate::engine::Game;
use crate::error::{Error, Result, Source};
use crate::geometry::{Dir, Pos};
use crate::script::{RuleSet, Sources};
use crate::state::{GameState, HeldOption, Robot, LETHAL_DAMAGE, REGISTERS};
use crate::variant::Choice;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    #[serde(default)]
    description: String,
    board: BoardRef,
    #[serde(default)]
    variants: Vec<String>,
    #[serde(default)]
    variant: BTreeMap<String, toml::Table>,
    #[serde(default)]
    seed: u64,
    registers: Option<Spanned<u8>>,
    #[serde(default)]
    end_of_turn: bool,
    /// The option deck, top card first (default: every option, shuffled with the seed).
    option_deck: Option<Vec<String>>,
    #[serde(default)]
    robot: Vec<Spanned<RobotFile>>,
    #[serde(default)]
    expect: BTreeMap<String, Spanned<Expect>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct RobotFile {
    name: String,
    at: [i32; 2],
    facing: Dir,
    #[serde(default)]
    damage: i32,
    #[serde(default = "three")]
    lives: i32,
    #[serde(default)]
    flags: u32,
    archive: Option<[i32; 2]>,
    #[serde(default)]
    powered_down: bool,
    #[serde(default)]
    program: Vec<Card>,
    #[serde(default)]
    vars: Map<String, Value>,
    /// Option cards held at the start: `["brakes", { name = "ablative_coat", uses = 1 }]`.
    #[serde(default)]
    options: Vec<OptionFile>,
    /// Answers to the player's questions, by question key (`crate::decision`): one answer
    /// for every time it is asked, or a list used in order (then the default).
    #[serde(default)]
    choices: BTreeMap<String, Answer>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
enum OptionFile {
    Name(String),
    Held(HeldFile),
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct HeldFile {
    name: String,
    uses: u32,
}

fn three() -> i32 {
    3
}

/// What must be true of one robot after the scenario; only the keys given are checked.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub at: Option<[i32; 2]>,
    pub facing: Option<Dir>,
    pub damage: Option<i32>,
    pub lives: Option<i32>,
    pub flags: Option<u32>,
    pub archive: Option<[i32; 2]>,
    pub destroyed: Option<bool>,
    pub powered_down: Option<bool>,
    /// Script memory: each key given must be equal (e.g. an ice robot's speed).
    pub vars: Option<Map<String, Value>>,
    /// How many times each event was logged for this robot, by event name
    /// (`events = { option_drawn = 5, slid = 0 }`): for effects that leave no other trace.
    pub events: Option<BTreeMap<String, usize>>,
    /// The option cards held at the end, in any order.
    pub options: Option<Vec<String>>,
    /// Ammunition left per held option (`option_uses = { ablative_coat = 1 }`).
    pub option_uses: Option<BTreeMap<String, u32>>,
    /// Cards the robot would be dealt now (9 − damage, plus its options: Extra Memory).
    pub hand_size: Option<usize>,
}

/// One expectation that did not hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub robot: String,
    pub key: String,
    pub expected: String,
    pub actual: String,
}

impl Failure {
    fn missing(robot: &str) -> Failure {
        Failure {
            robot: robot.to_string(),
            key: "robot".into(),
            expected: "a robot of that name".into(),
            actual: "none".into(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Scenario {
    pub path: PathBuf,
    pub description: String,
    pub layout: Layout,
    pub robots: Vec<Robot>,
    pub seed: u64,
    pub registers: u8,
    pub end_of_turn: bool,
    pub variants: Vec<Choice>,
    pub expect: Vec<(String, Expect)>,
    /// Fixed answers: robot name → question key → answer.
    pub choices: BTreeMap<String, BTreeMap<String, Answer>>,
    /// The option deck, top card first, if the file fixes it.
    pub option_deck: Option<Vec<String>>,
}

impl Scenario {
    pub fn load(path: &Path) -> Result<Scenario> {
        let source = Source::read(path)?;
        let file: ScenarioFile = source.parse_toml()?;
        let whole = Origin {
            file: path.to_path_buf(),
            line: 1,
            column: 1,
        };
        let layout = file.board.layout(&source)?;
        let mut robots: Vec<Robot> = Vec::new();
        let mut choices = BTreeMap::new();
        for spanned in &file.robot {
            let r = spanned.get_ref();
            let at_err = |m: String| source.error_at(spanned.span().start, m);
            let at = Pos::from(r.at);
            if !(0..layout.width).contains(&at.x) || !(0..layout.height).contains(&at.y) {
                return Err(at_err(format!(
                    "robot `{}` at {at} is outside the {}×{} board",
                    r.name, layout.width, layout.height
                )));
            }
            if let Some(other) = robots.iter().find(|o| o.at == at) {
                return Err(at_err(format!(
                    "robots `{}` and `{}` both stand on {at}",
                    other.name, r.name
                )));
            }
            if robots.iter().any(|o| o.name == r.name) {
                return Err(at_err(format!("two robots are named `{}`", r.name)));
            }
            if r.program.len() > REGISTERS {
                return Err(at_err(format!(
                    "robot `{}` has {} cards; a program holds at most {REGISTERS}",
                    r.name,
                    r.program.len()
                )));
            }
            if !(0..LETHAL_DAMAGE).contains(&r.damage) {
                return Err(at_err(format!(
                    "robot `{}` has {} damage: a robot on the board has 0 to {}",
                    r.name,
                    r.damage,
                    LETHAL_DAMAGE - 1
                )));
            }
            if r.lives < 1 {
                return Err(at_err(format!(
                    "robot `{}` has {} lives: a robot on the board has at least 1",
                    r.name, r.lives
                )));
            }
            if let Some([x, y]) = r.archive {
                if !(0..layout.width).contains(&x) || !(0..layout.height).contains(&y) {
                    return Err(at_err(format!(
                        "robot `{}`'s archive [{x}, {y}] is outside the {}×{} board",
                        r.name, layout.width, layout.height
                    )));
                }
            }
            let mut robot = Robot::new(&r.name, at, r.facing);
            robot.damage = r.damage;
            robot.lives = r.lives;
            robot.flags = r.flags;
            robot.archive = r.archive.map(Pos::from).unwrap_or(at);
            robot.powered_down = r.powered_down;
            robot.vars = r.vars.clone();
            robot.program = r.program.iter().copied().map(Some).collect();
            robot.options = r
                .options
                .iter()
                .map(|o| match o {
                    OptionFile::Name(name) => HeldOption {
                        name: name.clone(),
                        uses_left: None,
                    },
                    OptionFile::Held(h) => HeldOption {
                        name: h.name.clone(),
                        uses_left: Some(h.uses),
                    },
                })
                .collect();
            if !r.choices.is_empty() {
                choices.insert(r.name.clone(), r.choices.clone());
            }
            robots.push(robot);
        }
        let longest = robots
            .iter()
            .map(|r| r.program.len())
            .max()
            .unwrap_or(0)
            .max(1) as u8;
        let registers = match &file.registers {
            Some(r) if !(1..=REGISTERS as u8).contains(r.get_ref()) => {
                return Err(source.error_at(
                    r.span().start,
                    format!("registers = {}: expected 1 to {REGISTERS}", r.get_ref()),
                ))
            }
            Some(r) => *r.get_ref(),
            None => longest,
        };
        let mut expect = Vec::new();
        for (name, e) in file.expect {
            if !robots.iter().any(|r| r.name == name) {
                let known: Vec<&str> = robots.iter().map(|r| r.name.as_str()).collect();
                return Err(source.error_at(
                    e.span().start,
                    format!(
                        "[expect.{name}]: there is no robot `{name}`{}",
                        crate::error::suggest(&name, known)
                    ),
                ));
            }
            expect.push((name, e.into_inner()));
        }
        let variants = crate::variant::choices_from(&file.variants, &file.variant)
            .map_err(|m| whole.error(m))?;
        Ok(Scenario {
            path: path.to_path_buf(),
            description: file.description,
            layout,
            robots,
            seed: file.seed,
            registers,
            end_of_turn: file.end_of_turn,
            variants,
            expect,
            choices,
            option_deck: file.option_deck,
        })
    }

    pub fn has_expectations(&self) -> bool {
        !self.expect.is_empty()
    }

    /// Where the rules come from, given the scripts and variants folders and any extra
    /// variants from the command line.
    pub fn sources(&self, scripts: &Path, variants: &Path, extra: &[String]) -> Sources {
        Sources {
            scripts: scripts.to_path_buf(),
            variants: variants.to_path_buf(),
            choices: crate::variant::with_extra(&self.variants, extra),
        }
    }

    /// A game at the scenario's starting position, not yet resolved, answering questions
    /// with the file's `choices`. Option names are checked against the loaded options; a
    /// held option without a `uses` count starts full.
    pub fn start(&self, rules: RuleSet) -> Result<Game> {
        let known = |name: &str| -> Result<Option<u32>> {
            let def = rules.option_def(name).ok_or_else(|| Error::File {
                file: self.path.clone(),
                message: format!(
                    "there is no option `{name}`{}",
                    crate::error::suggest(name, rules.options.iter().map(|o| o.name.as_str()))
                ),
            })?;
            Ok(def.uses)
        };
        let mut robots = self.robots.clone();
        for robot in &mut robots {
            for held in &mut robot.options {
                let uses = known(&held.name)?;
                held.uses_left = held.uses_left.or(uses);
            }
        }
        let mut state = GameState::new(robots, self.seed);
        if let Some(deck) = &self.option_deck {
            for name in deck {
                known(name)?;
            }
            state.option_deck = Some(deck.iter().rev().cloned().collect());
        }
        let mut game = Game::new(self.layout.clone(), state, rules)?;
        game.set_chooser(Box::new(Fixed::new(&self.choices)));
        Ok(game)
    }

    /// Resolves the scenario's registers (and end of turn) on a started game.
    pub fn resolve(&self, game: &mut Game) -> Result<()> {
        game.start_turn()?;
        for register in 1..=self.registers {
            game.run_register(register)?;
        }
        if self.end_of_turn {
            game.end_turn()?;
        }
        Ok(())
    }

    /// Every expectation that does not hold in `state`.
    pub fn check(&self, state: &GameState) -> Vec<Failure> {
        let logged = |robot: &str, what: &str| {
            state
                .events
                .iter()
                .filter(|e| e.robot.as_deref() == Some(robot) && e.what == what)
                .count()
        };
        let mut failures = Vec::new();
        for (name, e) in &self.expect {
            // Names are checked at load; a state from elsewhere (a replay) may lack one.
            let Some(robot) = state.robots.iter().find(|r| &r.name == name) else {
                failures.push(Failure::missing(name));
                continue;
            };
            let mut check = |key: &str, expected: Option<String>, actual: String| {
                if let Some(expected) = expected {
                    if expected != actual {
                        failures.push(Failure {
                            robot: name.clone(),
                            key: key.into(),
                            expected,
                            actual,
                        });
                    }
                }
            };
            let pos = |p: [i32; 2]| Pos::from(p).to_string();
            check("at", e.at.map(pos), robot.at.to_string());
            check(
                "facing",
                e.facing.map(|d| d.to_string()),
                robot.facing.to_string(),
            );
            check(
                "damage",
                e.damage.map(|d| d.to_string()),
                robot.damage.to_string(),
            );
            check(
                "lives",
                e.lives.map(|d| d.to_string()),
                robot.lives.to_string(),
            );
            check(
                "flags",
                e.flags.map(|d| d.to_string()),
                robot.flags.to_string(),
            );
            check("archive", e.archive.map(pos), robot.archive.to_string());
            check(
                "destroyed",
                e.destroyed.map(|d| d.to_string()),
                robot.destroyed.to_string(),
            );
            check(
                "powered_down",
                e.powered_down.map(|d| d.to_string()),
                robot.powered_down.to_string(),
            );
            for (what, &want) in e.events.iter().flatten() {
                let got = logged(name, what);
                if got != want {
                    failures.push(Failure {
                        robot: name.clone(),
                        key: format!("events.{what}"),
                        expected: want.to_string(),
                        actual: got.to_string(),
                    });
                }
            }
            if let Some(want) = &e.options {
                let mut want = want.clone();
                want.sort();
                let mut got: Vec<String> = robot.options.iter().map(|o| o.name.clone()).collect();
                got.sort();
                if want != got {
                    failures.push(Failure {
                        robot: name.clone(),
                        key: "options".into(),
                        expected: format!("{want:?}"),
                        actual: format!("{got:?}"),
                    });
                }
            }
            for (option, &want) in e.option_uses.iter().flatten() {
                let got = robot
                    .option(option)
                    .and_then(|i| robot.options[i].uses_left)
                    .map_or("not held or no uses".to_string(), |n| n.to_string());
                if got != want.to_string() {
                    failures.push(Failure {
                        robot: name.clone(),
                        key: format!("option_uses.{option}"),
                        expected: want.to_string(),
                        actual: got,
                    });
                }
            }
            for (key, want) in e.vars.iter().flatten() {
                let got = robot.vars.get(key).cloned().unwrap_or(Value::Null);
                if !json_equal(want, &got) {
                    failures.push(Failure {
                        robot: name.clone(),
                        key: format!("vars.{key}"),
                        expected: want.to_string(),
                        actual: got.to_string(),
                    });
                }
            }
        }
        failures.extend(self.unused_choices(state));
        failures
    }

    /// A fixed answer that was never used is a failure: the question key has a typo, or
    /// the rule under test never asked (which the test would otherwise hide).
    fn unused_choices(&self, state: &GameState) -> Vec<Failure> {
        let mut failures = Vec::new();
        for (robot, answers) in &self.choices {
            for (key, answer) in answers {
                let asked = state
                    .events
                    .iter()
                    .filter(|e| e.robot.as_deref() == Some(robot.as_str()) && e.what == "chose")
                    .filter(|e| e.detail.get("question").and_then(Value::as_str) == Some(key))
                    .count();
                if asked < answer.needed() {
                    failures.push(Failure {
                        robot: robot.clone(),
                        key: format!("choices.{key}"),
                        expected: format!("asked at least {} time(s)", answer.needed()),
                        actual: format!("asked {asked} time(s)"),
                    });
                }
            }
        }
        failures
    }

    /// The expectations that need the rules, not just the state (`hand_size`).
    pub fn check_game(&self, game: &Game) -> Result<Vec<Failure>> {
        let mut failures = Vec::new();
        for (name, e) in &self.expect {
            let Some(want) = e.hand_size else { continue };
            let Some(id) = game.state().find(name) else {
                failures.push(Failure::missing(name));
                continue;
            };
            let got = game.hand_size(id)?;
            if got != want {
                failures.push(Failure {
                    robot: name.clone(),
                    key: "hand_size".into(),
                    expected: want.to_string(),
                    actual: got.to_string(),
                });
            }
        }
        Ok(failures)
    }

    /// Every file the scenario depends on (hot reload watches them).
    pub fn files(&self) -> Vec<PathBuf> {
        let mut files = vec![self.path.clone()];
        files.extend(self.layout.files.iter().cloned());
        files
    }
}

/// JSON equality where 2 and 2.0 are the same number (TOML and Lua disagree on that).
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// Whether a `.toml` file is a scenario (it names a `board`) rather than a board, a game or
/// a mapping kept beside scenarios. A file that is not TOML at all counts, so that loading
/// it reports the mistake.
pub fn is_scenario(path: &Path) -> Result<bool> {
    let text = crate::files::read_text(path)?;
    Ok(text
        .parse::<toml::Table>()
        .ok()
        .is_none_or(|table| table.contains_key("board")))
}

/// Every `.toml` scenario under `paths` (files, or folders searched recursively), sorted.
pub fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            found.extend(crate::files::walk(path, &|p| {
                p.extension().is_some_and(|x| x == "toml")
            })?);
        } else if path.exists() {
            // A file given by name is read whatever it is (and refused if not a regular file).
            found.push(path.clone());
        } else {
            return Err(Error::File {
                file: path.clone(),
                message: "no such file or folder".into(),
            });
        }
    }
    Ok(found)
}
