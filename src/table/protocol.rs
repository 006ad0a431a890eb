//! What browsers and the table say to each other over the WebSocket: JSON objects with a
//! `type`. Messages from a browser are parsed strictly here (size, JSON, known type, known
//! fields, a card's spelling) before anything reaches the table; whether a message is
//! allowed *now* (the card is in your hand, it is your turn to answer) is the table thread's
//! business (`table::run`), since only it knows the game.
//!
//! Frames to a browser are built per connection: a seat's frame carries its own hand and
//! program and nobody else's ([`View`]).

use crate::cards::Card;
use crate::geometry::{Dir, Pos};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The largest message a browser may send: a message of the protocol is well under 200
/// bytes; anything near this is a mistake or an attack.
pub const MAX_MESSAGE: usize = 4096;

/// A message from a browser, checked for shape.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Incoming {
    /// Put a card from the hand into an empty register (1..=5).
    Place { register: u8, card: CardText },
    /// Take the card out of a register.
    Clear { register: u8 },
    /// Move the card in register `from` to register `to` (swapping with the card there).
    Move { from: u8, to: u8 },
    /// Announce (or take back) power down for the next turn.
    PowerDown { on: bool },
    /// The program is complete.
    Ready {},
    /// Take Ready back: accepted while the table still waits for another seat.
    Unready {},
    /// The answer to question `question` (one of its choices). `quiet` (an optional
    /// question declined, its default): take the default without asking again for the
    /// rest of this turn (`"turn"`) or of the game (`"game"`).
    Answer {
        question: u64,
        choice: String,
        #[serde(default)]
        quiet: Option<Quiet>,
    },
    /// The page shows question `question` now (it has played the board up to it): the
    /// player's time to answer starts again from here, once.
    Shown { question: u64 },
    /// Host: start the game now; seats nobody has taken are played by bots.
    Start {},
    /// A spectator takes seat `seat` (its index in `seats`), free (nobody has taken it), as
    /// `name`: the connection plays it from now on and is told the seat's token.
    Sit { seat: usize, name: NameText },
    /// A seat's player gives their name.
    Name { name: NameText },
    /// A line in the table's chat (a seat or the host).
    Chat { text: ChatText },
    /// Host: the name of seat `seat`'s player.
    Rename { seat: usize, name: NameText },
    /// Host: the person at seat `seat` leaves it: its link is replaced (the old one stops
    /// working) and the seat is free; a bot plays it until someone sits down.
    Kick { seat: usize },
    /// Host: seats `seat` and `to` change places: their players, names and links (each link
    /// then plays the other robot).
    MoveSeat { seat: usize, to: usize },
    /// Host: a new game on this table once this one is over, the same seats and links.
    Rematch {},
    /// Host: table settings. Absent fields stay as they are.
    Settings {
        /// Seconds a seat may be empty during a decision before a bot decides for it
        /// (0: wait for the player).
        bot_after: Option<u64>,
        /// Seconds a player has to answer a question before the default is taken.
        choice_timeout: Option<u64>,
        /// The classic timer: seconds the last player has once all others are ready
        /// (0: off).
        timer: Option<u64>,
    },
    /// Host, the debug panel (`thread::debug`): stop the table at the next stage boundary.
    Pause {},
    /// Host: play on from where the table paused.
    Resume {},
    /// Host: take back the last debug action since the table paused.
    Undo {},
    /// Host: back to the start of `register` (1..=5) of `turn`, or of the turn itself
    /// (`register` 0, before the deal), to play it again under the rules loaded now.
    Rewind { turn: u32, register: u8 },
    /// Host: change a robot (absent fields stay as they are); `at` on a destroyed robot
    /// puts it back on the board.
    Edit {
        robot: String,
        at: Option<Pos>,
        facing: Option<Dir>,
        damage: Option<i32>,
        lives: Option<i32>,
        flags: Option<u32>,
        archive: Option<Pos>,
    },
    /// Host: give a robot an option card (`give`), or take one away.
    #[serde(rename = "option")]
    OptionCard {
        robot: String,
        option: String,
        give: bool,
    },
    /// Host: put a card of the turn's deck into one of a robot's registers still to play,
    /// or (`card` null) take the card out, back into the deck.
    #[serde(rename = "card")]
    ProgramCard {
        robot: String,
        register: u8,
        card: Option<CardText>,
    },
}

impl Incoming {
    /// Only the host may send these.
    pub fn is_host_action(&self) -> bool {
        matches!(
            self,
            Incoming::Start {}
                | Incoming::Settings { .. }
                | Incoming::Rename { .. }
                | Incoming::Kick { .. }
                | Incoming::MoveSeat { .. }
                | Incoming::Rematch {}
        ) || self.is_debug()
    }

    /// The debug panel's actions (host only).
    pub fn is_debug(&self) -> bool {
        matches!(
            self,
            Incoming::Pause {}
                | Incoming::Resume {}
                | Incoming::Undo {}
                | Incoming::Rewind { .. }
                | Incoming::Edit { .. }
                | Incoming::OptionCard { .. }
                | Incoming::ProgramCard { .. }
        )
    }
}

/// How long a declined optional question stays unasked (`Incoming::Answer`'s `quiet`).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Quiet {
    Turn,
    Game,
}

/// A card as a browser names it (`move2@700`), checked for spelling when the message is read.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(try_from = "String")]
pub struct CardText(pub Card);

impl TryFrom<String> for CardText {
    type Error = String;
    fn try_from(text: String) -> Result<CardText, String> {
        let card = Card::parse(&text)?;
        if card.priority.is_none() {
            return Err(format!(
                "card `{text}` needs its priority (`{text}@PRIORITY`)"
            ));
        }
        Ok(CardText(card))
    }
}

/// A player's name, checked when the message is read (`lobby::name`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "String")]
pub struct NameText(pub String);

impl TryFrom<String> for NameText {
    type Error = String;
    fn try_from(text: String) -> Result<NameText, String> {
        super::lobby::name(&text).map(NameText)
    }
}

/// A chat line, checked when the message is read (`chat::line`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "String")]
pub struct ChatText(pub String);

impl TryFrom<String> for ChatText {
    type Error = String;
    fn try_from(text: String) -> Result<ChatText, String> {
        super::chat::line(&text).map(ChatText)
    }
}

/// Reads one text message from a browser: its size, then its JSON and shape. The error is
/// the sentence the browser's error frame carries.
pub fn parse(text: &str) -> Result<Incoming, String> {
    if text.len() > MAX_MESSAGE {
        return Err(format!(
            "message too large ({} bytes; at most {MAX_MESSAGE})",
            text.len()
        ));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let Some(kind) = value.get("type").and_then(Value::as_str) else {
        return Err("a message is a JSON object with a \"type\"".into());
    };
    let kind = kind.to_string();
    serde_json::from_value(value).map_err(|e| format!("bad `{kind}` message: {e}"))
}

/// An error frame: shown to the user who sent the message; nothing changed.
pub fn error_frame(message: &str) -> String {
    serde_json::json!({ "type": "error", "message": message }).to_string()
}

/// One seat as everybody sees it.
#[derive(Clone, Debug, Serialize)]
pub struct SeatView {
    /// The robot's name (the game file's: the events and the replay speak of robots).
    pub name: String,
    /// The name its player gave (`null`: none yet, or nobody sits there).
    pub player: Option<String>,
    /// Nobody has taken the seat: a spectator may sit down (`sit`).
    pub free: bool,
    pub color: &'static str,
    /// "person" or "bot" (a bot standing in for an absent person says "bot").
    pub driver: &'static str,
    pub connected: bool,
    /// "waiting", "programming", "ready", "deciding", "out" or "" between turns.
    pub status: &'static str,
    /// The cards in locked registers (face up), `null` for the others.
    pub locked: Vec<Option<String>>,
    /// Its robot's option cards, with the uses left where they are counted.
    pub options: Vec<String>,
    /// The same option cards for people: title, the script's description, uses left.
    pub option_cards: Vec<OptionCard>,
}

/// An option card a robot holds, in words (the seats table shows the text on hover or tap).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct OptionCard {
    /// The script's name (`gyroscopic_stabilizer`).
    pub name: String,
    /// In words: "Gyroscopic Stabilizer".
    pub title: String,
    /// What it does: the script's `describe`.
    pub text: String,
    /// Uses left, where they are counted.
    pub uses_left: Option<u32>,
}

/// A seat's own desk: only ever in that seat's frames.
#[derive(Clone, Debug, Serialize)]
pub struct DeskView {
    pub hand: Vec<String>,
    pub registers: Vec<Option<String>>,
    pub locked: Vec<bool>,
    pub power_down: bool,
    pub can_power_down: bool,
    pub ready: bool,
    /// Every register that must be filled is: the page enables Ready only then.
    pub complete: bool,
    /// Where the robot would stand after each register of the program so far
    /// (`game::preview`), for the page to draw as a preview; empty without a card placed.
    pub preview: Vec<crate::game::preview::Pose>,
}

/// A question for one player (`ctx:choose`, re-entry, staying powered down).
#[derive(Clone, Debug, Serialize)]
pub struct QuestionView {
    pub id: u64,
    pub robot: String,
    pub key: String,
    pub text: String,
    pub choices: Vec<String>,
    pub default: String,
    /// Milliseconds left before the default is taken.
    pub timeout_ms: u64,
    /// The cards the question is about (the script's `info.cards`), drawn as cards.
    pub cards: Vec<String>,
    /// The square it is about (`info.at`; re-entry: where the robot comes back), marked on
    /// the board.
    pub square: Option<Pos>,
    /// It can be declined (its default is "no"): the page offers "not this turn" and "don't
    /// ask again this game" (`quiet`).
    pub optional: bool,
}

/// The table as one connection sees it now.
#[derive(Clone, Debug, Serialize)]
pub struct View<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// "seat", "host" or "spectator".
    pub role: &'static str,
    /// The seat's robot (seats only).
    pub seat: Option<String>,
    /// Seats only: how many windows have this seat open now (more than one: the page warns
    /// that moves from any of them count).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<usize>,
    pub turn: u32,
    /// "waiting" (for players), "programming", "resolving", "deciding", "paused" (until a
    /// fixed script is saved), "stopped" (for good: the host resumes from the save once it
    /// is fixed), "over".
    pub phase: &'static str,
    pub rules: u64,
    pub seats: Vec<SeatView>,
    pub desk: Option<DeskView>,
    /// This seat's robot's script vars, all of them (the frames carry only the public ones).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vars: Option<serde_json::Map<String, Value>>,
    pub question: Option<QuestionView>,
    /// Milliseconds left on the classic timer, when it runs.
    pub timer_ms: Option<u64>,
    pub settings: Settings,
    /// Why the table is paused or stopped: the error for the host, a sentence for the others.
    pub paused: Option<String>,
    /// The host's: why the rule files last saved do not load (file:line), until a save
    /// that loads; the table plays on with the last good rules meanwhile.
    pub reload_error: Option<String>,
    pub outcome: Option<String>,
    /// The game's standings once it is over, best first (`standings::of`).
    pub standings: Option<Vec<super::standings::Standing>>,
    /// The host's: each seat's token, in seat order, for the seats' links.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat_tokens: Option<Vec<String>>,
    /// Where the finished game's replay is shown.
    pub replay: Option<String>,
    /// The robots now, as the drawing module (`board.js`) draws them (and the seats
    /// table shows their damage, lives and flags): a `html::view::FrameView`, serialized
    /// once for all the pages (`frames::standing`).
    pub frame: &'a serde_json::value::RawValue,
    /// The host's debug panel (host frames only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub debug: Option<DebugView>,
}

/// What the host's debug panel shows: whether the table is paused, what it can go back
/// to, what undo would take back, and what the robots hold that the frames do not show.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DebugView {
    /// The host asked to pause.
    pub pausing: bool,
    /// The table is paused at a stage boundary: the panel's edits are allowed.
    pub paused: bool,
    /// The moments a rewind can go back to, oldest first: `{turn, register}` (0: the start
    /// of the turn, before the deal).
    pub rewind: Vec<RewindTo>,
    /// The host's actions undo takes back, the last last.
    pub undo: Vec<String>,
    /// Each robot's program (registers 1..=5, `null` empty) and archive square.
    pub robots: Vec<DebugRobot>,
    /// The option cards the rules define, in words with their text (`uses_left` empty).
    pub options: Vec<OptionCard>,
    /// The turn's deck: the cards a register can be given.
    pub deck: Vec<String>,
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct RewindTo {
    pub turn: u32,
    pub register: u8,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DebugRobot {
    pub name: String,
    pub program: Vec<Option<String>>,
    pub archive: Pos,
}

/// The longest any setting may be, in seconds: a day.
pub const MAX_SECONDS: u64 = 86_400;

/// What the host can set.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Settings {
    /// Seconds before a bot decides for an absent player; 0: wait for them.
    pub bot_after: u64,
    /// Seconds a player has to answer a question.
    pub choice_timeout: u64,
    /// The classic timer in seconds; 0: off.
    pub timer: u64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            bot_after: 0,
            choice_timeout: 30,
            timer: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_read_strictly() {
        assert_eq!(parse(r#"{"type":"ready"}"#), Ok(Incoming::Ready {}));
        assert_eq!(
            parse(r#"{"type":"place","register":2,"card":"move2@700"}"#),
            Ok(Incoming::Place {
                register: 2,
                card: CardText(Card::parse("move2@700").unwrap())
            })
        );
        let bad = [
            ("{", "not JSON"),
            ("[1]", "a JSON object with a \"type\""),
            (r#"{"type":"dance"}"#, "unknown variant `dance`"),
            (r#"{"type":"ready","extra":1}"#, "unknown field `extra`"),
            (r#"{"type":"place","register":2}"#, "missing field `card`"),
            (
                r#"{"type":"place","register":2,"card":"jump@1"}"#,
                "unknown card `jump`",
            ),
            (
                r#"{"type":"place","register":2,"card":"move1"}"#,
                "needs its priority",
            ),
            (
                r#"{"type":"place","register":-1,"card":"move1@10"}"#,
                "invalid value",
            ),
            (r#"{"type":"clear","register":300}"#, "invalid value"),
        ];
        for (text, expected) in bad {
            let e = parse(text).unwrap_err();
            assert!(e.contains(expected), "{text}: {e}");
        }
        let huge = format!(r#"{{"type":"ready","pad":"{}"}}"#, "x".repeat(MAX_MESSAGE));
        assert!(parse(&huge).unwrap_err().contains("too large"));
    }
}
