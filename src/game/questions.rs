//! The decisions the turn loop itself asks a robot's player (rules.md §7.4, §7.5): whether a
//! damaged robot powers down next turn, whether a powered-down robot stays down, and, when a
//! destroyed robot re-enters, which way it faces and whether it re-enters powered down.
//!
//! Each is a [`Question`](crate::decision::Question) through the decision interface, the
//! same as the questions scripts ask (`ctx:choose`), so whoever sits at a robot answers all
//! of them one way: a scenario's fixed `choices`, the bots' policy, a person at the
//! terminal or at the browser table. The first choice is the default: no, and the facing
//! the robot has. The answers are logged as `chose`, so a replay plays them again.

use crate::decision::{Words, POWER_DOWN, REENTER_FACING, REENTER_POWERED_DOWN, STAY_DOWN};
use crate::engine::Engine;
use crate::error::Result;
use crate::geometry::Dir;
use crate::state::RobotId;

/// A damaged robot's player announces power down for the next turn, or not (§7.4). Bots
/// are told the damage (`detail.damage`).
pub fn power_down(engine: &Engine, robot: RobotId) -> Result<bool> {
    let damage = engine.state().robots[robot].damage;
    yes_no(engine, robot, POWER_DOWN, || {
        let text = format!(
            "Power down next turn? It has {damage} damage: powered down it discards all damage, but plays no cards, does not move and does not fire."
        );
        (text, hint("damage", damage.into()))
    })
}

/// A powered-down robot stays down for the next turn too, or not.
pub fn stay_down(engine: &Engine, robot: RobotId) -> Result<bool> {
    yes_no(engine, robot, STAY_DOWN, || {
        (
            "Stay powered down next turn too?".into(),
            Default::default(),
        )
    })
}

/// A robot back on its archive square: the way it faces (its facing now first, the default,
/// §7.5). Bots are advised the facing that needs the fewest turns towards the next flag
/// (`detail.advice`).
pub fn reenter_facing(engine: &Engine, robot: RobotId) -> Result<Dir> {
    let (facing, at, damage) = {
        let r = &engine.state().robots[robot];
        (r.facing, r.at, r.damage)
    };
    let choices: Vec<String> = std::iter::once(facing)
        .chain(Dir::ALL.into_iter().filter(|&d| d != facing))
        .map(|d| d.name().to_string())
        .collect();
    let answer = engine.choose(robot, REENTER_FACING, choices, || {
        let advice = crate::game::bot::reentry_facing(engine, robot);
        // `at`: the square, which a table marks on its board with the facings to pick from.
        let mut detail = hint("advice", advice.name().into());
        detail.insert("at".into(), serde_json::json!([at.x, at.y]));
        let text = format!("It re-enters at {at} with {damage} damage. Which way does it face?");
        (text, detail)
    })?;
    Ok(Dir::parse(&answer).unwrap_or(facing))
}

/// A robot back on the board re-enters powered down for the next turn, or not (§7.5).
pub fn reenter_powered_down(engine: &Engine, robot: RobotId) -> Result<bool> {
    yes_no(engine, robot, REENTER_POWERED_DOWN, || {
        let text = "Re-enter powered down (skip next turn, discard all damage)?";
        (text.into(), Default::default())
    })
}

/// A question's detail with one hint for bots.
fn hint(key: &str, value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    serde_json::Map::from_iter([(key.to_string(), value)])
}

fn yes_no(
    engine: &Engine,
    robot: RobotId,
    key: &str,
    words: impl FnOnce() -> Words,
) -> Result<bool> {
    let answer = engine.choose(robot, key, vec!["no".into(), "yes".into()], words)?;
    Ok(answer == "yes")
}
