//! The order of play, in one table that reads like the rulebook (rules.md §2 and §5).
//!
//! Every step is a point where scripts may act: elements attach handlers to steps by name
//! (`steps = { belts = function(ctx, tile, robot) ... end }`), and a few steps also have a
//! native part the core resolves itself (revealing cards, executing them, re-entry).
//! Variants (`[[step]]` in `variant.toml`) and declarations (`new_steps`: an element or rule
//! that needs a moment of its own) may insert steps; a step takes the segment of the step it
//! is placed next to.

use serde::Serialize;

/// The segments of a turn (rules.md §2). A..E repeat for each register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Segment {
    /// Before register 1.
    TurnStart,
    /// A: program cards are revealed.
    Reveal,
    /// B: robots execute their cards in priority order.
    RobotsMove,
    /// C: board elements move robots, step by step.
    BoardElements,
    /// D: lasers and everything else that deals damage at once.
    Lasers,
    /// E: checkpoints and repair sites are touched.
    Touch,
    /// F: repairs, re-entry.
    EndOfTurn,
}

impl Segment {
    pub fn name(self) -> &'static str {
        match self {
            Segment::TurnStart => "turn_start",
            Segment::Reveal => "reveal",
            Segment::RobotsMove => "robots_move",
            Segment::BoardElements => "board_elements",
            Segment::Lasers => "lasers",
            Segment::Touch => "touch",
            Segment::EndOfTurn => "end_of_turn",
        }
    }

    /// Segments A..E happen in every register; the others once a turn.
    pub fn per_register(self) -> bool {
        !matches!(self, Segment::TurnStart | Segment::EndOfTurn)
    }
}

/// The part of a step that the core resolves itself, after the step's script handlers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Native {
    /// Reveal each robot's card for this register (elements may swap it: `on_reveal`).
    RevealCards,
    /// Robots execute their cards in priority order.
    ExecuteCards,
    /// Destroyed robots with lives left re-enter at their archive markers.
    Reenter,
}

#[derive(Clone, Debug)]
pub struct Step {
    pub name: String,
    pub segment: Segment,
    pub native: Option<Native>,
    pub describe: String,
}

/// The standard order of play.
pub fn standard() -> Vec<Step> {
    use Native::*;
    use Segment::*;
    let table: [(&str, Segment, Option<Native>, &str); 17] = [
        ("turn_start", TurnStart, None, "start of the turn"),
        (
            "register_start",
            Reveal,
            None,
            "start of each register, before cards are revealed",
        ),
        (
            "reveal",
            Reveal,
            Some(RevealCards),
            "A: cards revealed (randomizers swap them)",
        ),
        (
            "robots_move",
            RobotsMove,
            Some(ExecuteCards),
            "B: handlers run first (trap doors), then robots execute cards by priority",
        ),
        // Robots that had no card this register (powered down, idle) still get a turn to
        // act by momentum here, after every card: an ice robot's slide (rules.md §8.9 #12).
        (
            "after_cards",
            RobotsMove,
            None,
            "B: after every card; robots without a card (powered down, idle) act here",
        ),
        (
            "express_belts",
            BoardElements,
            None,
            "C1: express belts move 1",
        ),
        (
            "belts",
            BoardElements,
            None,
            "C2: express and normal belts move 1, together",
        ),
        ("currents", BoardElements, None, "C2b: currents move 1"),
        ("pushers", BoardElements, None, "C3: active pushers push"),
        ("gears", BoardElements, None, "C4: gears turn"),
        ("crushers", BoardElements, None, "C5: active crushers crush"),
        (
            "fire",
            Lasers,
            None,
            "D: board and robot lasers fire at once; damage applied together",
        ),
        (
            "touch",
            Touch,
            None,
            "E: flags and repair sites touched, archives move",
        ),
        ("register_end", Touch, None, "end of each register"),
        ("end_of_turn", EndOfTurn, None, "F: repairs"),
        (
            "reenter",
            EndOfTurn,
            Some(Reenter),
            "F: destroyed robots re-enter at their archive",
        ),
        ("turn_end", EndOfTurn, None, "end of the turn"),
    ];
    table
        .into_iter()
        .map(|(name, segment, native, describe)| Step {
            name: name.into(),
            segment,
            native,
            describe: describe.into(),
        })
        .collect()
}

/// Where a variant or a declaration puts a step of its own.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewStep {
    pub name: String,
    pub before: Option<String>,
    pub after: Option<String>,
    #[serde(default)]
    pub describe: String,
}

/// Inserts a new step next to an existing one.
pub fn insert(order: &mut Vec<Step>, new: &NewStep) -> Result<(), String> {
    if order.iter().any(|s| s.name == new.name) {
        return Err(format!("step `{}` already exists", new.name));
    }
    let (anchor, offset) = match (&new.before, &new.after) {
        (Some(a), None) => (a, 0),
        (None, Some(a)) => (a, 1),
        _ => {
            return Err(format!(
                "step `{}` needs exactly one of `before` or `after`",
                new.name
            ))
        }
    };
    let at = order
        .iter()
        .position(|s| &s.name == anchor)
        .ok_or_else(|| {
            format!(
                "step `{}`: there is no step `{anchor}`{}",
                new.name,
                crate::error::suggest(anchor, order.iter().map(|s| s.name.as_str()))
            )
        })?;
    let segment = order[at].segment;
    order.insert(
        at + offset,
        Step {
            name: new.name.clone(),
            segment,
            native: None,
            describe: new.describe.clone(),
        },
    );
    Ok(())
}

/// The order of play while the scripts load. Declarations may still add steps (`new_steps`),
/// which moves the steps after them, so handlers are keyed by a lasting id (the order in
/// which steps became known) until [`Steps::finish`] says where each id ended up.
pub struct Steps {
    order: Vec<Step>,
    /// Step names by id.
    ids: Vec<String>,
    /// The steps declarations added: one declared again the same way (an element replaced
    /// by a variant's version of it) is the same step.
    added: Vec<NewStep>,
}

impl Steps {
    pub fn new(order: Vec<Step>) -> Steps {
        let ids = order.iter().map(|s| s.name.clone()).collect();
        Steps {
            order,
            ids,
            added: Vec::new(),
        }
    }

    /// The id of the step called `name`.
    pub fn id(&self, name: &str) -> Option<usize> {
        self.ids.iter().position(|n| n == name)
    }

    /// Every step's name, in the order of play (for messages).
    pub fn names(&self) -> Vec<&str> {
        self.order.iter().map(|s| s.name.as_str()).collect()
    }

    /// Adds a declaration's step (nothing if the same step was added already).
    pub fn add(&mut self, new: &NewStep) -> Result<(), String> {
        if self.added.contains(new) {
            return Ok(());
        }
        insert(&mut self.order, new)?;
        self.ids.push(new.name.clone());
        self.added.push(new.clone());
        Ok(())
    }

    /// The final order of play, and the place in it of each id.
    pub fn finish(&self) -> (Vec<Step>, Vec<usize>) {
        let place = self
            .ids
            .iter()
            .map(|name| {
                self.order
                    .iter()
                    .position(|s| &s.name == name)
                    .expect("every id names a step")
            })
            .collect();
        (self.order.clone(), place)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_last_while_steps_are_added() {
        let mut steps = Steps::new(standard());
        let fire = steps.id("fire").unwrap();
        let springs = NewStep {
            name: "springs".into(),
            before: None,
            after: Some("crushers".into()),
            describe: String::new(),
        };
        steps.add(&springs).unwrap();
        steps.add(&springs).unwrap();
        let id = steps.id("springs").unwrap();
        let (order, place) = steps.finish();
        assert_eq!(order[place[id]].name, "springs");
        assert_eq!(order[place[id]].segment, Segment::BoardElements);
        assert_eq!(order[place[fire]].name, "fire");
        assert_eq!(place[fire], place[id] + 1);
    }
}
