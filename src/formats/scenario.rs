//! Scenario files (`docs/formats.md`): a board, robots with programs, how many registers to
//! resolve, and optionally what must be true afterwards. `rally run` and `rally test` use them.
//! This module reads a file and checks a state against its expectations; running one (a game
//! at its start, its registers or whole turns) is game/scenario.rs's `impl Scenario`.

use crate::board::{BoardRef, Layout};
use crate::cards::Card;
use crate::decision::Answer;
use crate::error::{Error, Result};
use crate::files::Source;
use crate::geometry::{Dir, Pos};
use crate::script::variant::Choice;
use crate::script::{Project, Sources};
use crate::state::{HeldOption, Robot, State, LETHAL_DAMAGE, REGISTERS};
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
    variants: crate::script::variant::Names,
    #[serde(default)]
    variant: crate::script::variant::Settings,
    #[serde(default)]
    seed: u64,
    registers: Option<Spanned<u8>>,
    /// Default false; with `turns`, true.
    end_of_turn: Option<bool>,
    /// Whole turns to play through the game's turn loop (deal, program, registers, end of
    /// turn); absent: one turn's registers on the programs as given (the contract).
    turns: Option<Spanned<u32>>,
    /// The top of the program deck after each deal, first drawn first (Recompile, Abort
    /// Switch, Scrambler...); below it the rest of the deck, shuffled with the seed.
    deck: Option<Vec<Card>>,
    /// The option deck, top card first (default: every option, shuffled with the seed).
    option_deck: Option<Vec<String>>,
    #[serde(default)]
    robot: Vec<Spanned<RobotFile>>,
    #[serde(default)]
    expect: BTreeMap<String, Spanned<Expect>>,
    /// Expectations after the end of a turn: `[after_turn.1.A]`.
    #[serde(default)]
    after_turn: BTreeMap<Spanned<String>, BTreeMap<String, Spanned<Expect>>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct RobotFile {
    name: String,
    at: [i32; 2],
    /// Default: the facing of a start square it stands on (`start`'s `facing`), else north.
    facing: Option<Dir>,
    #[serde(default)]
    damage: i32,
    #[serde(default = "three")]
    lives: i32,
    #[serde(default)]
    flags: u32,
    archive: Option<[i32; 2]>,
    #[serde(default)]
    powered_down: bool,
    /// Its dock number: robots are put in dock order, the order every rule that says "dock
    /// order" or "listed order" follows (rules.md §9.2 #40). Given for all robots or none;
    /// without it, the order they are listed in.
    dock: Option<u32>,
    #[serde(default)]
    program: Vec<Slot>,
    /// With `turns`: the cards for the unlocked registers, one list per turn.
    programs: Option<Vec<Vec<Slot>>>,
    /// With `turns`: the cards dealt, one list per turn (default: that turn's program).
    hands: Option<Vec<Vec<Card>>>,
    /// With `turns`: the cards in the registers locked at the start, in register order
    /// (default: the top of the deck, §7.4.5).
    locked: Option<Vec<Card>>,
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

/// One register of a program in a scenario file: a card, or `-` for a register left empty
/// (the robot idles there).
#[derive(Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(try_from = "String")]
pub struct Slot(pub Option<Card>);

impl TryFrom<String> for Slot {
    type Error = String;
    fn try_from(text: String) -> std::result::Result<Slot, String> {
        if text.trim() == "-" {
            Ok(Slot(None))
        } else {
            Card::parse(&text).map(|c| Slot(Some(c)))
        }
    }
}

/// The most turns a scenario may play (a scenario is one situation, not a whole game).
pub const MAX_TURNS: u32 = 50;

/// A robot's programs for a scenario of `turns` turns (none without `turns`); the per-turn
/// keys are refused without it.
fn plan(r: &RobotFile, turns: Option<u32>) -> std::result::Result<Plan, String> {
    let Some(turns) = turns else {
        for (key, given) in [
            ("programs", r.programs.is_some()),
            ("hands", r.hands.is_some()),
            ("locked", r.locked.is_some()),
        ] {
            if given {
                return Err(format!(
                    "robot `{}`: `{key}` needs `turns = N` (a scenario of several turns)",
                    r.name
                ));
            }
        }
        return Ok(Plan::default());
    };
    let programs = match (&r.programs, r.program.is_empty()) {
        (Some(_), false) => {
            return Err(format!(
            "robot `{}`: give `program` (the first turn) or `programs` (one per turn), not both",
            r.name
        ))
        }
        (Some(p), true) => p.clone(),
        (None, _) => vec![r.program.clone()],
    };
    let hands = r.hands.clone().unwrap_or_default();
    for (what, count) in [("programs", programs.len()), ("hands", hands.len())] {
        if count > turns as usize {
            return Err(format!(
                "robot `{}`: {count} {what} for {turns} turn(s)",
                r.name
            ));
        }
    }
    if let Some(p) = programs.iter().find(|p| p.len() > REGISTERS) {
        return Err(format!(
            "robot `{}`: a program of {} cards; a program holds at most {REGISTERS}",
            r.name,
            p.len()
        ));
    }
    Ok(Plan {
        programs,
        hands,
        locked: r.locked.clone().unwrap_or_default(),
    })
}

/// `[expect.NAME]` tables, each naming a robot of the scenario.
fn expectations(
    table: &str,
    tables: BTreeMap<String, Spanned<Expect>>,
    robots: &[Robot],
    source: &Source,
) -> Result<Vec<(String, Expect)>> {
    let mut expect = Vec::new();
    for (name, e) in tables {
        if !robots.iter().any(|r| *r.name == *name) {
            let known: Vec<&str> = robots.iter().map(|r| &*r.name).collect();
            return Err(source.error_at(
                e.span().start,
                format!(
                    "[{table}.{name}]: there is no robot `{name}`{}",
                    crate::error::suggest(&name, known)
                ),
            ));
        }
        expect.push((name, e.into_inner()));
    }
    Ok(expect)
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
    /// The program cards set aside on its options, by key (`kept = { flywheel = "move3" }`);
    /// `{}`: none.
    pub kept: Option<BTreeMap<String, Card>>,
    /// Its registers, `"-"` for an empty one (`program = ["move1@490", "-", ...]`).
    pub program: Option<Vec<String>>,
    /// Whether its player was asked each question, by key: `true` (at least once), `false`
    /// (never: a "may not" rule), or how many times (`asked = { power_down = false }`).
    pub asked: Option<BTreeMap<String, Times>>,
    /// The choices each question offered, in order, the default first: one list that every
    /// asking offered, or one list per asking (`offered = { fire_control = ["register",
    /// "brakes"] }`). A question never asked fails it.
    pub offered: Option<BTreeMap<String, Offered>>,
}

/// How often a question must have been asked (`asked`).
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum Times {
    Ever(bool),
    Exactly(usize),
}

/// What a question must have offered (`offered`).
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum Offered {
    Every(Vec<String>),
    Each(Vec<Vec<String>>),
}

/// The `asked` and `offered` expectations of `expect` against the questions a scenario's
/// chooser was asked (`asked`: in order, of the turns the expectations are about).
pub(crate) fn check_questions(
    expect: &[(String, Expect)],
    asked: &[crate::decision::Asked],
) -> Vec<Failure> {
    let mut failures = Vec::new();
    for (name, e) in expect {
        let of = |key: &str| -> Vec<&Vec<String>> {
            asked
                .iter()
                .filter(|a| &a.robot == name && a.key == key)
                .map(|a| &a.choices)
                .collect()
        };
        let mut fail = |key: String, expected: String, actual: String| {
            failures.push(Failure {
                robot: name.clone(),
                key,
                expected,
                actual,
            })
        };
        for (key, want) in e.asked.iter().flatten() {
            let n = of(key).len();
            let (ok, expected) = match want {
                Times::Ever(true) => (n > 0, "asked".to_string()),
                Times::Ever(false) => (n == 0, "never asked".to_string()),
                Times::Exactly(k) => (n == *k, format!("asked {k} time(s)")),
            };
            if !ok {
                fail(
                    format!("asked.{key}"),
                    expected,
                    format!("asked {n} time(s)"),
                );
            }
        }
        for (key, want) in e.offered.iter().flatten() {
            let got = of(key);
            let shown = |lists: &[&Vec<String>]| {
                let lists: Vec<String> = lists
                    .iter()
                    .map(|l| format!("[{}]", l.join(", ")))
                    .collect();
                if lists.is_empty() {
                    "never asked".to_string()
                } else {
                    lists.join(" ")
                }
            };
            let (ok, expected) = match want {
                Offered::Every(list) => (
                    !got.is_empty() && got.iter().all(|g| *g == list),
                    format!("[{}] every time", list.join(", ")),
                ),
                Offered::Each(lists) => (
                    got.len() == lists.len() && got.iter().zip(lists).all(|(g, w)| *g == w),
                    shown(&lists.iter().collect::<Vec<_>>()),
                ),
            };
            if !ok {
                fail(format!("offered.{key}"), expected, shown(&got));
            }
        }
    }
    failures
}

/// One expectation that did not hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub robot: String,
    pub key: String,
    pub expected: String,
    pub actual: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "robot {}: {}: expected {}, got {}",
            self.robot, self.key, self.expected, self.actual
        )
    }
}

/// What a robot does in a scenario of several turns.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Per turn, the cards for its unlocked registers, in order (`None`: `-`, that register
    /// stays empty).
    pub programs: Vec<Vec<Slot>>,
    /// Per turn, the cards it is dealt, if the file says (else the turn's program).
    pub hands: Vec<Vec<Card>>,
    /// The cards in its locked registers at the start.
    pub locked: Vec<Card>,
}

impl Failure {
    pub(crate) fn missing(robot: &str) -> Failure {
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
    /// The robots (by index) given no `facing`: they face as the start square they stand on
    /// says, once the board is compiled, else north.
    pub unfaced: Vec<usize>,
    pub seed: u64,
    pub registers: u8,
    pub end_of_turn: bool,
    pub variants: Vec<Choice>,
    pub expect: Vec<(String, Expect)>,
    /// Fixed answers: robot name → question key → answer.
    pub choices: BTreeMap<String, BTreeMap<String, Answer>>,
    /// The option deck, top card first, if the file fixes it.
    pub option_deck: Option<Vec<String>>,
    /// Whole turns to play (`turns = N`), or `None`: the registers of one turn.
    pub turns: Option<u32>,
    /// Per robot (in order), its programs for each turn.
    pub plans: Vec<Plan>,
    /// The top of the program deck, first drawn first.
    pub deck: Vec<Card>,
    /// Expectations after the end of turn N.
    pub after_turn: Vec<(u32, Vec<(String, Expect)>)>,
}

impl Scenario {
    pub fn load(path: &Path) -> Result<Scenario> {
        let source = Source::read(path)?;
        let file: ScenarioFile = source.parse_toml()?;
        let layout = file.board.layout(&source)?;
        let turns = match &file.turns {
            Some(t) if !(1..=MAX_TURNS).contains(t.get_ref()) => {
                return Err(source.error_at(
                    t.span().start,
                    format!("turns = {}: expected 1 to {MAX_TURNS}", t.get_ref()),
                ))
            }
            Some(t) => Some(*t.get_ref()),
            None => None,
        };
        let mut robots: Vec<Robot> = Vec::new();
        let mut unfaced = Vec::new();
        let mut plans = Vec::new();
        let mut choices = BTreeMap::new();
        let mut listed: Vec<&Spanned<RobotFile>> = file.robot.iter().collect();
        let docked = listed.iter().filter(|r| r.get_ref().dock.is_some()).count();
        if docked > 0 {
            if let Some(r) = listed.iter().find(|r| r.get_ref().dock.is_none()) {
                return Err(source.error_at(
                    r.span().start,
                    format!(
                        "robot `{}` has no `dock`: give every robot a dock number, or none",
                        r.get_ref().name
                    ),
                ));
            }
            listed.sort_by_key(|r| r.get_ref().dock);
            if let Some(w) = listed
                .windows(2)
                .find(|w| w[0].get_ref().dock == w[1].get_ref().dock)
            {
                return Err(source.error_at(
                    w[1].span().start,
                    format!(
                        "robots `{}` and `{}` both have dock {}",
                        w[0].get_ref().name,
                        w[1].get_ref().name,
                        w[1].get_ref().dock.unwrap_or_default()
                    ),
                ));
            }
        }
        for spanned in listed {
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
            if robots.iter().any(|o| *o.name == *r.name) {
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
            plans.push(plan(r, turns).map_err(&at_err)?);
            if r.facing.is_none() {
                unfaced.push(robots.len());
            }
            let mut robot = Robot::new(r.name.as_str(), at, r.facing.unwrap_or(Dir::N));
            robot.damage = r.damage;
            robot.lives = r.lives;
            robot.flags = r.flags;
            robot.archive = r.archive.map(Pos::from).unwrap_or(at);
            robot.powered_down = r.powered_down;
            robot.vars = r.vars.clone().into();
            robot.program = r.program.iter().map(|s| s.0).collect();
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
            None if turns.is_some() => REGISTERS as u8,
            None => longest,
        };
        let mut after_turn = Vec::new();
        for (turn, table) in file.after_turn {
            let at = |m: String| source.error_at(turn.span().start, m);
            let Some(last) = turns else {
                return Err(at(
                    "[after_turn.N]: expectations after a turn need `turns = N`".into(),
                ));
            };
            let n: u32 = turn
                .get_ref()
                .parse()
                .ok()
                .filter(|n| (1..=last).contains(n))
                .ok_or_else(|| {
                    at(format!(
                        "[after_turn.{}]: expected a turn from 1 to {last}",
                        turn.get_ref()
                    ))
                })?;
            let label = format!("after_turn.{n}");
            after_turn.push((n, expectations(&label, table, &robots, &source)?));
        }
        after_turn.sort_by_key(|(n, _)| *n);
        let expect = expectations("expect", file.expect, &robots, &source)?;
        let variants =
            crate::script::variant::choices_from(&file.variants, &file.variant, &source)?;
        Ok(Scenario {
            path: path.to_path_buf(),
            description: file.description,
            layout,
            robots,
            unfaced,
            seed: file.seed,
            registers,
            end_of_turn: file.end_of_turn.unwrap_or(turns.is_some()),
            variants,
            expect,
            choices,
            option_deck: file.option_deck,
            turns,
            plans,
            deck: file.deck.unwrap_or_default(),
            after_turn,
        })
    }

    pub fn has_expectations(&self) -> bool {
        !self.expect.is_empty() || !self.after_turn.is_empty()
    }

    /// Where the rules come from: the project's layers, the scenario's variants and any
    /// extra variants from the command line.
    pub fn sources(&self, project: &Project, extra: &[String]) -> Sources {
        Sources {
            project: project.clone(),
            choices: crate::script::variant::with_extra(&self.variants, extra),
        }
    }

    /// Every expectation that does not hold in `state`, and every fixed answer never used.
    pub fn check(&self, state: &State) -> Vec<Failure> {
        let mut failures = self.check_robots(&self.expect, state);
        failures.extend(self.unused_choices(state));
        failures
    }

    /// The expectations `expect` that do not hold in `state`.
    pub(crate) fn check_robots(&self, expect: &[(String, Expect)], state: &State) -> Vec<Failure> {
        let logged = |robot: &str, what: &str| {
            state
                .events
                .iter()
                .filter(|e| e.robot.as_deref() == Some(robot) && e.what == what)
                .count()
        };
        let mut failures = Vec::new();
        for (name, e) in expect {
            // Names are checked at load; a state from elsewhere (a replay) may lack one.
            let Some(robot) = state.robots.iter().find(|r| *r.name == **name) else {
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
            if let Some(want) = &e.kept {
                let shown = |cards: Vec<(&String, &Card)>| {
                    let entries: Vec<String> =
                        cards.iter().map(|(k, c)| format!("{k} = {c}")).collect();
                    format!("{{ {} }}", entries.join(", "))
                };
                let got: Vec<(&String, &Card)> =
                    robot.kept.iter().map(|(k, v)| (k, &v.card)).collect();
                let (expected, actual) = (shown(want.iter().collect()), shown(got));
                if expected != actual {
                    failures.push(Failure {
                        robot: name.clone(),
                        key: "kept".into(),
                        expected,
                        actual,
                    });
                }
            }
            if let Some(want) = &e.program {
                let got: Vec<String> = (0..REGISTERS)
                    .map(|i| {
                        robot
                            .program
                            .get(i)
                            .copied()
                            .flatten()
                            .map_or("-".to_string(), |c| c.to_string())
                    })
                    .collect();
                if *want != got {
                    failures.push(Failure {
                        robot: name.clone(),
                        key: "program".into(),
                        expected: want.join(" "),
                        actual: got.join(" "),
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
        failures
    }

    /// A fixed answer that was never used is a failure: the question key has a typo, or
    /// the rule under test never asked (which the test would otherwise hide).
    fn unused_choices(&self, state: &State) -> Vec<Failure> {
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
