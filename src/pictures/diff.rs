//! What changed between two resolutions of the same game: the first event where they part,
//! then, per robot, what is different at the end. `rally watch` prints it after every edit
//! and `rally run --replay` prints it against a recorded game, so a playtester sees the
//! effect of an edit without reading two whole logs side by side.

use super::render;
use crate::state::{Event, Resolution, Robot};
use std::fmt;

/// The first event that differs; `None` on one side when that log is shorter.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    /// 1-based position in the logs.
    pub index: usize,
    pub before: Option<Event>,
    pub after: Option<Event>,
}

/// One property of one robot that ended differently.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    pub robot: String,
    pub what: &'static str,
    pub before: String,
    pub after: String,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Diff {
    pub divergence: Option<Divergence>,
    pub robots: Vec<Difference>,
}

impl Diff {
    pub fn is_empty(&self) -> bool {
        self.divergence.is_none() && self.robots.is_empty()
    }
}

/// Compares two resolutions. Robots are matched by name (an edited scenario may add or remove
/// some); their properties are compared in a fixed order.
pub fn compare(before: &Resolution, after: &Resolution) -> Diff {
    let longest = before.events.len().max(after.events.len());
    let divergence = (0..longest)
        .find(|&i| match (before.events.get(i), after.events.get(i)) {
            (Some(b), Some(a)) => !same_event(b, a),
            _ => true,
        })
        .map(|i| Divergence {
            index: i + 1,
            before: before.events.get(i).cloned(),
            after: after.events.get(i).cloned(),
        });
    let mut robots = Vec::new();
    for b in &before.robots {
        match after.robots.iter().find(|a| a.name == b.name) {
            Some(a) => robots.extend(robot_differences(b, a)),
            None => robots.push(Difference {
                robot: b.name.to_string(),
                what: "robot",
                before: "present".into(),
                after: "gone".into(),
            }),
        }
    }
    for a in &after.robots {
        if !before.robots.iter().any(|b| b.name == a.name) {
            robots.push(Difference {
                robot: a.name.to_string(),
                what: "robot",
                before: "absent".into(),
                after: "new".into(),
            });
        }
    }
    Diff { divergence, robots }
}

/// Events are the same when they say the same thing: details are compared as named values,
/// in any order (a recorded log read back from JSON need not keep the order they were made in).
fn same_event(a: &Event, b: &Event) -> bool {
    a.turn == b.turn
        && a.register == b.register
        && a.segment == b.segment
        && a.robot == b.robot
        && a.what == b.what
        && a.detail.iter().count() == b.detail.iter().count()
        && a.detail.iter().all(|(k, v)| b.detail.get(k) == Some(v))
}

fn robot_differences(b: &Robot, a: &Robot) -> Vec<Difference> {
    let vars = |r: &Robot| serde_json::Value::Object((*r.vars).clone()).to_string();
    let properties: [(&'static str, String, String); 9] = [
        ("at", b.at.to_string(), a.at.to_string()),
        ("facing", b.facing.to_string(), a.facing.to_string()),
        ("damage", b.damage.to_string(), a.damage.to_string()),
        ("lives", b.lives.to_string(), a.lives.to_string()),
        ("flags", b.flags.to_string(), a.flags.to_string()),
        (
            "destroyed",
            b.destroyed.to_string(),
            a.destroyed.to_string(),
        ),
        (
            "powered_down",
            b.powered_down.to_string(),
            a.powered_down.to_string(),
        ),
        ("archive", b.archive.to_string(), a.archive.to_string()),
        ("vars", vars(b), vars(a)),
    ];
    properties
        .into_iter()
        .filter(|(_, before, after)| before != after)
        .map(|(what, before, after)| Difference {
            robot: b.name.to_string(),
            what,
            before,
            after,
        })
        .collect()
}

impl fmt::Display for Diff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return writeln!(f, "no change");
        }
        let line = |e: &Option<Event>, clock| {
            e.as_ref().map_or_else(
                || "(no more events)".to_string(),
                |e| render::event(e, clock),
            )
        };
        match &self.divergence {
            Some(d) => {
                // A game's log spans turns: the two lines say which.
                let pair: Vec<Event> = [&d.before, &d.after]
                    .into_iter()
                    .flatten()
                    .cloned()
                    .collect();
                let clock = match pair.iter().any(|e| e.turn > 1) {
                    true => render::Clock::Turns,
                    false => render::Clock::Registers,
                };
                writeln!(f, "first difference at event {}:", d.index)?;
                writeln!(f, "  was {}", line(&d.before, clock))?;
                writeln!(f, "  now {}", line(&d.after, clock))?;
            }
            None => writeln!(f, "same events")?,
        }
        if self.robots.is_empty() {
            return writeln!(f, "same final state");
        }
        writeln!(f, "final state:")?;
        let mut robots: Vec<&str> = self.robots.iter().map(|d| d.robot.as_str()).collect();
        robots.dedup();
        for name in robots {
            let changes: Vec<String> = self
                .robots
                .iter()
                .filter(|d| d.robot == name)
                .map(|d| format!("{} {} → {}", d.what, d.before, d.after))
                .collect();
            // Names and script memory come from files and scripts: control characters shown.
            let line = format!("  {name:<8} {}", changes.join(", "));
            writeln!(f, "{}", crate::text::clean_line(&line))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{Dir, Pos};
    use crate::state::State;

    fn outcome(robots: Vec<Robot>, moves: &[&'static str]) -> Resolution {
        let mut state = State::new(robots, 0);
        for &what in moves {
            state.log(Some(0), what, serde_json::Map::new());
        }
        Resolution {
            events: state.events,
            robots: state.robots,
        }
    }

    #[test]
    fn same_outcome_has_no_difference() {
        let a = outcome(vec![Robot::new("A", Pos::new(1, 1), Dir::N)], &["moved"]);
        let diff = compare(&a, &a.clone());
        assert!(diff.is_empty());
        assert_eq!(diff.to_string(), "no change\n");
    }

    #[test]
    fn reports_the_first_divergence_and_each_changed_property() {
        let a = outcome(
            vec![Robot::new("A", Pos::new(1, 1), Dir::N)],
            &["card", "moved", "rotated"],
        );
        let mut moved = Robot::new("A", Pos::new(1, 2), Dir::S);
        moved.damage = 1;
        moved.archive = Pos::new(1, 1);
        let b = outcome(vec![moved], &["card", "blocked"]);
        let diff = compare(&a, &b);
        let d = diff.divergence.as_ref().unwrap();
        assert_eq!(d.index, 2);
        assert_eq!(d.before.as_ref().unwrap().what, "moved");
        assert_eq!(d.after.as_ref().unwrap().what, "blocked");
        let what: Vec<&str> = diff.robots.iter().map(|r| r.what).collect();
        assert_eq!(what, ["at", "facing", "damage"]);
        let text = diff.to_string();
        assert!(
            text.contains("A        at [1, 1] → [1, 2], facing N → S, damage 0 → 1"),
            "{text}"
        );
    }

    #[test]
    fn details_in_another_order_are_the_same_event() {
        let robots = vec![Robot::new("A", Pos::new(0, 0), Dir::N)];
        let (mut a, mut b) = (State::new(robots.clone(), 0), State::new(robots, 0));
        let detail = |keys: [&str; 2]| {
            let mut map = serde_json::Map::new();
            for k in keys {
                map.insert(k.to_string(), serde_json::json!(k));
            }
            map
        };
        a.log(Some(0), "moved", detail(["dir", "to"]));
        b.log(Some(0), "moved", detail(["to", "dir"]));
        assert!(compare(&Resolution::of(&a), &Resolution::of(&b)).is_empty());
    }

    #[test]
    fn a_shorter_log_and_renamed_robots_are_differences() {
        let a = outcome(vec![Robot::new("A", Pos::new(0, 0), Dir::N)], &["card"]);
        let b = outcome(vec![Robot::new("B", Pos::new(0, 0), Dir::N)], &[]);
        let diff = compare(&a, &b);
        assert_eq!(diff.divergence.as_ref().unwrap().after, None);
        assert!(diff.to_string().contains("(no more events)"));
        assert_eq!(diff.robots.len(), 2);
    }
}
