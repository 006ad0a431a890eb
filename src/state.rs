//! The game state: plain data, serializable, owned by the core. Scripts read it through views
//! and change it only through primitives, so it can be snapshotted (register rollback), saved
//! and kept across a hot reload.

use crate::cards::Card;
use crate::geometry::{Dir, Pos};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Index of a robot in [`GameState::robots`]; stable for the whole game.
pub type RobotId = usize;

/// Damage that destroys a robot (rules.md §6.5).
pub const LETHAL_DAMAGE: i32 = 10;
/// Registers per turn.
pub const REGISTERS: usize = 5;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Robot {
    pub name: String,
    pub at: Pos,
    pub facing: Dir,
    pub damage: i32,
    pub lives: i32,
    /// Checkpoints touched, in order.
    pub flags: u32,
    pub archive: Pos,
    pub destroyed: bool,
    pub powered_down: bool,
    /// What scripts remember about this robot (an ice robot's speed, a portal cooldown...).
    pub vars: Map<String, Value>,
    /// The cards in registers 1..=5; `None` is an empty register (the robot idles).
    /// Not part of the JSON state; saves store it beside the state (`game::save`).
    #[serde(skip_serializing, default)]
    pub program: Vec<Option<Card>>,
    /// When it was destroyed this turn (order of destruction decides re-entry, §7.5).
    #[serde(skip)]
    pub destroyed_order: Option<u64>,
}

impl Robot {
    pub fn new(name: impl Into<String>, at: Pos, facing: Dir) -> Robot {
        Robot {
            name: name.into(),
            at,
            facing,
            damage: 0,
            lives: 3,
            flags: 0,
            archive: at,
            destroyed: false,
            powered_down: false,
            vars: Map::new(),
            program: Vec::new(),
            destroyed_order: None,
        }
    }

    /// On the board and able to be moved, pushed and shot.
    pub fn is_active(&self) -> bool {
        !self.destroyed
    }

    pub fn card(&self, register: u8) -> Option<Card> {
        self.program.get(register as usize - 1).copied().flatten()
    }
}

/// One thing that happened, for the log, the JSON output and replays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub turn: u32,
    pub register: u8,
    pub segment: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robot: Option<String>,
    pub what: String,
    #[serde(flatten)]
    pub detail: Map<String, Value>,
}

/// SplitMix64: tiny, fast, and its whole state is one number, so it saves and restores with
/// the game (rules.md determinism: every random choice comes from here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `1..=n` (like Lua's `math.random(n)`); `n` must be at least 1.
    pub fn roll(&mut self, n: u64) -> u64 {
        1 + self.next_u64() % n.max(1)
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GameState {
    pub turn: u32,
    /// The register being resolved (1..=5), or 0 outside the registers.
    pub register: u8,
    pub robots: Vec<Robot>,
    pub rng: Rng,
    /// Game-wide script memory.
    pub vars: Map<String, Value>,
    pub events: Vec<Event>,
    /// Counts destructions, so re-entry can follow their order.
    pub destructions: u64,
    /// The segment being resolved, stamped on events.
    pub segment: String,
}

impl GameState {
    pub fn new(robots: Vec<Robot>, seed: u64) -> GameState {
        GameState {
            turn: 1,
            register: 0,
            robots,
            rng: Rng::new(seed),
            vars: Map::new(),
            events: Vec::new(),
            destructions: 0,
            segment: "setup".into(),
        }
    }

    pub fn robot_at(&self, pos: Pos) -> Option<RobotId> {
        self.robots
            .iter()
            .position(|r| r.is_active() && r.at == pos)
    }

    pub fn find(&self, name: &str) -> Option<RobotId> {
        self.robots.iter().position(|r| r.name == name)
    }

    pub fn log(&mut self, robot: Option<RobotId>, what: &str, detail: Map<String, Value>) {
        let robot = robot.map(|id| self.robots[id].name.clone());
        self.events.push(Event {
            turn: self.turn,
            register: self.register,
            segment: self.segment.clone(),
            robot,
            what: what.to_string(),
            detail,
        });
    }
}

/// Builds an event's detail map: `detail!{"to" => pos, "dir" => dir}`.
#[macro_export]
macro_rules! detail {
    ($($key:expr => $value:expr),* $(,)?) => {{
        #[allow(unused_mut)]
        let mut map = serde_json::Map::new();
        $(map.insert($key.to_string(), serde_json::json!($value));)*
        map
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_deterministic_and_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..100 {
            let x = a.roll(6);
            assert_eq!(x, b.roll(6));
            assert!((1..=6).contains(&x));
        }
    }
}
