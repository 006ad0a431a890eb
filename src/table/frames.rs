//! What the pages draw, built so that no card leaves the server before it is face up.
//!
//! A stage of the turn becomes the frames the drawing module plays (`html::view`, as in the
//! replay viewer): one per card and per step in which something happened, with the events in
//! words. The robots' programs keep only the registers revealed so far, and every card that
//! is not face up is blotted out of the events ([`Secrets`]) before they are put in words:
//! what is face up is listed (the registers revealed, the registers locked since the turn
//! began), not what is hidden, so a card no one thought of (a discarded hand, a card drawn
//! from the deck, one kept on an option) is hidden too.

use crate::board::Board;
use crate::cards::Card;
use crate::game::{Phase, Stage};
use crate::pictures::html::view::{self, EventView, FrameView};
use crate::pictures::html::Frame;
use crate::state::{Detail, Event, Robot, StepSnapshot, REGISTERS};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::{BTreeSet, HashSet};

/// What a face-down card reads as in the events the pages get.
pub const FACE_DOWN: &str = "a face-down card";

/// What the answer to a hidden question reads as in the events the pages get.
pub const HIDDEN_ANSWER: &str = "a hidden answer";

/// The cards the pages may see, as events spell them (`move2@700`): every other card in an
/// event is face down.
pub struct Secrets(HashSet<String>);

impl Secrets {
    /// The cards in registers 1..=`revealed` of `now` (the robots once the stage is over)
    /// and the `locked` ones (face up since the turn began).
    pub fn new<'a>(
        now: &'a [Robot],
        revealed: usize,
        locked: impl IntoIterator<Item = &'a Card>,
    ) -> Secrets {
        let shown = now
            .iter()
            .flat_map(|r| r.program.iter().take(revealed).flatten())
            .chain(locked);
        Secrets(shown.map(Card::to_string).collect())
    }

    /// Whether `text` is a dealt card (`move2@700`: a card with its priority) not face up.
    fn face_down(&self, text: &str) -> bool {
        text.contains('@') && Card::parse(text).is_ok() && !self.0.contains(text)
    }

    /// `e` with every face-down card in its details replaced by [`FACE_DOWN`], and the
    /// answer to a hidden question (`ctx:choose`'s `hidden = true`) by [`HIDDEN_ANSWER`].
    pub fn blot(&self, e: &Event) -> Event {
        let hidden = e.what == "chose" && e.detail.get("hidden") == Some(&Value::Bool(true));
        let mut detail = Detail::new();
        for (key, value) in e.detail.iter() {
            let value = match key {
                "answer" | "default" if hidden => Value::String(HIDDEN_ANSWER.into()),
                _ => self.blot_value(value),
            };
            detail.insert(key.to_string(), value);
        }
        Event {
            detail,
            ..e.clone()
        }
    }

    fn blot_value(&self, value: &Value) -> Value {
        match value {
            Value::String(s) if self.face_down(s) => Value::String(FACE_DOWN.into()),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.blot_value(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.blot_value(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

/// `robots` as every page may see them: their programs cut to registers 1..=`revealed` (the
/// later ones empty), and of their script vars only the `public` ones (a script's
/// `public_vars`; the others reach the robot's own seat alone, in its state).
fn face_up(robots: &[Robot], revealed: usize, public: &BTreeSet<String>) -> Vec<Robot> {
    robots
        .iter()
        .map(|r| Robot {
            program: (0..REGISTERS)
                .map(|i| r.program.get(i).copied().flatten().filter(|_| i < revealed))
                .collect(),
            vars: std::sync::Arc::new(
                r.vars
                    .iter()
                    .filter(|(k, _)| public.contains(*k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            ),
            ..r.clone()
        })
        .collect()
}

/// What the rules say about telling a stage to every page: the robot vars all may see (the
/// scripts' `public_vars`) and the sentences of the scripts' events.
pub struct Telling<'a> {
    pub public: &'a BTreeSet<String>,
    pub sentences: &'a crate::text::sentence::Sentences,
}

/// The `stage` message every page gets after a stage of turn `turn` (the end of a turn
/// already counts the next): its label, the cards revealed in a register, and its frames.
/// `before` are the robots as the pages last saw them, `now` the robots after the stage.
pub fn stage(
    board: &Board,
    telling: &Telling,
    (seq, turn): (u64, u32),
    stage: &Stage,
    before: &[Robot],
    now: &[Robot],
    secrets: &Secrets,
) -> (String, Box<RawValue>) {
    let Telling { public, sentences } = *telling;
    let (phase, revealed) = match stage {
        Stage::Programmed { .. } => (Phase::Program, 0),
        Stage::Register { register, .. } => (Phase::Register(*register), *register as usize),
        Stage::EndOfTurn { .. } => (Phase::EndOfTurn, REGISTERS),
    };
    // The deal's `programmed` events are whole programs: nothing in them is face up yet.
    // Declining power down is no news.
    let events: Vec<Event> = stage
        .events()
        .iter()
        .filter(|e| e.what != "programmed" && !declined_power_down(e))
        .map(|e| secrets.blot(e))
        .collect();
    let mut frames = vec![Frame::of_phase(
        turn,
        phase,
        face_up(before, revealed, public),
        Vec::new(),
    )];
    match stage {
        Stage::Register {
            register, steps, ..
        } => {
            let steps: Vec<StepSnapshot> = steps
                .iter()
                .map(|s| StepSnapshot {
                    robots: face_up(&s.robots, revealed, public),
                    ..s.clone()
                })
                .collect();
            frames.extend(crate::pictures::html::register_frames(
                turn,
                *register,
                &steps,
                &events,
                face_up(now, revealed, public),
            ));
        }
        _ => frames.push(Frame::of_phase(
            turn,
            phase,
            face_up(now, revealed, public),
            events,
        )),
    }
    let views: Vec<FrameView> = view::views(board, &frames, sentences).split_off(1);
    let register = match phase {
        Phase::Register(r) => r,
        _ => 0,
    };
    let revealed = now
        .iter()
        .filter(|_| register > 0)
        .filter_map(|r| {
            r.card(register).map(|card| Revealed {
                robot: &r.name,
                card,
            })
        })
        .collect();
    let label = match phase {
        Phase::Register(r) => format!("Register {r}"),
        Phase::EndOfTurn => "End of turn".into(),
        _ => "Start".into(),
    };
    told(
        seq,
        turn,
        &format!("Turn {turn} · {label}"),
        register,
        revealed,
        &views,
    )
}

/// The message every page gets after the host's debug panel changed the game between two
/// stages (`events`, the host's, tell what): one frame, from the robots as the pages last
/// saw them (`before`) to `now`, with `revealed` registers face up.
pub fn host(
    board: &Board,
    telling: &Telling,
    (seq, turn): (u64, u32),
    events: &[Event],
    (before, now): (&[Robot], &[Robot]),
    (revealed, secrets): (usize, &Secrets),
) -> (String, Box<RawValue>) {
    let events = events.iter().map(|e| secrets.blot(e)).collect();
    let frame = |robots: &[Robot], events| {
        let mut f = Frame::of_phase(
            turn,
            Phase::Program,
            face_up(robots, revealed, telling.public),
            events,
        );
        f.moment.id = format!("t{turn}host{seq}");
        f.moment.label = "Host".into();
        f
    };
    let frames = [frame(before, Vec::new()), frame(now, events)];
    let views = view::views(board, &frames, telling.sentences).split_off(1);
    told(
        seq,
        turn,
        &format!("Turn {turn} · Host"),
        0,
        Vec::new(),
        &views,
    )
}

/// A stage's message and its entry in the turn log, from its frames.
fn told(
    seq: u64,
    turn: u32,
    label: &str,
    register: u8,
    revealed: Vec<Revealed>,
    views: &[FrameView],
) -> (String, Box<RawValue>) {
    // The turn log's entry: what the pages write under "What happened", from the same
    // (blotted) events.
    let entry = LogEntry {
        seq,
        label,
        steps: views
            .iter()
            .map(|v| LogStep {
                step: v.moment.label.split_once(" · ").map_or("", |(_, s)| s),
                acting: v.moment.acting.as_deref(),
                events: &v.events,
            })
            .collect(),
    };
    let entry = serde_json::value::to_raw_value(&entry).expect("log entries serialize");
    // Serialized straight from the views: a turn's stages are most of what the table thread
    // builds, and going through `serde_json::Value` cost as much again.
    let message = serde_json::to_string(&StageMessage {
        kind: "stage",
        seq,
        turn,
        label,
        register,
        revealed,
        frames: views,
    })
    .expect("stages serialize");
    (message, entry)
}

/// A stage in the table's turn log (the `log` frame a page gets when it connects).
#[derive(Serialize)]
struct LogEntry<'a> {
    /// The stage's number in the game, as in its `stage` message.
    seq: u64,
    label: &'a str,
    steps: Vec<LogStep<'a>>,
}

#[derive(Serialize)]
struct LogStep<'a> {
    /// The frame's step (`Ann's card`, `belts`...), empty for a stage's only frame.
    step: &'a str,
    acting: Option<&'a str>,
    events: &'a [EventView],
}

/// The `stage` message.
#[derive(Serialize)]
struct StageMessage<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    /// The stage's number in the game (1, 2...): a page shows each once.
    seq: u64,
    turn: u32,
    label: &'a str,
    register: u8,
    /// The register's cards, face up now.
    revealed: Vec<Revealed<'a>>,
    frames: &'a [FrameView],
}

#[derive(Serialize)]
struct Revealed<'a> {
    robot: &'a str,
    card: Card,
}

/// A damaged robot not powering down: asked of every damaged robot every turn, and no news
/// at a table (players announce power down; they do not announce not doing it).
fn declined_power_down(e: &Event) -> bool {
    e.what == "chose"
        && e.detail.get("question").and_then(Value::as_str) == Some(crate::decision::POWER_DOWN)
        && e.detail.get("answer").and_then(Value::as_str) == Some("no")
}

/// The robots as they stand, for the state every page gets: no paths, no programs (the
/// stages show the cards as they are revealed; the seats show the locked ones).
/// Serialized once for every page's state frame. `winner`: the game's, marked on the board.
pub fn standing(
    board: &Board,
    turn: u32,
    robots: &[Robot],
    public: &BTreeSet<String>,
    winner: Option<&str>,
) -> Box<RawValue> {
    let robots = face_up(robots, 0, public);
    let frame = Frame::of_phase(turn, Phase::Program, robots, Vec::new());
    let mut view = view::views(board, &[frame], &Default::default())
        .pop()
        .expect("a view per frame");
    view.winner = winner.map(str::to_string);
    serde_json::value::to_raw_value(&view).expect("views serialize")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Robot;
    use serde_json::json;

    fn card(text: &str) -> Card {
        Card::parse(text).unwrap()
    }

    #[test]
    fn only_face_up_cards_stay_in_the_events() {
        let mut ann = Robot::new(
            "Ann",
            crate::geometry::Pos::new(0, 0),
            crate::geometry::Dir::N,
        );
        ann.program = [
            "move1@100",
            "move2@200",
            "move3@300",
            "back@400",
            "left@500",
        ]
        .iter()
        .map(|c| Some(card(c)))
        .collect();
        let locked = [card("right@80")];
        let secrets = Secrets::new(std::slice::from_ref(&ann), 2, &locked);
        let mut detail = Detail::new();
        detail.insert("card", json!("move2@200"));
        detail.insert("to", json!("move3@300"));
        detail.insert("program", json!(["move1@100", "back@400", "uturn@10"]));
        detail.insert("options", json!({"kept": "left@500"}));
        // A card nobody holds any more (a discarded hand), a locked one, words.
        detail.insert(
            "discarded",
            json!(["move3@830", "right@80", "move2", "recompile"]),
        );
        let e = Event {
            turn: 1,
            register: 2,
            segment: "robots_move".into(),
            robot: Some("Ann".into()),
            what: "card_swapped".into(),
            detail,
        };
        let blotted = secrets.blot(&e);
        assert_eq!(
            blotted.detail.get("card"),
            Some(&json!("move2@200")),
            "face up"
        );
        assert_eq!(
            blotted.detail.get("to"),
            Some(&json!(FACE_DOWN)),
            "register 3"
        );
        assert_eq!(
            blotted.detail.get("program"),
            Some(&json!(["move1@100", FACE_DOWN, FACE_DOWN])),
            "register 4 and the hand's leftover"
        );
        assert_eq!(
            blotted.detail.get("options"),
            Some(&json!({"kept": FACE_DOWN}))
        );
        assert_eq!(
            blotted.detail.get("discarded"),
            Some(&json!([FACE_DOWN, "right@80", "move2", "recompile"])),
            "any card not face up, whoever held it"
        );
    }
    #[test]
    fn the_answer_to_a_hidden_question_is_hidden() {
        let secrets = Secrets::new(&[], 0, &[]);
        let chose = |hidden: bool| {
            let mut detail = crate::detail! {"answer" => "4", "default" => false, "question" => "dual_processor"};
            if hidden {
                detail.insert("hidden", true);
            }
            Event {
                turn: 1,
                register: 0,
                segment: "".into(),
                robot: Some("Ann".into()),
                what: "chose".into(),
                detail,
            }
        };
        let blotted = secrets.blot(&chose(true));
        assert_eq!(blotted.detail.get("answer"), Some(&json!(HIDDEN_ANSWER)));
        assert_eq!(blotted.detail.get("default"), Some(&json!(HIDDEN_ANSWER)));
        assert_eq!(
            secrets.blot(&chose(false)).detail.get("answer"),
            Some(&json!("4"))
        );
    }

    #[test]
    fn declining_power_down_is_no_news_announcing_it_is() {
        let chose = |question: &str, answer: &str| {
            let mut detail = Detail::new();
            detail.insert("question", json!(question));
            detail.insert("answer", json!(answer));
            Event {
                turn: 1,
                register: 0,
                segment: "".into(),
                robot: Some("Ann".into()),
                what: "chose".into(),
                detail,
            }
        };
        assert!(declined_power_down(&chose("power_down", "no")));
        assert!(!declined_power_down(&chose("power_down", "yes")));
        assert!(!declined_power_down(&chose("stay_down", "no")));
    }
}
