//! The end screen's standings: for each robot, the flags it touched, the lives it has left,
//! how often it was destroyed and the damage its lasers dealt, read from the game's own
//! events (`destroyed`, `damaged` with a `shooter`, `won`) and its final state.

use crate::game::TurnRecord;
use crate::state::Robot;
use serde::Serialize;

/// One robot's line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    pub robot: String,
    /// Its player's name, if one sat there (filled in by the table).
    pub player: Option<String>,
    pub flags: u32,
    pub lives: i32,
    pub deaths: u32,
    /// Damage its lasers dealt to other robots.
    pub damage_dealt: u64,
    pub winner: bool,
}

/// The standings of a game that ended with `robots` after `history`: the winner first, then
/// by flags, lives, fewer deaths and more damage dealt (the robots' order breaks ties).
pub fn of(robots: &[Robot], history: &[TurnRecord]) -> Vec<Standing> {
    let mut out: Vec<Standing> = robots
        .iter()
        .map(|r| Standing {
            robot: r.name.to_string(),
            player: None,
            flags: r.flags,
            lives: r.lives.max(0),
            deaths: 0,
            damage_dealt: 0,
            winner: false,
        })
        .collect();
    let find = |out: &mut Vec<Standing>, name: &str| out.iter().position(|s| s.robot == name);
    for e in history.iter().flat_map(|t| &t.events) {
        let Some(robot) = e.robot.as_deref() else {
            continue;
        };
        match e.what.as_ref() {
            "destroyed" => {
                if let Some(i) = find(&mut out, robot) {
                    out[i].deaths += 1;
                }
            }
            "damaged" => {
                let shooter = e.detail.get("shooter").and_then(|v| v.as_str());
                let amount = e.detail.get("amount").and_then(|a| a.as_u64()).unwrap_or(0);
                if let Some(i) = shooter
                    .filter(|s| *s != robot)
                    .and_then(|s| find(&mut out, s))
                {
                    out[i].damage_dealt += amount;
                }
            }
            "won" => {
                if let Some(i) = find(&mut out, robot) {
                    out[i].winner = true;
                }
            }
            _ => {}
        }
    }
    out.sort_by(|a, b| {
        (b.winner, b.flags, b.lives)
            .cmp(&(a.winner, a.flags, a.lives))
            .then(a.deaths.cmp(&b.deaths))
            .then(b.damage_dealt.cmp(&a.damage_dealt))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{Dir, Pos};
    use crate::state::{Detail, Event};

    fn event(robot: &str, what: &'static str, detail: Detail) -> Event {
        Event {
            turn: 1,
            register: 1,
            segment: "".into(),
            robot: Some(robot.into()),
            what: what.into(),
            detail,
        }
    }

    #[test]
    fn standings_count_flags_lives_deaths_and_damage_dealt_the_winner_first() {
        let robot = |name: &str, flags: u32, lives: i32| Robot {
            flags,
            lives,
            ..Robot::new(name, Pos::new(0, 0), Dir::N)
        };
        let robots = [robot("Ann", 1, 2), robot("Bob", 2, 3), robot("Cy", 1, 2)];
        let events = vec![
            event(
                "Ann",
                "damaged",
                crate::detail! {"amount" => 2, "shooter" => "Cy"},
            ),
            event(
                "Bob",
                "damaged",
                crate::detail! {"amount" => 1, "shooter" => "Cy"},
            ),
            event("Ann", "damaged", crate::detail! {"amount" => 1}),
            event(
                "Cy",
                "damaged",
                crate::detail! {"amount" => 5, "shooter" => "Cy"},
            ),
            event("Ann", "destroyed", Detail::new()),
            event("Ann", "destroyed", Detail::new()),
            event("Cy", "won", Detail::new()),
        ];
        let history = [TurnRecord {
            turn: 1,
            dealt: Vec::new(),
            events,
            snapshots: Vec::new(),
        }];
        let s = of(&robots, &history);
        let line = |name: &str| s.iter().find(|s| s.robot == name).unwrap().clone();
        assert_eq!(
            s.iter().map(|s| s.robot.as_str()).collect::<Vec<_>>(),
            ["Cy", "Bob", "Ann"],
            "the winner, then by flags, then fewer deaths"
        );
        assert!(line("Cy").winner && !line("Bob").winner);
        assert_eq!(
            line("Cy").damage_dealt,
            3,
            "not the board's laser, not itself"
        );
        assert_eq!(
            (line("Ann").deaths, line("Ann").lives, line("Ann").flags),
            (2, 2, 1)
        );
        assert_eq!(line("Bob").damage_dealt, 0);
    }
}
