//! Events in words, as the terminal, the replay viewer and the table tell them: "Robot Bravo
//! is blocked by the wall on the N side of [5, 9]". The engine's own events have their
//! sentences here, by event (never by element); a script's events have the sentences their
//! declarations give (`events = { ... }`, `Sentences`). Squares always read `[x, y]`, and a
//! move a script caused says what caused it ("is pushed E to [3, 1] by the magnetic crane").

use crate::cards::{Card, CardKind};
use crate::geometry::Pos;
use crate::state::Event;
use crate::text::sentence::Sentences;
use serde::Deserialize;
use serde_json::Value;
use std::fmt::Write as _;

/// A card in words: "Move 2 (700)", "U-Turn".
pub fn card_words(card: &Card) -> String {
    let name = match card.kind {
        CardKind::Move1 => "Move 1",
        CardKind::Move2 => "Move 2",
        CardKind::Move3 => "Move 3",
        CardKind::Back => "Back Up",
        CardKind::Left => "Turn Left",
        CardKind::Right => "Turn Right",
        CardKind::Uturn => "U-Turn",
    };
    match card.priority {
        Some(p) => format!("{name} ({p})"),
        None => name.to_string(),
    }
}

/// An event in words, saying why where the event says: "Robot Bravo is blocked by the wall on
/// the N side of \[5, 9\]", "Robot Charlie is hit by the laser of robot Delta: 1 damage (1 in
/// all)". Robots are called "robot NAME", so that any name reads well ("robot You moves").
/// An event a declaration gives a sentence for (`sentences`) is told in it; an event nobody
/// has words for is its name and fields, `Robot Bob craned crane=[7, 9] from=1`. Control
/// characters a script put in a name or a field are shown escaped.
pub fn describe(e: &Event, sentences: &Sentences) -> String {
    let text = match sentences.get(&e.what) {
        Some(s) => s.fill(|field| match (field, e.robot.as_deref()) {
            ("robot", Some(name)) => Some(robot_words(name)),
            _ => e.detail.get(field).map(value_words),
        }),
        // A name is not a sentence: `bell rang=3` stays as the script wrote it.
        None => match sentence(e) {
            Some(text) => text,
            None => return crate::text::clean_line(&unnamed(e)).into_owned(),
        },
    };
    capitalized(&crate::text::clean_line(&text))
}

/// An event nobody has words for: who, what, and its fields.
fn unnamed(e: &Event) -> String {
    let mut line = e
        .robot
        .as_deref()
        .map(|r| capitalized(&robot_words(r)))
        .unwrap_or_default();
    if !line.is_empty() {
        line.push(' ');
    }
    line.push_str(&e.what);
    for (k, v) in e.detail.iter() {
        let _ = write!(line, " {k}={}", value_words(v));
    }
    line
}

/// A field of an event in words: text as it is, a square as `[x, y]` (the engine logs a
/// square as `[x, y]`; a script may log `tile.at`, `{ x =, y = }`), anything else as JSON.
pub fn value_words(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => square(v).map_or_else(|| v.to_string(), |p| p.to_string()),
    }
}

/// The square a field holds, if it is one: `[x, y]` or `{ "x": x, "y": y }`.
pub fn square(v: &Value) -> Option<Pos> {
    match v {
        Value::Object(o) if o.len() == 2 => {
            let n = |k: &str| o.get(k)?.as_i64()?.try_into().ok();
            Some(Pos::new(n("x")?, n("y")?))
        }
        Value::Array(a) if a.len() == 2 => Pos::deserialize(v).ok(),
        _ => None,
    }
}

/// An option card by its name in words: `gyroscopic_stabilizer` reads "Gyroscopic
/// Stabilizer" (the scripts name options in snake case; the cards' titles are those words).
pub fn option_words(name: &str) -> String {
    name.split('_')
        .filter(|w| !w.is_empty())
        .map(capitalized)
        .collect::<Vec<_>>()
        .join(" ")
}

/// "1 life", "2 lives".
fn lives_words(lives: &str) -> String {
    let noun = if lives == "1" { "life" } else { "lives" };
    format!("{lives} {noun}")
}

/// "robot NAME", as the viewer's sentences name a robot.
pub fn robot_words(name: &str) -> String {
    format!("robot {name}")
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

fn sentence(e: &Event) -> Option<String> {
    if e.what == "host" {
        return host(e);
    }
    let who = robot_words(e.robot.as_deref()?);
    let get = |k: &str| e.detail.get(k);
    let text = |k: &str| get(k).map_or_else(|| "?".into(), value_words);
    // What a script said caused a move, push or placement (`ctx:move`'s cause).
    let by = || {
        get("by")
            .map(|_| format!(" by {}", text("by")))
            .unwrap_or_default()
    };
    // An element that refused a crossing (`on_cross` returned `{ block = true }`).
    let element = || format!("the {} at {}", text("element"), text("at"));
    let wall = || format!("the wall on the {} side of {}", text("dir"), text("wall"));
    // A card field in words ("Move 2 (700)"); a face-down card or anything else as it is.
    let card_in = |k: &str| {
        get(k)
            .and_then(Value::as_str)
            .and_then(|c| Card::parse(c).ok())
            .map_or_else(|| text(k), |c| card_words(&c))
    };
    let card = || card_in("card");
    let option = || option_words(&text("option"));
    let why = || {
        get("why")
            .map(|_| format!(" ({})", text("why")))
            .unwrap_or_default()
    };
    Some(match e.what.as_ref() {
        "card" => format!("{who} plays {}", card()),
        "programmed" => {
            let cards: Vec<String> = match get("program") {
                Some(Value::Array(cards)) => cards
                    .iter()
                    .map(|c| match c.as_str().map(Card::parse) {
                        Some(Ok(card)) => card_words(&card),
                        _ => "–".into(),
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let down = if get("power_down") == Some(&Value::Bool(true)) {
                ", and will power down next turn"
            } else {
                ""
            };
            format!("{who} programs {}{down}", cards.join(", "))
        }
        "moved" => {
            let moves = match text("how").as_str() {
                "push" => "is pushed",
                "belt" => "is carried",
                _ => "moves",
            };
            format!("{who} {moves} {} to {}{}", text("dir"), text("to"), by())
        }
        "pushed" => format!("{who} is pushed {} to {}{}", text("dir"), text("to"), by()),
        "conveyed" => format!(
            "{who} is carried {} to {} by a belt",
            text("dir"),
            text("to")
        ),
        "turned" => {
            let turn = match text("rotation").as_str() {
                "uturn" => "makes a U-turn".to_string(),
                other => format!("turns {other}"),
            };
            format!("{who} {turn}, now facing {}", text("facing"))
        }
        "faced" => format!("{who} now faces {}", text("facing")),
        "placed" if get("by").is_some() => format!("{who} is put on {}{}", text("to"), by()),
        "placed" => format!("{who} is put on {} ({})", text("to"), text("how")),
        "blocked" if get("wall").is_some() => format!("{who} is blocked by {}", wall()),
        "blocked" if get("element").is_some() => format!("{who} is blocked by {}", element()),
        "push_blocked" if get("wall").is_some() || get("element").is_some() => {
            let stop = if get("wall").is_some() {
                wall()
            } else {
                element()
            };
            format!(
                "{who} cannot push {}: {stop} is in the way",
                robot_words(&text("pushing")),
            )
        }
        "damaged" | "damage_prevented" | "damage_added" => {
            let by = match (get("shooter"), get("source")) {
                (Some(_), _) => format!("the laser of {}", robot_words(&text("shooter"))),
                (None, Some(_)) => format!("the {} at {}", text("cause"), text("source")),
                (None, None) => text("cause"),
            };
            match e.what.as_ref() {
                "damaged" => format!(
                    "{who} is hit by {by}: {} damage ({} in all)",
                    text("amount"),
                    text("damage")
                ),
                "damage_added" => format!(
                    "{who}: {} damage added to the hit of {by} by {}",
                    text("amount"),
                    text("by")
                ),
                _ => format!(
                    "{who}: {} damage from {by} prevented by {}",
                    text("amount"),
                    text("by")
                ),
            }
        }
        "destroyed" => format!(
            "{who} is destroyed ({}), {} left",
            text("cause"),
            lives_words(&text("lives"))
        ),
        "lives" => format!("{who} has {} now", lives_words(&text("lives"))),
        "cards_drawn" => {
            let n = match get("cards") {
                Some(Value::Array(cards)) => cards.len(),
                _ => 0,
            };
            format!("{who} draws {n} card{}", if n == 1 { "" } else { "s" })
        }
        "card_discarded" => format!("{who} discards {}", card()),
        "card_kept" => format!(
            "{who} keeps {} aside on {}",
            card(),
            option_words(&text("key"))
        ),
        "card_unkept" => format!(
            "{who} takes {} back from {}",
            card(),
            option_words(&text("key"))
        ),
        "card_set" => format!(
            "{who}'s register {} now holds {} instead of {}{}",
            text("in_register"),
            card_in("to"),
            card_in("from"),
            why()
        ),
        "option_drawn" => format!("{who} draws the option card {}", option()),
        "option_discarded" => format!("{who} loses the option card {}{}", option(), why()),
        "option_used" => format!("{who} uses {} ({} left)", option(), text("uses_left")),
        "option_reloaded" => format!("{who} reloads {} ({} uses)", option(), text("uses_left")),
        "option_deck_empty" => format!("{who} gets no option card: the deck is empty"),
        "turn_prevented" => format!("{who} is not turned: {} holds it", text("by")),
        "push_cancelled" => format!("{who} does not push {}: the push is cancelled", text("dir")),
        "shot" => format!(
            "{who} fires {} at {}",
            option(),
            robot_words(&text("target"))
        ),
        "shot_missed" => format!(
            "{who} fires {} at {} and misses",
            option(),
            robot_words(&text("target"))
        ),
        "shot_lost" => format!(
            "{who} fires {} at {}: the shot is lost",
            option(),
            robot_words(&text("target"))
        ),
        "repaired" => format!(
            "{who} is repaired by {} ({} damage left)",
            text("amount"),
            text("damage")
        ),
        "flag" => format!("{who} touches flag {}", text("number")),
        "won" => format!("{who} touches the last flag and wins"),
        "finished" => format!(
            "{who} touches the last flag too, in place {}",
            text("place")
        ),
        "archived" => format!("{who} archives at {}", text("at")),
        "reentered" => format!(
            "{who} re-enters at {} facing {} with {} damage",
            text("at"),
            text("facing"),
            text("damage")
        ),
        "card_swapped" => format!(
            "the card {} of {who} is swapped for {}",
            text("from"),
            text("to")
        ),
        "powered_down" => format!(
            "{who} is powered down: {} damage discarded",
            text("discarded")
        ),
        "chose" if e.detail.get("timed_out") == Some(&Value::Bool(true)) => format!(
            "{} (no answer in time: the default)",
            chose(&who, &text("question"), &text("answer"))
        ),
        "chose" => chose(&who, &text("question"), &text("answer")),
        _ => return None,
    })
}

/// What the host did with the table's debug panel (`table::thread::debug`): "the host moved
/// robot Ann to [3, 4]".
fn host(e: &Event) -> Option<String> {
    let text = |k: &str| e.detail.get(k).map_or_else(|| "?".into(), value_words);
    let who = e.robot.as_deref().map(robot_words);
    let of = format!("of {}", who.clone().unwrap_or_default());
    let did = e.detail.get("did").and_then(Value::as_str)?;
    let card = || {
        let card = text("card");
        Card::parse(&card).map_or(card, |c| card_words(&c))
    };
    let option = || option_words(&text("option"));
    Some(format!(
        "the host {}",
        match (did, &who) {
            ("paused", _) => "paused the table".to_string(),
            ("resumed", _) => "resumed the table".to_string(),
            ("rewound", _) => format!(
                "rewound the table to {}, to play it again under rules v{}",
                text("to"),
                text("rules")
            ),
            ("undid", _) => format!("took back: {}", text("action")),
            ("moved", Some(w)) => format!("moved {w} to {}", text("to")),
            ("placed", Some(w)) => format!("put {w} back on the board at {}", text("to")),
            ("turned", Some(w)) => format!("turned {w} to face {}", text("to")),
            ("damage", Some(_)) => format!("set the damage {of} to {}", text("to")),
            ("lives", Some(_)) => format!("set the lives {of} to {}", text("to")),
            ("flags", Some(_)) => format!("set the flags {of} to {}", text("to")),
            ("archive", Some(_)) => format!("moved the archive {of} to {}", text("to")),
            ("gave_option", Some(w)) => format!("gave {w} the option card {}", option()),
            ("took_option", Some(w)) => format!("took the option card {} from {w}", option()),
            ("set_card", Some(_)) => {
                format!("put {} in register {} {of}", card(), text("in_register"))
            }
            ("took_card", Some(_)) =>
                format!("took the card out of register {} {of}", text("in_register")),
            _ => return None,
        }
    ))
}

/// A player's answer to a question (`game::questions`, a script's `ctx:choose`).
fn chose(who: &str, question: &str, answer: &str) -> String {
    use crate::decision::{POWER_DOWN, REENTER_FACING, REENTER_POWERED_DOWN, STAY_DOWN};
    let yes = answer == "yes";
    match question {
        POWER_DOWN if yes => format!("{who} announces power down for next turn"),
        POWER_DOWN => format!("{who} does not power down"),
        STAY_DOWN if yes => format!("{who} stays powered down next turn"),
        STAY_DOWN => format!("{who} powers up next turn"),
        REENTER_FACING => format!("{who} chooses to face {answer}"),
        REENTER_POWERED_DOWN if yes => format!("{who} re-enters powered down"),
        REENTER_POWERED_DOWN => format!("{who} re-enters powered up"),
        // Scrapping an option to cancel damage (the engine's question).
        "absorb" if answer == "no" => format!("{who} scraps no option to stop the damage"),
        "absorb" => format!("{who} scraps {} to stop 1 damage", option_words(answer)),
        "shot" => format!("{who} shoots with {}", option_words(answer)),
        // An option's question: named after the option (`dual_processor_card` is Dual
        // Processor's), declined or answered.
        _ if answer == "no" => format!("{who} does not use {}", option_words(question)),
        _ if answer == "yes" => format!("{who} uses {}", option_words(question)),
        _ => {
            let answer = Card::parse(answer)
                .ok()
                .filter(|c| c.priority.is_some())
                .map_or_else(|| answer.to_string(), |c| card_words(&c));
            format!("{who} uses {}: {answer}", option_words(question))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(what: &str, detail: Value) -> Event {
        let mut e = json!({"turn": 1, "register": 0, "segment": "", "robot": "Ann", "what": what});
        e.as_object_mut()
            .unwrap()
            .extend(detail.as_object().unwrap().clone());
        serde_json::from_value(e).unwrap()
    }

    #[test]
    fn the_turn_loops_questions_and_power_down_in_words() {
        let said =
            |what: &str, detail: Value| describe(&event(what, detail), &Sentences::default());
        let chose = |question: &str, answer: &str| {
            said(
                "chose",
                json!({"question": question, "answer": answer, "default": false}),
            )
        };
        assert_eq!(
            chose("power_down", "yes"),
            "Robot Ann announces power down for next turn"
        );
        assert_eq!(chose("stay_down", "no"), "Robot Ann powers up next turn");
        assert_eq!(chose("reenter_facing", "W"), "Robot Ann chooses to face W");
        assert_eq!(
            chose("reenter_powered_down", "yes"),
            "Robot Ann re-enters powered down"
        );
        assert_eq!(
            chose("brakes", "yes"),
            "Robot Ann uses Brakes",
            "a script's question, named after its option"
        );
        assert_eq!(
            chose("absorb", "no"),
            "Robot Ann scraps no option to stop the damage"
        );
        assert_eq!(
            chose("absorb", "ablative_coat"),
            "Robot Ann scraps Ablative Coat to stop 1 damage"
        );
        assert_eq!(
            chose("conditional_program", "left@90"),
            "Robot Ann uses Conditional Program: Turn Left (90)"
        );
        assert_eq!(
            said(
                "chose",
                json!({"question": "recompile", "answer": "no", "default": true, "timed_out": true})
            ),
            "Robot Ann does not use Recompile (no answer in time: the default)",
            "a default nobody chose is not passed off as a choice"
        );
        assert_eq!(
            said("card_set", json!({"in_register": 1, "from": "a face-down card", "to": "left@230", "why": "abort switch"})),
            "Robot Ann's register 1 now holds Turn Left (230) instead of a face-down card (abort switch)"
        );
        assert_eq!(
            said(
                "cards_drawn",
                json!({"cards": ["a face-down card", "a face-down card"]})
            ),
            "Robot Ann draws 2 cards"
        );
        assert_eq!(
            said("card_discarded", json!({"card": "left@90"})),
            "Robot Ann discards Turn Left (90)"
        );
        assert_eq!(
            said("destroyed", json!({"cause": "pit", "lives": 1})),
            "Robot Ann is destroyed (pit), 1 life left"
        );
        assert_eq!(
            said("option_drawn", json!({"option": "gyroscopic_stabilizer"})),
            "Robot Ann draws the option card Gyroscopic Stabilizer"
        );
        assert_eq!(
            said("powered_down", json!({"discarded": 3})),
            "Robot Ann is powered down: 3 damage discarded"
        );
    }

    #[test]
    fn turns_in_words() {
        let turned = |rotation: &str| {
            describe(
                &event("turned", json!({"rotation": rotation, "facing": "S"})),
                &Sentences::default(),
            )
        };
        assert_eq!(turned("right"), "Robot Ann turns right, now facing S");
        assert_eq!(turned("uturn"), "Robot Ann makes a U-turn, now facing S");
    }

    #[test]
    fn the_hosts_debug_actions_in_words() {
        let said = |detail: Value| describe(&event("host", detail), &Sentences::default());
        assert_eq!(
            said(json!({"did": "moved", "to": [3, 4]})),
            "The host moved robot Ann to [3, 4]"
        );
        assert_eq!(
            said(json!({"did": "damage", "to": 3})),
            "The host set the damage of robot Ann to 3"
        );
        assert_eq!(
            said(json!({"did": "set_card", "in_register": 4, "card": "move2@700"})),
            "The host put Move 2 (700) in register 4 of robot Ann"
        );
        assert_eq!(
            said(json!({"did": "gave_option", "option": "brakes"})),
            "The host gave robot Ann the option card Brakes"
        );
        let mut rewound = event(
            "host",
            json!({"did": "rewound", "to": "the start of turn 2, register 3", "rules": 2}),
        );
        rewound.robot = None;
        assert_eq!(
            describe(&rewound, &Sentences::default()),
            "The host rewound the table to the start of turn 2, register 3, to play it again under rules v2"
        );
    }
}
