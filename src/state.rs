//! The game state: plain data, serializable, owned by the core. Scripts read it through views
//! and change it only through primitives, so it can be snapshotted (register rollback), saved
//! and kept across a hot reload.

use crate::cards::Card;
use crate::geometry::{Dir, Pos};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// Index of a robot in [`State::robots`]; stable for the whole game.
pub type RobotId = usize;

/// Damage that destroys a robot (rules.md §6.5).
pub const LETHAL_DAMAGE: i32 = 10;
/// Registers per turn.
pub const REGISTERS: usize = 5;
/// Damage a destroyed robot re-enters with (rules.md §7.5), before its options (Superior
/// Archive) have their say.
pub const REENTRY_DAMAGE: i32 = 2;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Robot {
    /// Shared with the events that name the robot: logging one copies no text.
    pub name: Arc<str>,
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
    /// Shared with the copies of the state until a script writes (`ctx:set_var`), so a
    /// register's copy for a rollback, or a bot's rehearsal, copies no map.
    pub vars: Vars,
    /// Option cards held, in the order they were drawn (rules.md §6.6). Omitted from the
    /// JSON while empty, so games without options print what they always printed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<HeldOption>,
    /// The cards in registers 1..=5; `None` is an empty register (the robot idles).
    /// Not part of the JSON state; saves store it beside the state (`game::save`).
    #[serde(skip_serializing, default)]
    pub program: Vec<Option<Card>>,
    /// The cards dealt this turn and not (yet) programmed: the hand while the robot programs,
    /// the leftovers while the `on_program` hooks run; empty outside programming (a stage of
    /// its own, so never saved).
    #[serde(skip)]
    pub hand: Vec<Card>,
    /// Program cards set aside on an option (Flywheel, Conditional Program), by key: out of
    /// the deck until a script gives them back or discards them. Omitted while empty.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub kept: BTreeMap<String, Kept>,
    /// Registers (1..=5) holding a damage token put there by name rather than by the
    /// sheet's order (Fire Control, rules.md §6.4 erratum): each is locked and counts in
    /// `damage` (`crate::deal::locked`). Omitted while empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<u8>,
    /// When it was destroyed this turn (order of destruction decides re-entry, §7.5).
    #[serde(skip)]
    pub destroyed_order: Option<u64>,
}

/// Script memory (`ctx:set_var`, `ctx:set_game_var`): copied on write.
pub type Vars = Arc<Map<String, Value>>;

/// `Clone` for the state's types, whose `clone_from` reuses the allocations of the value it
/// overwrites: a register's transaction and a bot's rehearsals copy the state over and over.
/// The destructuring is exhaustive, so a new field cannot be forgotten. The maps (after
/// `maps:`) are copied only when one of the two holds something: a map's own `clone_from`
/// drops and rebuilds it even when both are empty, as most robots' are. The shared values
/// (after `shared:`, `Arc`s) are copied only when the two differ: the copy and the drop of
/// an `Arc` are two atomic operations, for a value that is almost always the same one.
macro_rules! clone_reusing {
    ($ty:ident { $($field:ident),* $(,)? } maps: { $($map:ident),* $(,)? }
        shared: { $($arc:ident),* $(,)? }) => {
        impl Clone for $ty {
            fn clone(&self) -> $ty {
                $ty {
                    $($field: self.$field.clone(),)*
                    $($map: self.$map.clone(),)*
                    $($arc: self.$arc.clone(),)*
                }
            }

            fn clone_from(&mut self, source: &$ty) {
                let $ty { $($field,)* $($map,)* $($arc),* } = self;
                $($field.clone_from(&source.$field);)*
                $(if !($map.is_empty() && source.$map.is_empty()) {
                    $map.clone_from(&source.$map);
                })*
                $(if !Arc::ptr_eq($arc, &source.$arc) {
                    $arc.clone_from(&source.$arc);
                })*
            }
        }
    };
}

clone_reusing!(Robot {
    at,
    facing,
    damage,
    lives,
    flags,
    archive,
    destroyed,
    powered_down,
    options,
    program,
    hand,
    tokens,
    destroyed_order,
} maps: { kept } shared: { name, vars });

clone_reusing!(State {
    turn,
    register,
    robots,
    rng,
    events,
    destructions,
    segment,
    option_deck,
    option_discards,
    deck,
    copied,
    finished,
    quiet,
} maps: {} shared: { vars });

impl Robot {
    pub fn new(name: impl Into<Arc<str>>, at: Pos, facing: Dir) -> Robot {
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
            vars: Vars::default(),
            options: Vec::new(),
            program: Vec::new(),
            hand: Vec::new(),
            kept: BTreeMap::new(),
            tokens: Vec::new(),
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

    /// The robot as its JSON keeps it (no program, no order of destruction), so a copy kept
    /// in a save equals itself read back.
    pub fn as_saved(&self) -> Robot {
        Robot {
            program: Vec::new(),
            destroyed_order: None,
            ..self.clone()
        }
    }

    /// Where the robot's option `name` is in its hand, if it holds it.
    pub fn option(&self, name: &str) -> Option<usize> {
        self.options.iter().position(|o| o.name == name)
    }
}

/// An option card a robot holds (rules.md §6.6).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldOption {
    pub name: String,
    /// Ammunition left, for options declared with `uses = n` (Ablative Coat's 3 points);
    /// absent for options without a limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uses_left: Option<u32>,
}

/// A program card set aside on an option (`ctx:keep_card`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    pub card: Card,
    /// Offered with the hand when the robot programs (Flywheel): a program may use it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub offered: bool,
}

/// The robots after one step of a register, or one robot's card, in which something happened:
/// what the replay viewer and the playtest table show frame by frame. The engine notes them
/// only when asked (`Engine::run_register_noted`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepSnapshot {
    /// The step of the order of play just resolved, or `card` after one robot's card.
    pub step: String,
    /// The robot whose card it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robot: Option<String>,
    /// How many of the stage's events had been logged by then.
    pub events: usize,
    pub robots: Vec<Robot>,
}

/// One thing that happened, for the log, the JSON output and replays. Its details are
/// written as fields of the event beside its own ([`EVENT_FIELDS`]), which no detail may
/// be named (`Detail::insert`, and scripts' `ctx:log` refuses them), so every event reads
/// back as it was written.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Event {
    pub turn: u32,
    pub register: u8,
    pub segment: Cow<'static, str>,
    /// The robot's name, shared with the state's other events (logging one copies no text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robot: Option<Arc<str>>,
    pub what: Cow<'static, str>,
    #[serde(flatten)]
    pub detail: Detail,
}

/// An event's own fields in JSON: no detail is named one of these.
pub const EVENT_FIELDS: [&str; 5] = ["turn", "register", "segment", "robot", "what"];

/// Whether `key` is one of an event's own fields, which no detail may be named.
pub fn is_event_field(key: &str) -> bool {
    EVENT_FIELDS.contains(&key)
}

impl<'de> Deserialize<'de> for Event {
    /// An event as [`Event`] writes it: its own fields and, around them, its details. A save
    /// or replay of an older rally may hold a detail under an event's own name after the
    /// event's own (`card_set`'s `register`): that one is read as `in_register` (`in_` and
    /// the name), the name such a detail has now, so those games still resume.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Event, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = Event;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an event: turn, register, segment, what, robot and its details")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Event, A::Error> {
                use serde::de::Error;
                let (mut turn, mut register, mut segment, mut robot, mut what) =
                    (None, None, None, None, None);
                let mut detail = Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    let seen = match key.as_str() {
                        "turn" => turn.is_some(),
                        "register" => register.is_some(),
                        "segment" => segment.is_some(),
                        "robot" => robot.is_some(),
                        "what" => what.is_some(),
                        _ => {
                            let value: Value = map.next_value()?;
                            if detail.insert(key.clone(), value).is_some() {
                                return Err(A::Error::custom(format!("duplicate detail `{key}`")));
                            }
                            continue;
                        }
                    };
                    if seen {
                        let value: Value = map.next_value()?;
                        let renamed = format!("in_{key}");
                        if detail.insert(renamed.clone(), value).is_some() {
                            return Err(A::Error::custom(format!("duplicate detail `{renamed}`")));
                        }
                        continue;
                    }
                    match key.as_str() {
                        "turn" => turn = Some(map.next_value::<u32>()?),
                        "register" => register = Some(map.next_value::<u8>()?),
                        "segment" => segment = Some(map.next_value::<String>()?),
                        "robot" => robot = Some(map.next_value::<Option<String>>()?),
                        _ => what = Some(map.next_value::<String>()?),
                    }
                }
                Ok(Event {
                    turn: turn.ok_or_else(|| A::Error::missing_field("turn"))?,
                    register: register.ok_or_else(|| A::Error::missing_field("register"))?,
                    segment: segment
                        .ok_or_else(|| A::Error::missing_field("segment"))?
                        .into(),
                    robot: robot.flatten().map(Arc::from),
                    what: what.ok_or_else(|| A::Error::missing_field("what"))?.into(),
                    detail: detail.into(),
                })
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

impl Event {
    /// Whether a script logged the event (`ctx:log`): the engine names its own events with
    /// static text, a script's event carries the name the script gave it. (An event read
    /// back from a file has lost the distinction: this is for events as a game logs them.)
    pub fn scripted(&self) -> bool {
        matches!(self.what, Cow::Owned(_))
    }
}

/// An event's details: a small list of named values, written as fields of the event in JSON.
/// Native events name their fields with static text and log their values as they are
/// ([`Field`]): they become JSON values only when one is read, which most never are.
/// Kept sorted by name, so an event reads back exactly as it was written (saves, replays).
#[derive(Clone, Debug, Default)]
pub struct Detail {
    fields: Vec<(Cow<'static, str>, Field)>,
    /// The fields as JSON values, made on the first read.
    json: OnceLock<Vec<Value>>,
}

/// One detail as logged.
#[derive(Clone, Debug)]
pub enum Field {
    Json(Value),
    /// A name that lives as long as the program (a direction, how a robot moved).
    Name(&'static str),
    Text(String),
    /// A robot's name, shared with the robot.
    Shared(Arc<str>),
    Int(i64),
    Bool(bool),
    Pos(Pos),
    /// A program card, written as its text (`move2@700`).
    Card(Card),
}

impl Field {
    fn to_json(&self) -> Value {
        match self {
            Field::Json(v) => v.clone(),
            Field::Name(s) => Value::from(*s),
            Field::Text(s) => Value::from(s.as_str()),
            Field::Shared(s) => Value::from(&**s),
            Field::Int(n) => Value::from(*n),
            Field::Bool(b) => Value::from(*b),
            Field::Pos(p) => Value::from(vec![p.x, p.y]),
            Field::Card(c) => Value::from(c.text()),
        }
    }
}

impl Serialize for Field {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Json(v) => v.serialize(serializer),
            Field::Name(s) => serializer.serialize_str(s),
            Field::Text(s) => serializer.serialize_str(s),
            Field::Shared(s) => serializer.serialize_str(s),
            Field::Int(n) => serializer.serialize_i64(*n),
            Field::Bool(b) => serializer.serialize_bool(*b),
            Field::Pos(p) => p.serialize(serializer),
            Field::Card(c) => serializer.serialize_str(&c.text()),
        }
    }
}

impl From<Value> for Field {
    fn from(v: Value) -> Field {
        Field::Json(v)
    }
}

impl From<&'static str> for Field {
    fn from(s: &'static str) -> Field {
        Field::Name(s)
    }
}

impl From<String> for Field {
    fn from(s: String) -> Field {
        Field::Text(s)
    }
}

impl From<Arc<str>> for Field {
    fn from(s: Arc<str>) -> Field {
        Field::Shared(s)
    }
}

impl From<bool> for Field {
    fn from(b: bool) -> Field {
        Field::Bool(b)
    }
}

impl From<Pos> for Field {
    fn from(p: Pos) -> Field {
        Field::Pos(p)
    }
}

impl From<Card> for Field {
    fn from(c: Card) -> Field {
        Field::Card(c)
    }
}

impl From<Dir> for Field {
    fn from(d: Dir) -> Field {
        Field::Name(d.name())
    }
}

macro_rules! int_fields {
    ($($t:ty),*) => {$(
        impl From<$t> for Field {
            fn from(n: $t) -> Field {
                Field::Int(n.into())
            }
        }
    )*};
}
int_fields!(i32, u32, u8, i64);

impl<T: Into<Field>> From<Option<T>> for Field {
    fn from(v: Option<T>) -> Field {
        v.map_or(Field::Json(Value::Null), Into::into)
    }
}

impl From<Vec<String>> for Field {
    fn from(v: Vec<String>) -> Field {
        Field::Json(Value::from(v))
    }
}

impl PartialEq for Detail {
    fn eq(&self, other: &Detail) -> bool {
        self.fields.len() == other.fields.len() && self.iter().eq(other.iter())
    }
}

impl Detail {
    pub fn new() -> Detail {
        Detail::default()
    }

    /// Details already in the order of their names, each name once (what `detail!` builds).
    pub fn sorted(fields: Vec<(Cow<'static, str>, Field)>) -> Detail {
        debug_assert!(fields.windows(2).all(|w| w[0].0 < w[1].0), "{fields:?}");
        Detail {
            fields,
            json: OnceLock::new(),
        }
    }

    /// Sets detail `key`, which may not be one of the event's own fields ([`EVENT_FIELDS`]:
    /// scripts' details are checked before they get here, the engine's own are fixed text).
    pub fn insert(&mut self, key: impl Into<Cow<'static, str>>, value: impl Into<Field>) {
        let key = key.into();
        debug_assert!(
            !is_event_field(&key),
            "an event's detail named `{key}`, one of the event's own fields"
        );
        let value = value.into();
        self.json.take();
        // A name after the last needs no search.
        if self
            .fields
            .last()
            .is_none_or(|(k, _)| k.as_ref() < key.as_ref())
        {
            self.fields.push((key, value));
            return;
        }
        match self
            .fields
            .binary_search_by(|(k, _)| k.as_ref().cmp(key.as_ref()))
        {
            Ok(i) => self.fields[i].1 = value,
            Err(i) => self.fields.insert(i, (key, value)),
        }
    }

    /// The fields as JSON values, in order.
    fn values(&self) -> &[Value] {
        self.json
            .get_or_init(|| self.fields.iter().map(|(_, f)| f.to_json()).collect())
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        let i = self.fields.iter().position(|(k, _)| k == key)?;
        Some(&self.values()[i])
    }

    /// The field `key` as it was logged, without making JSON of the details (what a
    /// study's counting reads on every move).
    pub fn field(&self, key: &str) -> Option<&Field> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, f)| f)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.fields
            .iter()
            .map(|(k, _)| k.as_ref())
            .zip(self.values())
    }
}

impl From<Map<String, Value>> for Detail {
    /// Details from a script (`ctx:log`, checked there) or a file (`Event`'s reader).
    fn from(map: Map<String, Value>) -> Detail {
        debug_assert!(!map.keys().any(|k| is_event_field(k)), "{map:?}");
        Detail {
            fields: map
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k), Field::Json(v)))
                .collect(),
            json: OnceLock::new(),
        }
    }
}

impl Serialize for Detail {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.fields.len()))?;
        for (k, v) in &self.fields {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// SplitMix64: tiny, fast, and its whole state is one number, so it saves and restores with
/// the game (design.md principle 4: every random choice comes from here).
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

/// The state of a game as the engine resolves it: the robots, the turn and register, the
/// decks, the script memory, the RNG and the events so far (a whole game adds the turn loop's
/// `game::Progress`).
#[derive(Debug, Serialize, Deserialize)]
pub struct State {
    pub turn: u32,
    /// The register being resolved (1..=5), or 0 outside the registers.
    pub register: u8,
    pub robots: Vec<Robot>,
    pub rng: Rng,
    /// Game-wide script memory, shared as a robot's is.
    pub vars: Vars,
    pub events: Vec<Event>,
    /// Counts destructions, so re-entry can follow their order.
    pub destructions: u64,
    /// The segment being resolved, stamped on events.
    pub segment: Cow<'static, str>,
    /// The option deck, top card last; `None` until the first draw shuffles every loaded
    /// option not held by a robot into it (a scenario may fix it: `option_deck`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option_deck: Option<Vec<String>>,
    /// Options scrapped or lost; shuffled back into the deck when it runs out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub option_discards: Vec<String>,
    /// This turn's program deck, top card last: what the deal left (`crate::deal`); `None`
    /// until the turn's deal or first draw builds it, again after the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deck: Option<Vec<Card>>,
    /// Registers (robot, register 1..=5) holding a copy of another robot's card this turn
    /// (Radio Control): on a tie of priorities the original's robot acts first (rules.md §9
    /// #20).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copied: Vec<(RobotId, u8)>,
    /// The robots that touched the last flag, by name, in their places: the first won, the
    /// others are ranked behind it (rules.md §7.1). Omitted while empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finished: Vec<String>,
    /// Log nothing: a bot rehearsing programs reads only where the robots end up, and the
    /// events it would log are most of what a rehearsal allocates. Not part of the state.
    #[serde(skip)]
    pub quiet: bool,
}

/// Events a log makes room for when it begins: about what a crowded register logs.
const LOG_ROOM: usize = 32;

impl State {
    pub fn new(robots: Vec<Robot>, seed: u64) -> State {
        State {
            turn: 1,
            register: 0,
            robots,
            rng: Rng::new(seed),
            vars: Vars::default(),
            events: Vec::new(),
            destructions: 0,
            segment: "setup".into(),
            option_deck: None,
            option_discards: Vec::new(),
            deck: None,
            copied: Vec::new(),
            finished: Vec::new(),
            quiet: false,
        }
    }

    pub fn robot_at(&self, pos: Pos) -> Option<RobotId> {
        self.robots
            .iter()
            .position(|r| r.is_active() && r.at == pos)
    }

    pub fn find(&self, name: &str) -> Option<RobotId> {
        self.robots.iter().position(|r| *r.name == *name)
    }

    /// Records an event. Names are usually static text, so logging allocates little: the log
    /// is written on every move and is a measurable part of resolving a turn.
    /// Logs an event, unless the state is [`quiet`](State::quiet). `detail` may be a
    /// closure, so that a quiet state does not even build it.
    pub fn log(
        &mut self,
        robot: Option<RobotId>,
        what: impl Into<Cow<'static, str>>,
        detail: impl IntoDetail,
    ) {
        if self.quiet {
            return;
        }
        let robot = robot.map(|id| self.robots[id].name.clone());
        if self.events.capacity() == 0 {
            // A stage's log starts empty (the last one was handed on): room for a register's
            // events at once, rather than four reallocations on the way there.
            self.events.reserve(LOG_ROOM);
        }
        self.events.push(Event {
            turn: self.turn,
            register: self.register,
            segment: self.segment.clone(),
            robot,
            what: what.into(),
            detail: detail.into_detail(),
        });
    }
}

/// The end of one resolution: what happened, and where every robot ended up.
#[derive(Clone, Debug, Default)]
pub struct Resolution {
    pub events: Vec<Event>,
    pub robots: Vec<Robot>,
}

impl Resolution {
    pub fn of(state: &State) -> Resolution {
        Resolution {
            events: state.events.clone(),
            robots: state.robots.clone(),
        }
    }
}

/// What [`State::log`] takes as an event's details: a [`Detail`], a JSON map, or a
/// closure that makes one when the event is logged.
pub trait IntoDetail {
    fn into_detail(self) -> Detail;
}

impl IntoDetail for Detail {
    fn into_detail(self) -> Detail {
        self
    }
}

impl IntoDetail for Map<String, Value> {
    fn into_detail(self) -> Detail {
        self.into()
    }
}

impl<F: FnOnce() -> Detail> IntoDetail for F {
    fn into_detail(self) -> Detail {
        self()
    }
}

/// Builds an event's details: `detail!{"dir" => dir, "to" => pos}`. The names are written
/// in their order (checked as the program compiles), so the details are built as they are
/// kept, sorted, without a comparison as the game runs.
#[macro_export]
macro_rules! detail {
    () => {
        $crate::state::Detail::new()
    };
    ($($key:literal => $value:expr),+ $(,)?) => {{
        const _: () = assert!(
            $crate::state::in_order(&[$($key),+]),
            "the names of a `detail!` are written in their order"
        );
        let mut fields = ::std::vec::Vec::with_capacity($crate::state::DETAIL_ROOM);
        $(fields.push((::std::borrow::Cow::Borrowed($key), $crate::state::Field::from($value)));)+
        $crate::state::Detail::sorted(fields)
    }};
}

/// The details a `detail!` makes room for: an event's details are few, and the engine adds
/// one or two to some after the macro (a shot's source, what caused a move), which then need
/// no second allocation.
pub const DETAIL_ROOM: usize = 6;

/// Whether `names` are in strictly increasing order (`detail!` checks its names with it as
/// the program compiles).
pub const fn in_order(names: &[&str]) -> bool {
    let mut i = 1;
    while i < names.len() {
        let (a, b) = (names[i - 1].as_bytes(), names[i].as_bytes());
        let mut j = 0;
        loop {
            if j == b.len() {
                return false;
            }
            if j == a.len() || a[j] < b[j] {
                break;
            }
            if a[j] > b[j] {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_reads_back_as_written_and_an_older_colliding_detail_is_renamed() {
        let event = Event {
            turn: 2,
            register: 3,
            segment: "robots_move".into(),
            robot: Some(Arc::from("Ann")),
            what: "card_set".into(),
            detail: crate::detail! {"from" => "move1@490".to_string(), "in_register" => 4u8},
        };
        let text = serde_json::to_string(&event).unwrap();
        assert_eq!(serde_json::from_str::<Event>(&text).unwrap(), event);
        // What rally wrote before details and the event's own fields were kept apart.
        let older = r#"{"turn":2,"register":3,"segment":"robots_move","robot":"Ann","what":"card_set","from":"move1@490","in_register":4}"#
            .replace(r#""in_register""#, r#""register""#);
        assert_eq!(serde_json::from_str::<Event>(&older).unwrap(), event);
        for bad in [
            r#"{"register":3,"segment":"s","what":"w"}"#,
            r#"{"turn":1,"register":3,"segment":"s","what":"w","register":1,"in_register":2}"#,
        ] {
            assert!(serde_json::from_str::<Event>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn detail_names_are_in_order_when_each_comes_after_the_last() {
        assert!(in_order(&[]) && in_order(&["to"]));
        assert!(in_order(&["dir", "how", "to"]));
        assert!(in_order(&["a", "ab", "b"]), "a prefix comes first");
        assert!(!in_order(&["ab", "a"]));
        assert!(!in_order(&["to", "dir"]));
        assert!(!in_order(&["dir", "dir"]), "a name twice");
    }

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
