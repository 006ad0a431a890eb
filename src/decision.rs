//! Decisions players make while a register or the end of a turn resolves: "two repairs or
//! an option?", "use Brakes?", "which option to scrap?". Scripts ask them with
//! `ctx:choose(robot, key, choices, info)`; whoever sits at the robot answers through one
//! interface, [`Chooser`], so the same script works in a scenario (answers fixed in the file:
//! [`Fixed`]), a simulation (bots: [`BotPolicy`]) and at the terminal (people).
//!
//! Every question has a stated default: **its first choice**. A chooser that has no answer
//! returns `None` and the engine takes the default, so a scenario that fixes nothing, or a
//! bot that has no opinion, still gives the same game every time (design.md principle 4).

use crate::state::RobotId;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};

/// The keys of the questions the turn loop itself asks (`game::questions`), for the
/// choosers that recognise them.
pub const POWER_DOWN: &str = "power_down";
pub const STAY_DOWN: &str = "stay_down";
pub const REENTER_FACING: &str = "reenter_facing";
pub const REENTER_SQUARE: &str = "reenter_square";
pub const REENTER_POWERED_DOWN: &str = "reenter_powered_down";

/// One question to one robot's player.
#[derive(Clone, Debug)]
pub struct Question {
    pub robot: RobotId,
    pub robot_name: String,
    /// What is asked, as a stable key (`double_wrench`, `brakes`, `absorb`...): scenarios
    /// fix answers by it and bots recognise it.
    pub key: String,
    /// The possible answers; the first is the default.
    pub choices: Vec<String>,
    /// The question for a person (`info.text`); may be empty.
    pub text: String,
    /// The rest of the script's `info` table, for bots (`lethal = true`, `damage = 3`).
    pub detail: Map<String, Value>,
    /// The engine is only trying something out (a bot planning its program): nobody should
    /// be asked, answer as a bot would.
    pub rehearsal: bool,
    /// The turn it is asked in.
    pub turn: u32,
}

/// What a question says: its text for a person and its detail, the hints for bots (made
/// only for a chooser that reads them: [`Chooser::reads_words`]).
pub type Words = (String, Map<String, Value>);

impl Question {
    pub fn default_answer(&self) -> &str {
        &self.choices[0]
    }
}

/// Who answers questions. `None` means "the default" (the first choice).
pub trait Chooser {
    fn choose(&mut self, question: &Question) -> Option<String>;

    /// Whether it reads a question's `text` and `detail` (a person's dialog, a bot's hints).
    /// One that answers by robot and key alone says no, and the engine does not compose
    /// them: the sentence and a bot's advice (the way to the next flag) cost a turn more
    /// than anything else about a question.
    fn reads_words(&self) -> bool {
        true
    }

    /// Whether the answer just given (or left to the default) stands for a question nobody
    /// answered in time: a table's dialog that timed out, or a replay of one. The `chose`
    /// event then says `timed_out`, so the log does not pass a default off as a choice.
    fn timed_out(&self) -> bool {
        false
    }

    /// The questions it was asked, in order, if it keeps them (a scenario's [`Fixed`]: its
    /// `asked` and `offered` expectations read them).
    fn asked(&self) -> &[Asked] {
        &[]
    }

    /// The file its answers were written in, if they were (a scenario's `choices`): an
    /// answer that is not among a question's choices is then that file's mistake, and the
    /// error names it. A chooser that picks among the choices it is offered has none.
    fn origin(&self) -> Option<&Path> {
        None
    }
}

/// One question as a scenario's chooser saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct Asked {
    pub robot: String,
    pub key: String,
    pub choices: Vec<String>,
    pub turn: u32,
}

/// Always the default: what an engine has until someone installs a chooser.
pub struct Defaults;

impl Chooser for Defaults {
    fn choose(&mut self, _: &Question) -> Option<String> {
        None
    }

    fn reads_words(&self) -> bool {
        false
    }
}

/// How bots answer: a few rules of thumb for the standard questions; for any other question,
/// the asker's own advice (`info.advice`, one of the choices: the option scripts say there
/// when a bot should use them, the turn loop which way a robot re-entering should face),
/// else the default. A bot thus understands any script's question, as cleverly as the
/// script advises.
#[derive(Clone, Debug, Default)]
pub struct BotPolicy {
    /// Per robot, the damage from which its bot powers down (a stronger bot sooner);
    /// [`BotPolicy::POWER_DOWN_AT`] for a robot not listed.
    power_down_at: Vec<i32>,
}

impl BotPolicy {
    /// The damage from which a bot powers down, unless told otherwise.
    pub const POWER_DOWN_AT: i32 = 7;

    /// Bots that power down from `power_down_at[robot]` damage.
    pub fn new(power_down_at: Vec<i32>) -> BotPolicy {
        BotPolicy { power_down_at }
    }

    fn number(q: &Question, key: &str) -> Option<i64> {
        q.detail.get(key).and_then(Value::as_i64)
    }
}

impl Chooser for BotPolicy {
    fn choose(&mut self, q: &Question) -> Option<String> {
        let has = |a: &str| q.choices.iter().any(|c| c == a);
        match q.key.as_str() {
            // Power down to shed damage once it is heavy (a bot then loses a turn).
            POWER_DOWN => {
                let at = self.power_down_at.get(q.robot).copied();
                let heavy = Self::number(q, "damage")
                    .is_some_and(|d| d >= at.unwrap_or(Self::POWER_DOWN_AT).into());
                heavy.then(|| "yes".to_string())
            }
            // Scrap an option (the first held) only to survive: §6.4.
            "absorb" if q.detail.get("lethal") == Some(&Value::Bool(true)) => {
                q.choices.get(1).cloned()
            }
            // A lightly damaged robot takes the option; a hurt one the repairs.
            "double_wrench"
                if has("option") && Self::number(q, "damage").is_some_and(|d| d <= 2) =>
            {
                Some("option".into())
            }
            // Free ammunition or a free card are always worth having.
            "chop_shop" if has("draw") => Some("draw".into()),
            _ => match q.detail.get("advice") {
                Some(Value::String(a)) if has(a) => Some(a.clone()),
                _ => None,
            },
        }
    }
}

/// One fixed answer in a scenario: the same every time, or one per asking, in order (after
/// the last, the default).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Answer {
    Always(String),
    InOrder(Vec<String>),
}

impl Answer {
    /// How many times the question must have been asked for every answer to be used.
    pub fn needed(&self) -> usize {
        match self {
            Answer::Always(_) => 1,
            Answer::InOrder(list) => list.len(),
        }
    }
}

/// Answers fixed by a scenario file (`choices = { brakes = "yes" }` in a `[[robot]]`), or
/// recorded in a game ([`Fixed::replaying`]). Anything not fixed gets the default. It keeps
/// every question it was asked (outside rehearsals), so a scenario can check what was asked
/// and offered.
pub struct Fixed {
    /// Robot name → question key → what is left to answer.
    answers: BTreeMap<String, BTreeMap<String, Given>>,
    asked: Vec<Asked>,
    /// Whether the last answer given was a recorded time-out.
    timed_out: bool,
    /// The file the answers were written in ([`Chooser::origin`]).
    origin: Option<PathBuf>,
}

/// What is left of one fixed answer.
enum Given {
    Always(String),
    /// The answers not given yet, the next first.
    InOrder(VecDeque<RecordedAnswer>),
}

/// One answer of a recorded game, in the order it was given.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedAnswer {
    pub answer: String,
    /// Nobody answered in time: the answer is the default the table took.
    pub timed_out: bool,
}

impl Fixed {
    /// `answers`: robot name → question key → answer.
    pub fn new(answers: &BTreeMap<String, BTreeMap<String, Answer>>) -> Fixed {
        let given = |answer: &Answer| match answer {
            Answer::Always(a) => Given::Always(a.clone()),
            Answer::InOrder(list) => Given::InOrder(
                list.iter()
                    .map(|a| RecordedAnswer {
                        answer: a.clone(),
                        timed_out: false,
                    })
                    .collect(),
            ),
        };
        Fixed {
            answers: answers
                .iter()
                .map(|(robot, keys)| {
                    let keys = keys.iter().map(|(k, a)| (k.clone(), given(a))).collect();
                    (robot.clone(), keys)
                })
                .collect(),
            asked: Vec::new(),
            timed_out: false,
            origin: None,
        }
    }

    /// The same answers, said to be written in `file` ([`Chooser::origin`]).
    pub fn written_in(self, file: &Path) -> Fixed {
        Fixed {
            origin: Some(file.to_path_buf()),
            ..self
        }
    }

    /// The answers of a recorded game: robot name → question key → its answers in order,
    /// each played back once, time-outs as time-outs.
    pub fn replaying(answers: BTreeMap<String, BTreeMap<String, Vec<RecordedAnswer>>>) -> Fixed {
        Fixed {
            answers: answers
                .into_iter()
                .map(|(robot, keys)| {
                    let keys = keys
                        .into_iter()
                        .map(|(key, list)| (key, Given::InOrder(list.into())))
                        .collect();
                    (robot, keys)
                })
                .collect(),
            asked: Vec::new(),
            timed_out: false,
            origin: None,
        }
    }
}

impl Chooser for Fixed {
    fn asked(&self) -> &[Asked] {
        &self.asked
    }

    fn timed_out(&self) -> bool {
        self.timed_out
    }

    fn reads_words(&self) -> bool {
        false
    }

    fn origin(&self) -> Option<&Path> {
        self.origin.as_deref()
    }

    fn choose(&mut self, q: &Question) -> Option<String> {
        self.timed_out = false;
        if !q.rehearsal {
            self.asked.push(Asked {
                robot: q.robot_name.clone(),
                key: q.key.clone(),
                choices: q.choices.clone(),
                turn: q.turn,
            });
        }
        match self.answers.get_mut(&q.robot_name)?.get_mut(&q.key)? {
            Given::Always(a) => Some(a.clone()),
            Given::InOrder(queue) => queue.pop_front().map(|r| {
                self.timed_out = r.timed_out;
                r.answer
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(key: &str, choices: &[&str]) -> Question {
        Question {
            robot: 0,
            robot_name: "A".into(),
            key: key.into(),
            choices: choices.iter().map(|c| c.to_string()).collect(),
            text: String::new(),
            detail: Map::new(),
            rehearsal: false,
            turn: 1,
        }
    }

    #[test]
    fn fixed_answers_in_order_then_default() {
        let mut answers = BTreeMap::new();
        answers.insert(
            "A".to_string(),
            BTreeMap::from([
                (
                    "brakes".to_string(),
                    Answer::InOrder(vec!["yes".into(), "no".into()]),
                ),
                ("absorb".to_string(), Answer::Always("coat".into())),
            ]),
        );
        let mut fixed = Fixed::new(&answers);
        let brakes = question("brakes", &["no", "yes"]);
        assert_eq!(fixed.choose(&brakes).as_deref(), Some("yes"));
        assert_eq!(fixed.choose(&brakes).as_deref(), Some("no"));
        assert_eq!(fixed.choose(&brakes), None);
        let absorb = question("absorb", &["no", "coat"]);
        assert_eq!(fixed.choose(&absorb).as_deref(), Some("coat"));
        assert_eq!(fixed.choose(&absorb).as_deref(), Some("coat"));
        assert_eq!(fixed.choose(&question("other", &["x"])), None);
    }

    #[test]
    fn bots_follow_the_scripts_advice_when_it_is_a_choice() {
        let mut q = question("recompile", &["no", "yes"]);
        assert_eq!(BotPolicy::default().choose(&q), None);
        q.detail
            .insert("advice".into(), Value::String("yes".into()));
        assert_eq!(BotPolicy::default().choose(&q).as_deref(), Some("yes"));
        q.detail
            .insert("advice".into(), Value::String("maybe".into()));
        assert_eq!(
            BotPolicy::default().choose(&q),
            None,
            "advice that is not a choice"
        );
    }

    #[test]
    fn bots_power_down_from_their_threshold() {
        let mut q = question("power_down", &["no", "yes"]);
        q.detail.insert("damage".into(), Value::from(6));
        assert_eq!(BotPolicy::default().choose(&q), None);
        assert_eq!(BotPolicy::new(vec![5]).choose(&q).as_deref(), Some("yes"));
        q.detail.insert("damage".into(), Value::from(7));
        assert_eq!(BotPolicy::default().choose(&q).as_deref(), Some("yes"));
    }

    #[test]
    fn bots_scrap_options_only_to_survive() {
        let mut q = question("absorb", &["no", "brakes"]);
        assert_eq!(BotPolicy::default().choose(&q), None);
        q.detail.insert("lethal".into(), Value::Bool(true));
        assert_eq!(BotPolicy::default().choose(&q).as_deref(), Some("brakes"));
    }
}
