//! Reading what scripts declare (`rally.element { ... }`, `rally.rule { ... }`) into native
//! definitions, checking every key so that a typo is a clear error, not a silent no-op.

use super::views::open;
use crate::board::params::{Kind, ParamSpec, ParamSpecs};
use crate::hooks::{Hook, Listener};
use crate::order::{NewStep, Steps};
use crate::text::sentence::Sentences;
use mlua::{Function, Lua, Table, Value};
use serde::de::DeserializeOwned;
use serde::Deserialize;

/// A few handlers keyed by step or event. A short list beats hashing here: a declaration has
/// a handful at most, and they are looked up for every step of every register.
#[derive(Clone, Debug)]
pub struct Handlers<K, F = Function>(Vec<(K, F)>);

impl<K, F> Default for Handlers<K, F> {
    fn default() -> Self {
        Handlers(Vec::new())
    }
}

impl<K: PartialEq, F> Handlers<K, F> {
    pub fn insert(&mut self, key: K, f: F) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = f,
            None => self.0.push((key, f)),
        }
    }

    pub fn get(&self, key: &K) -> Option<&F> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, f)| f)
    }

    pub fn contains_key(&self, key: &K) -> bool {
        self.get(key).is_some()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &F)> {
        self.0.iter().map(|(k, f)| (k, f))
    }
}

impl<F> Handlers<usize, F> {
    /// Keys step handlers by their step's place in the final order of play (they were keyed
    /// by the steps' ids while the scripts loaded: [`Steps`]).
    pub fn place(&mut self, place: &[usize]) {
        for (step, _) in &mut self.0 {
            *step = place[*step];
        }
    }
}

/// A board element as its script declared it.
#[derive(Clone, Debug)]
pub struct ElementDef {
    pub name: String,
    pub describe: String,
    /// The script file, as shown in messages.
    pub file: String,
    pub params: ParamSpecs,
    /// Text drawn for this element in `rally run`: a string or `function(tile) -> string`.
    pub glyph: Option<Value>,
    /// How `rally render` draws it (`draw = { ... }`: [`super::draw`]).
    pub draw: Option<super::draw::Drawing>,
    pub build: Option<Function>,
    /// Step handlers called for each robot standing on a tile, by step id: functions or
    /// standard effects.
    pub steps: Handlers<usize, Step>,
    /// Step handlers called once for every tile, occupied or not, by step id: functions or
    /// standard effects.
    pub tile_steps: Handlers<usize, Step>,
    /// It replaced an element of the same name (`replace = true`).
    pub replaces: bool,
    /// The layer its file belongs to (an index into the rule set's layers: `super::layers`).
    pub layer: usize,
    /// Handlers of the hooks a square's element hears (`on_enter`...: `crate::hooks`):
    /// functions, or an effect that needs no parameter of the tile (`rally.effect.destroy`).
    pub hooks: Handlers<Hook, Step>,
    /// `blocks = { lasers = ... }`: its `on_cross` is asked before a robot crosses an edge of
    /// its square, and may refuse it (`{ block = true }`).
    pub blocks: Option<Blocks>,
    /// The sentences of the events it logs (`events = { name = "..." }`).
    pub events: Sentences,
    /// `public_vars = { "ice" }`: the robot vars it writes that everyone may see (at a
    /// playtest table a robot's other vars are its own seat's alone).
    pub public_vars: Vec<String>,
}

/// A game-wide rule (robot lasers, a variant's house rule) as its script declared it.
#[derive(Clone, Debug)]
pub struct RuleDef {
    pub name: String,
    pub describe: String,
    pub file: String,
    /// Step handlers by step id: functions or a game's standard effect
    /// (`rally.effect.robot_lasers`).
    pub steps: Handlers<usize, Step>,
    /// Handlers of the hooks the rules hear (`crate::hooks`).
    pub hooks: Handlers<Hook>,
    /// It replaced a rule of the same name (`replace = true`).
    pub replaces: bool,
    /// The layer its file belongs to (an index into the rule set's layers).
    pub layer: usize,
    /// The sentences of the events it logs (`events = { name = "..." }`).
    pub events: Sentences,
    /// `only_with = { "ice", ... }`: the rule does something only on a board with one of
    /// these elements (it looks after them). Used to tell when a variant changes nothing.
    pub only_with: Vec<String>,
    /// `public_vars = { "ice" }`: the robot vars it writes that everyone may see (at a
    /// playtest table a robot's other vars are its own seat's alone).
    pub public_vars: Vec<String>,
    /// `hears = "robots_with_options"`: which robots its hooks are told about.
    pub hears: Hears,
}

/// The robots a rule's hooks are told about (`hears`): every robot, or only those holding
/// an option card, for a rule that can matter only to them (scrapping options to absorb
/// damage, losing one when destroyed), so that it is not called for the others at all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hears {
    #[default]
    AllRobots,
    RobotsWithOptions,
}

impl RuleDef {
    /// Whether the rule can change anything on a board whose elements pass `present`: it
    /// replaced another rule, or it has a handler and the board has an element it looks
    /// after (any board, without `only_with`).
    pub fn acts(&self, present: &dyn Fn(&str) -> bool) -> bool {
        self.replaces
            || ((!self.steps.is_empty() || !self.hooks.is_empty())
                && (self.only_with.is_empty() || self.only_with.iter().any(|e| present(e))))
    }
}

/// An option card as its script declared it (`rally.option { ... }`, `scripts/options/`).
/// Its handlers run for each robot holding it, with the option (`{ name, uses, max_uses }`)
/// as their last argument.
#[derive(Clone, Debug)]
pub struct OptionDef {
    pub name: String,
    pub describe: String,
    pub file: String,
    /// The layer its file belongs to (an index into the rule set's layers).
    pub layer: usize,
    /// The sentences of the events it logs (`events = { name = "..." }`).
    pub events: Sentences,
    /// Ammunition (`uses = n`): a drawn card starts with n; `None`: no limit.
    pub uses: Option<u32>,
    /// Handlers of the hooks the holder's options hear (`crate::hooks`), with the option
    /// (`{ name, uses, max_uses }`) as their last argument.
    pub hooks: Handlers<Hook>,
    /// A shot that may replace the holder's main laser (Pressor Beam...).
    pub shot: Option<Shot>,
    /// Step handlers, called once per robot holding the option (on the board), after the
    /// rules' handlers of that step: `(ctx, robot, option)`.
    pub steps: Handlers<usize>,
    /// Value modifiers by key: `(ctx, robot, value, option)` returns the new value (nil
    /// keeps it). `ctx:modify(robot, key, value)` runs them; the core asks `hand_size` and
    /// `reentry_damage`, the standard robot lasers ask `main_laser`.
    pub modify: Vec<(String, Function)>,
    /// `public_vars = { "ice" }`: the robot vars it writes that everyone may see (at a
    /// playtest table a robot's other vars are its own seat's alone).
    pub public_vars: Vec<String>,
}

/// `shot = { fire =, can =, advise = }`: what an option does instead of the main laser to the
/// robot the laser would hit. Each register the holder's laser hits a robot, its player
/// chooses between the laser and each option shot that `can` (question `shot`); chosen shots
/// resolve after the volley, in card-priority order (rules.md §6.3, §9 #21).
#[derive(Clone, Debug)]
pub struct Shot {
    /// `(ctx, robot, target, option, info)`, `info = { dir, strength }`: the shot's effect.
    pub fire: Function,
    /// `(ctx, robot, target, option)`: false when it cannot be used now (no effect, no
    /// ammunition); absent: always.
    pub can: Option<Function>,
    /// `(ctx, robot, target, option)`: true when a bot should use it (the question's advice).
    pub advise: Option<Function>,
}

impl OptionDef {
    pub fn modifier(&self, key: &str) -> Option<&Function> {
        self.modify.iter().find(|(k, _)| k == key).map(|(_, f)| f)
    }
}

/// Whether a declaration replaces one of the same name (variants overriding a standard
/// element or rule), or removes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replace {
    No,
    Yes,
}

/// What an element that may refuse crossings declares beside its `on_cross`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table { lasers = true|false }")]
pub struct Blocks {
    /// Its square's edges stop laser beams too, always (lasers are traced natively; the
    /// robots it lets through are the script's choice).
    #[serde(default)]
    pub lasers: bool,
}

/// The unknown-key problems a script file has shown so far that did not stop it loading
/// (`rally.param.*` drops an unknown key and goes on): the loader reports them all at the
/// end of the file, with the error that stopped it if one did, so that one run names every
/// misspelt key of a file. Present only while a file loads.
#[derive(Default)]
pub struct KeyProblems(pub Vec<String>);

/// Checks the keys of `table` against `allowed`. Every unknown key is a message placed at
/// the key (`file:line:column: `); while a file loads they are kept for the end of the file
/// ([`KeyProblems`]) and the keys dropped, so that the rest of the file is read too;
/// otherwise they are the error.
fn check_keys(lua: &Lua, table: &Table, allowed: &[&str], what: &str) -> mlua::Result<()> {
    let data = open(lua, table)?;
    let mut unknown = Vec::new();
    for pair in data.pairs::<Value, Value>() {
        let (key, _) = pair?;
        let name = key.to_string()?;
        if !allowed.contains(&name.as_str()) {
            unknown.push((key, name));
        }
    }
    if unknown.is_empty() {
        return Ok(());
    }
    let known: Vec<String> = allowed.iter().map(|k| k.to_string()).collect();
    let messages: Vec<String> = unknown
        .iter()
        .map(|(_, name)| {
            let place = key_place(lua, name).unwrap_or_else(|| super::sandbox::place(lua, 1));
            format!("{place}{}", unknown_key(what, name, &known))
        })
        .collect();
    match lua.app_data_mut::<KeyProblems>() {
        Some(mut kept) => {
            kept.0.extend(messages);
            for (key, _) in unknown {
                data.raw_set(key, Value::Nil)?;
            }
            Ok(())
        }
        None => Err(mlua::Error::runtime(messages.join("\n"))),
    }
}

/// Reads `{ step_name = function ... }`, checking each step name against the order of play.
fn step_table(
    lua: &Lua,
    table: &Table,
    key: &str,
    steps: &Steps,
    what: &str,
) -> mlua::Result<Handlers<usize>> {
    let mut out = Handlers::default();
    for (id, step) in step_entries(lua, table, key, steps, what, None)?.0 {
        if let Step::Lua(f) = step {
            out.insert(id, f);
        }
    }
    Ok(out)
}

/// Reads `{ step_name = function ... }` where a step may also be a standard effect
/// (`rally.effect.*`) when `place` says where it acts: an element's `steps` (the robots
/// standing on its tiles) or `tile_steps` (each tile), whose effects name its parameters.
fn step_entries(
    lua: &Lua,
    table: &Table,
    key: &str,
    steps: &Steps,
    what: &str,
    place: Option<(Acts, &ParamSpecs)>,
) -> mlua::Result<Handlers<usize, Step>> {
    let mut out = Handlers::default();
    let Some(handlers) = table.get::<Option<Table>>(key)? else {
        return Ok(out);
    };
    for pair in open(lua, &handlers)?.pairs::<String, Value>() {
        let (name, handler) = pair?;
        let id = steps.id(&name).ok_or_else(|| {
            let names = steps.names();
            mlua::Error::runtime(format!(
                "{what}: `{key}.{name}` is not a step of the order of play{}; steps are {} (a step of its own: `new_steps`)",
                crate::error::suggest(&name, names.iter().copied()),
                names.join(", ")
            ))
        })?;
        match (handler, place) {
            (Value::Function(f), _) => {
                out.insert(id, Step::Lua(f));
            }
            (Value::Table(t), Some((acts, params))) if t.contains_key("effect")? => {
                let what = format!("{what}: `{key}.{name}`");
                out.insert(
                    id,
                    Step::Effect(parse_effect(lua, &t, params, acts, &what)?),
                );
            }
            (other, place) => {
                return Err(mlua::Error::runtime(format!(
                    "{what}: `{key}.{name}` must be a function{}, got a {}",
                    if place.is_some() {
                        " or a rally.effect.*"
                    } else {
                        ""
                    },
                    other.type_name()
                )))
            }
        }
    }
    Ok(out)
}

/// What an element or a rule does in a step, or an element in a hook: a script's function
/// (`(ctx, tile, robot)` in an element's `steps`, `(ctx, tile)` in `tile_steps`, `(ctx)` in a
/// rule's `steps`), or a standard effect the engine runs itself, which calls no Lua and costs
/// no instructions of the budget.
#[derive(Clone, Debug)]
pub enum Step {
    Lua(Function),
    Effect(Effect),
}

/// A standard effect declared in a step (`rally.effect.convey("dir")`), naming the tile's
/// parameters it reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Effect {
    pub does: Does,
    /// The parameter holding the direction (`convey`, `push`, `beam`), the rotation
    /// (`rotate`) or the flag's number (`checkpoint`); `archive`, `destroy` and `robot_lasers`
    /// read none.
    pub param: Option<String>,
    /// `when = "express"` or `when = "phases"`: the tiles or registers where it happens.
    pub when: Option<When>,
}

/// Where an effect happens, by a parameter the `when` option names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum When {
    /// A bool parameter: only on tiles where it is true (an express belt).
    Tile(String),
    /// A list of registers (`rally.param.phases`): only in those (a pusher's active registers).
    Registers(String),
}

/// The standard effects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Does {
    /// `ctx:convey(robot, tile[param])`.
    Convey,
    /// `ctx:rotate(robot, tile[param], by)`.
    Rotate { by: String },
    /// `ctx:queue_push(robot, tile[param], by)`.
    Push { by: Option<String> },
    /// `ctx:fire_beam(tile.at, tile[param], tile[strength], { cause = cause })`, with
    /// `strength` a parameter or, absent, 1.
    Beam {
        strength: Option<String>,
        cause: String,
    },
    /// `ctx:touch_flag(robot, tile[param])` and `ctx:set_archive(robot, tile.at)`.
    Checkpoint,
    /// `ctx:set_archive(robot, tile.at)`.
    Archive,
    /// `ctx:destroy(robot, cause)`.
    Destroy { cause: String },
    /// `ctx:fire_robot_lasers()`: every active robot fires its main laser (a rule's step).
    RobotLasers,
}

/// Which effects a step table takes: those acting on the robots standing on a tile (an
/// element's `steps`), those of the tile itself (`tile_steps`) or the game's (a rule's
/// `steps`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acts {
    Standing,
    Tile,
    Game,
}

/// Reads `{ effect = "convey", param = "dir", when = "express" }`, as `rally.effect.*` makes
/// it, checking that the parameters it names are declared with the kinds it reads.
fn parse_effect(
    lua: &Lua,
    t: &Table,
    params: &ParamSpecs,
    acts: Acts,
    what: &str,
) -> mlua::Result<Effect> {
    let kind: String = t.get("effect")?;
    // `by` and `cause`: the words the log and the handlers see, as short as a script's own.
    let words = |key: &str| -> mlua::Result<Option<String>> {
        let text: Option<String> = t
            .get(key)
            .map_err(|_| mlua::Error::runtime(format!("{what}: `{key}` must be a string")))?;
        match text {
            Some(text) if text.len() > 256 => Err(mlua::Error::runtime(format!(
                "{what}: `{key}` is {} bytes; at most 256",
                text.len()
            ))),
            text => Ok(text),
        }
    };
    let by = || -> mlua::Result<String> { Ok(words("by")?.unwrap_or_else(|| "script".into())) };
    let int = Kind::Int {
        min: None,
        max: None,
    };
    // (what it does, where it belongs, the kind of its `param`, its options)
    let (does, belongs, expected, options) = match kind.as_str() {
        "convey" => (Does::Convey, Acts::Standing, Some(Kind::Dir), &[][..]),
        "rotate" => (
            Does::Rotate { by: by()? },
            Acts::Standing,
            Some(Kind::Rotation),
            &["by"][..],
        ),
        "push" => (
            Does::Push { by: words("by")? },
            Acts::Standing,
            Some(Kind::Dir),
            &["by"][..],
        ),
        "checkpoint" => (Does::Checkpoint, Acts::Standing, Some(int.clone()), &[][..]),
        "archive" => (Does::Archive, Acts::Standing, None, &[][..]),
        "robot_lasers" => (Does::RobotLasers, Acts::Game, None, &[][..]),
        "destroy" => {
            let cause = words("cause")?.unwrap_or_else(|| "script".into());
            (Does::Destroy { cause }, Acts::Standing, None, &["cause"][..])
        }
        "beam" => {
            let cause = words("cause")?.unwrap_or_else(|| "laser".into());
            let beam = Does::Beam {
                strength: None,
                cause,
            };
            (beam, Acts::Tile, Some(Kind::Dir), &["strength", "cause"][..])
        }
        other => {
            return Err(mlua::Error::runtime(format!(
                "{what}: unknown effect `{other}`, expected convey, rotate, push, checkpoint, archive, destroy, beam or robot_lasers"
            )))
        }
    };
    let what = format!("{what} (rally.effect.{kind})");
    if acts != belongs {
        let (here, there) = match (acts, belongs) {
            (Acts::Game, _) => (
                "a rule's `steps`",
                "an element's steps or tile_steps: it acts on a tile or a robot standing there",
            ),
            (_, Acts::Game) => (
                "an element's steps",
                "a rule's steps: it acts for the whole game",
            ),
            (_, Acts::Standing) => (
                "`tile_steps`",
                "steps: it acts on a robot standing on the tile",
            ),
            (_, Acts::Tile) => ("`steps`", "tile_steps: it acts once per tile, robot or not"),
        };
        return Err(mlua::Error::runtime(format!(
            "{what}: not an effect of {here}; it belongs in {there}"
        )));
    }
    let mut allowed = vec!["effect", "param", "when"];
    allowed.extend(options);
    check_keys(lua, t, &allowed, &what)?;
    // The parameter a key names, checked to be one of `kinds` (`param` must be set on every
    // tile: required or with a default).
    let named = |key: &str, kinds: &[&Kind], needed: bool| -> mlua::Result<Option<String>> {
        let Some(name) = t.get::<Option<String>>(key)? else {
            if needed {
                return Err(mlua::Error::runtime(format!(
                    "{what}: `{key}` must name a parameter of the element"
                )));
            }
            return Ok(None);
        };
        let Some(spec) = params.get(&name) else {
            return Err(mlua::Error::runtime(format!(
                "{what}: `{name}` is not a parameter of the element{}",
                crate::error::suggest(&name, params.keys().map(String::as_str))
            )));
        };
        if !kinds.iter().any(|k| fits(k, &spec.kind)) {
            let names: Vec<String> = kinds.iter().map(|k| kind_name(k)).collect();
            return Err(mlua::Error::runtime(format!(
                "{what}: parameter `{name}` must be a {} for `{key}`",
                names.join(" or ")
            )));
        }
        if key != "when" && !spec.required && spec.default.is_none() {
            return Err(mlua::Error::runtime(format!(
                "{what}: parameter `{name}` is optional; an effect needs one every tile has"
            )));
        }
        Ok(Some(name))
    };
    let param = match &expected {
        Some(kind) => named("param", &[kind], true)?,
        None if t.contains_key("param")? => {
            return Err(mlua::Error::runtime(format!(
                "{what}: takes no parameter, got `param`"
            )))
        }
        None => None,
    };
    let registers = Kind::List(Box::new(int.clone()));
    let when = match named("when", &[&Kind::Bool, &registers], false)? {
        Some(name) if params[&name].kind == Kind::Bool => Some(When::Tile(name)),
        Some(name) => Some(When::Registers(name)),
        None => None,
    };
    let does = match does {
        Does::Beam { cause, .. } => Does::Beam {
            strength: named("strength", &[&int], false)?,
            cause,
        },
        does => does,
    };
    Ok(Effect { does, param, when })
}

/// Does a parameter of kind `have` give what an effect reads as `want`? Any whole number
/// will do for an int, whatever its range.
fn fits(want: &Kind, have: &Kind) -> bool {
    match (want, have) {
        (Kind::Int { .. }, Kind::Int { .. }) => true,
        (Kind::List(a), Kind::List(b)) => fits(a, b),
        (a, b) => a == b,
    }
}

/// `rally.param.*` as a declaration writes it, for messages.
fn kind_name(kind: &Kind) -> String {
    match kind {
        Kind::Dir => "rally.param.dir".into(),
        Kind::Rotation => "rally.param.rotation".into(),
        Kind::Bool => "rally.param.bool".into(),
        Kind::Int { .. } => "rally.param.int".into(),
        Kind::List(_) => "rally.param.phases".into(),
        Kind::Str { .. } => "rally.param.string".into(),
        Kind::DirMap(_) => "rally.param.dir_map".into(),
    }
}

pub fn parse_kind(lua: &Lua, spec: &Table, what: &str) -> mlua::Result<Kind> {
    let kind: String = spec.get("kind").map_err(|_| {
        mlua::Error::runtime(format!(
            "{what}: a parameter must be declared with rally.param.*"
        ))
    })?;
    let inner = || -> mlua::Result<Box<Kind>> {
        let of: Table = spec.get("of")?;
        Ok(Box::new(parse_kind(lua, &of, what)?))
    };
    let mut allowed = vec!["kind", "default", "optional", "describe"];
    allowed.extend(match kind.as_str() {
        "int" => &["min", "max"][..],
        "string" => &["choices"][..],
        "list" | "dir_map" => &["of"][..],
        _ => &[][..],
    });
    check_keys(lua, spec, &allowed, what)?;
    Ok(match kind.as_str() {
        "dir" => Kind::Dir,
        "rotation" => Kind::Rotation,
        "bool" => Kind::Bool,
        "int" => {
            let (min, max): (Option<i64>, Option<i64>) = (spec.get("min")?, spec.get("max")?);
            if let (Some(lo), Some(hi)) = (min, max) {
                if lo > hi {
                    return Err(mlua::Error::runtime(format!(
                        "{what}: min = {lo} is more than max = {hi}"
                    )));
                }
            }
            Kind::Int { min, max }
        }
        "string" => Kind::Str {
            choices: match spec.get::<Option<Table>>("choices")? {
                Some(t) => open(lua, &t)?
                    .sequence_values::<String>()
                    .collect::<mlua::Result<_>>()?,
                None => Vec::new(),
            },
        },
        "list" => Kind::List(inner()?),
        "dir_map" => Kind::DirMap(inner()?),
        other => {
            return Err(mlua::Error::runtime(format!(
                "{what}: unknown parameter kind `{other}`"
            )))
        }
    })
}

pub fn parse_param(lua: &Lua, spec: &Table, what: &str) -> mlua::Result<ParamSpec> {
    let kind = parse_kind(lua, spec, what)?;
    // A default is checked as a board's value would be: a default the element could never
    // be given would launch robots off the board, or worse, quietly.
    let default = match spec.get::<Value>("default")? {
        Value::Nil => None,
        v => {
            let json = super::store::to_json(lua, v, &format!("{what}: `default`"))?.0;
            let checked = toml::Value::try_from(&json)
                .map_err(|e| e.to_string())
                .and_then(|value| kind.check(&value))
                .map_err(|e| mlua::Error::runtime(format!("{what}: `default`: {e}")))?;
            Some(checked)
        }
    };
    let optional: bool = spec.get::<Option<bool>>("optional")?.unwrap_or(false);
    Ok(ParamSpec {
        kind,
        required: !optional && default.is_none(),
        default,
        describe: spec.get::<Option<String>>("describe")?.unwrap_or_default(),
    })
}

// --- Reading declarations -----------------------------------------------------------------
//
// A declaration's data (names, flags, lists, the look) is read through serde, from the
// structs below (`deny_unknown_fields`): they are the one list of the keys each declaration
// accepts, with the hooks its kind of listener hears (`crate::hooks`). Handlers and other
// function-valued keys are fetched by name from the table the script wrote, since serde has
// no functions; the structs still name them (as `ByName`), so that every allowed key is in one
// place and an unknown key's message lists them all.

/// A key whose value is read by name (a handler, a table of them, parameter specs): serde
/// never sees its value, only that the key is allowed.
type ByName = Option<serde::de::IgnoredAny>;

/// The keys of `rally.element { ... }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // the `ByName` keys are read from the table
struct ElementData {
    name: String,
    #[serde(default)]
    describe: String,
    params: ByName,
    glyph: ByName,
    draw: ByName,
    build: ByName,
    new_steps: Option<Vec<NewStep>>,
    steps: ByName,
    tile_steps: ByName,
    #[serde(default)]
    replace: bool,
    blocks: Option<Blocks>,
    #[serde(default)]
    events: Sentences,
    #[serde(default)]
    public_vars: Vec<String>,
}

/// The keys of `rally.rule { ... }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct RuleData {
    name: String,
    #[serde(default)]
    describe: String,
    new_steps: Option<Vec<NewStep>>,
    steps: ByName,
    #[serde(default)]
    replace: bool,
    #[serde(default, deserialize_with = "element_names")]
    only_with: Vec<String>,
    #[serde(default)]
    events: Sentences,
    #[serde(default)]
    public_vars: Vec<String>,
    #[serde(default)]
    hears: Hears,
}

/// The keys of `rally.option { ... }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct OptionData {
    name: String,
    #[serde(default)]
    describe: String,
    uses: Option<i64>,
    shot: Option<ShotData>,
    steps: ByName,
    modify: ByName,
    #[serde(default)]
    replace: bool,
    #[serde(default)]
    events: Sentences,
    #[serde(default)]
    public_vars: Vec<String>,
}

/// `shot = { ... }`: handlers only, read by name.
#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table { fire = function, can = function, advise = function }"
)]
#[allow(dead_code)]
struct ShotData {
    fire: ByName,
    can: ByName,
    advise: ByName,
}

/// The keys of each table read by name, which the copy serde reads leaves out (`a.b`: key
/// `b` of the table under `a`).
const ELEMENT_BY_NAME: &[&str] = &["params", "glyph", "build", "steps", "tile_steps", "draw"];
const RULE_BY_NAME: &[&str] = &["steps"];
const OPTION_BY_NAME: &[&str] = &["steps", "modify", "shot.fire", "shot.can", "shot.advise"];

fn element_names<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    <Vec<String> as Deserialize>::deserialize(d)
        .map_err(|_| serde::de::Error::custom("must be a list of element names, { \"ice\", ... }"))
}

/// Reads the data of a declaration (`T`), whose handlers `hooks` (its kind's `on_*` keys)
/// and `by_name` keys are read apart. An unknown key is an error that suggests the nearest
/// known one and lists them all.
// The key is known where the message is made (`unknown_key`), and so is where the script
// writes it (`key_place`): the caret points at the key, not at the declaration's call.
fn read<T: DeserializeOwned>(
    lua: &Lua,
    decl: &Table,
    hooks: &[&str],
    by_name: &[&str],
    what: &str,
) -> mlua::Result<T> {
    let copy = data(lua, decl, hooks, by_name, "", 0)
        .map_err(|e| mlua::Error::runtime(format!("{what}: {}", super::lua_message(&e))))?;
    // serde stops at the first unknown key: each one found is taken out of the copy and the
    // copy read again, so that every unknown key of the declaration is reported at once (a
    // declaration has a few dozen keys at most, so this is a few reads).
    let mut problems = Vec::new();
    loop {
        match deserialize(lua, &copy, hooks, what) {
            Ok(data) if problems.is_empty() => return Ok(data),
            Ok(_) => break,
            Err(Problem::Unknown { message, path, key }) => {
                problems.push(message);
                let parent = path.iter().try_fold(copy.clone(), |t, segment| {
                    t.raw_get::<Option<Table>>(segment.as_str()).ok().flatten()
                });
                // A key that cannot be taken out (a numbered one) would be found again.
                match parent {
                    Some(parent) if !parent.raw_get::<Value>(key.as_str())?.is_nil() => {
                        parent.raw_set(key, Value::Nil)?
                    }
                    _ => break,
                }
            }
            Err(Problem::Other(message)) => {
                problems.push(message);
                break;
            }
        }
    }
    Err(mlua::Error::runtime(problems.join("\n")))
}

/// Why a declaration's copy does not read.
enum Problem {
    /// An unknown key `key` of the table at `path` (empty: the declaration itself).
    Unknown {
        message: String,
        path: Vec<String>,
        key: String,
    },
    Other(String),
}

/// One serde read of a declaration's copy, its error in a script writer's words.
fn deserialize<T: DeserializeOwned>(
    lua: &Lua,
    copy: &Table,
    hooks: &[&str],
    what: &str,
) -> Result<T, Problem> {
    let options = mlua::serde::de::Options::new().deny_unsupported_types(true);
    let de = mlua::serde::Deserializer::new_with_options(Value::Table(copy.clone()), options);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let mut path = lua_path(e.path());
        let message = match e.into_inner() {
            mlua::Error::DeserializeError(m) => m,
            other => other.to_string(),
        };
        // The key whose value is wrong (or which is unknown) is the path's last segment; a
        // missing key is missing from the whole path.
        let key = if message.starts_with("missing field") {
            String::new()
        } else {
            path.pop().unwrap_or_default()
        };
        let at = match path.join(".") {
            p if p.is_empty() => what.to_string(),
            p => format!("{what}, {}", p.replace(".[", "[")),
        };
        if let Some((key, mut known)) = unknown_field(&message) {
            if path.is_empty() {
                known.extend(hooks.iter().map(|h| h.to_string()));
            }
            let message = unknown_key(&at, &key, &known);
            let message = match key_place(lua, &key) {
                Some(place) => format!("{place}{message}"),
                None => message,
            };
            // Only a table's own keys can be taken out (not a list entry's).
            if path.iter().all(|p| !p.starts_with('[')) {
                return Problem::Unknown { message, path, key };
            }
            return Problem::Other(message);
        }
        Problem::Other(match message.strip_prefix("invalid type: ") {
            // serde's "invalid type: string "yes", expected a boolean".
            Some(rest) => match rest.rsplit_once(", expected ") {
                Some((got, expected)) => {
                    format!(
                        "{at}: `{key}` must be {}, got {}",
                        plain_type(expected),
                        a_value(got)
                    )
                }
                None => format!("{at}: `{key}`: {message}"),
            },
            None if message.starts_with("must ") => format!("{at}: `{key}` {message}"),
            None if key.is_empty() => format!("{at}: {message}"),
            None => format!("{at}: `{key}`: {message}"),
        })
    })
}

/// A type as serde or mlua name it, as a script writer would: `a whole number`, `a table`.
fn plain_type(name: &str) -> String {
    match name {
        "i64" | "u32" | "integer" => "a whole number".into(),
        "table" | "string" | "boolean" | "function" | "userdata" | "thread" => super::args::a(name),
        other => other.to_string(),
    }
}

/// A value as serde or mlua show it (`integer`, `string "yes"`), with an article when it is
/// a bare type.
fn a_value(shown: &str) -> String {
    if shown.contains(char::is_whitespace) {
        shown.to_string()
    } else {
        super::args::a(shown)
    }
}

/// `what: unknown field `key` (did you mean ...?), expected one of ...`.
fn unknown_key(what: &str, key: &str, known: &[String]) -> String {
    format!(
        "{what}: unknown field `{key}`{}, expected one of {}",
        crate::error::suggest(key, known.iter().map(String::as_str)),
        known.join(", ")
    )
}

/// `file:line:column: ` of `key` written as a table key (`key =`) in the script declaring
/// now, at or after the line of its call: where the caret under an unknown key points (the
/// declaration's table says what keys it has, not where they are written).
pub(super) fn key_place(lua: &Lua, key: &str) -> Option<String> {
    let (file, from) = super::sandbox::script_frame(lua, 1)?;
    let text = crate::files::read_text(std::path::Path::new(&file)).ok()?;
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find_map(|(i, line)| {
            let column = line.match_indices(key).find_map(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + key.len()..].trim_start();
                let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                (!word(before) && after.starts_with('=') && !after.starts_with("=="))
                    .then_some(at + 1)
            })?;
            Some(format!("{file}:{}:{column}: ", i + 1))
        })
}

/// serde's "unknown field `k`, expected one of `a`, `b`" as the key and the keys it knows.
fn unknown_field(message: &str) -> Option<(String, Vec<String>)> {
    message.strip_prefix("unknown field `")?;
    let mut names = message.split('`').skip(1).step_by(2).map(str::to_string);
    Some((names.next()?, names.collect()))
}

/// A serde path as a script names its segments: `new_steps`, `[1]`, `name` (Lua counts
/// from 1).
fn lua_path(path: &serde_path_to_error::Path) -> Vec<String> {
    use serde_path_to_error::Segment;
    path.iter()
        .filter_map(|segment| match segment {
            Segment::Seq { index } => Some(format!("[{}]", index + 1)),
            Segment::Map { key } | Segment::Enum { variant: key } => Some(key.clone()),
            Segment::Unknown => None,
        })
        .collect()
}

/// A plain copy of a declaration table for serde: views opened (serde iterates raw, and a
/// view holds nothing raw), nested tables copied the same way, the keys read by name left
/// out. At the top (`at` empty), every key must be a name: a list entry would otherwise be
/// read as the field of its number.
fn data(
    lua: &Lua,
    table: &Table,
    hooks: &[&str],
    by_name: &[&str],
    at: &str,
    depth: usize,
) -> mlua::Result<Table> {
    if depth > 8 {
        return Err(mlua::Error::runtime(format!(
            "`{at}` is nested too deep (a table that holds itself?)"
        )));
    }
    let copy = lua.create_table()?;
    for pair in open(lua, table)?.pairs::<Value, Value>() {
        let (key, value) = pair?;
        let path = match (&key, at) {
            (Value::String(k), "") => k.to_str()?.to_string(),
            (Value::String(k), at) => format!("{at}.{}", k.to_str()?),
            _ => String::new(),
        };
        if depth == 0 && hooks.contains(&path.as_str()) {
            continue;
        }
        if by_name.contains(&path.as_str()) {
            continue;
        }
        let value = match value {
            Value::Table(t) => Value::Table(data(lua, &t, hooks, by_name, &path, depth + 1)?),
            v => v,
        };
        match key {
            // At the top every key is a name: a list entry is an unknown field `1`, not the
            // field of that number (serde reads numbered keys as fields by position).
            Value::Integer(_) | Value::Number(_) if depth == 0 => {
                copy.raw_set(key.to_string()?, value)?
            }
            key => copy.raw_set(key, value)?,
        }
    }
    Ok(copy)
}

fn required_name(table: &Table, what: &str) -> mlua::Result<String> {
    match table.get::<Value>("name")? {
        Value::String(s) => Ok(s.to_str()?.to_string()),
        _ => Err(mlua::Error::runtime(format!(
            "{what} needs `name = \"...\"`"
        ))),
    }
}

fn optional_fn(table: &Table, key: &str, what: &str) -> mlua::Result<Option<Function>> {
    match table.get::<Value>(key)? {
        Value::Nil => Ok(None),
        Value::Function(f) => Ok(Some(f)),
        other => Err(mlua::Error::runtime(format!(
            "{what}: `{key}` must be a function, got {}",
            super::args::a(other.type_name())
        ))),
    }
}

/// A string or a `function(tile)` (`glyph`, `draw.label`).
fn text_or_fn(table: &Table, key: &str, what: &str) -> mlua::Result<Option<Value>> {
    match table.get::<Value>(key)? {
        Value::Nil => Ok(None),
        v @ (Value::String(_) | Value::Function(_)) => Ok(Some(v)),
        other => Err(mlua::Error::runtime(format!(
            "{what}: `{key}` must be a string or a function(tile), got {}",
            super::args::a(other.type_name())
        ))),
    }
}

/// The `on_*` keys a kind of listener's declaration accepts.
fn hook_keys(listener: Listener) -> Vec<&'static str> {
    Hook::heard_by(listener).map(|s| s.key).collect()
}

/// The handlers of the hooks a kind of listener hears, by key.
fn hooks(decl: &Table, listener: Listener, what: &str) -> mlua::Result<Handlers<Hook>> {
    let mut out = Handlers::default();
    for spec in Hook::heard_by(listener) {
        if let Some(f) = optional_fn(decl, spec.key, what)? {
            out.insert(spec.hook, f);
        }
    }
    Ok(out)
}

/// The handlers of the hooks an element hears, by key: functions, or `rally.effect.destroy`
/// (a pit's `on_enter`), which the engine runs itself. An effect in a hook reads nothing of
/// the tile and returns nothing (no change, as a handler returning nil), so only one that
/// needs no parameter and no `when` may stand there.
fn element_hooks(lua: &Lua, decl: &Table, what: &str) -> mlua::Result<Handlers<Hook, Step>> {
    let mut out = Handlers::default();
    for spec in Hook::heard_by(Listener::Square) {
        let key = spec.key;
        let handler = match decl.get::<Value>(key)? {
            Value::Nil => continue,
            Value::Function(f) => Step::Lua(f),
            Value::Table(t) if t.contains_key("effect")? => {
                let what = format!("{what}: `{key}`");
                let kind = t.get::<Option<String>>("effect")?.unwrap_or_default();
                if kind != "destroy" || t.contains_key("when")? {
                    let with_when = if kind == "destroy" {
                        " with `when`"
                    } else {
                        ""
                    };
                    return Err(mlua::Error::runtime(format!(
                        "{what}: a hook takes a function or rally.effect.destroy (without `when`); rally.effect.{kind}{with_when} belongs in `steps`"
                    )));
                }
                Step::Effect(parse_effect(
                    lua,
                    &t,
                    &ParamSpecs::new(),
                    Acts::Standing,
                    &what,
                )?)
            }
            other => {
                return Err(mlua::Error::runtime(format!(
                    "{what}: `{key}` must be a function or rally.effect.destroy, got {}",
                    super::args::a(other.type_name())
                )))
            }
        };
        out.insert(spec.hook, handler);
    }
    Ok(out)
}

/// Adds the steps a declaration brings (`new_steps`) to the order of play, before its
/// handlers name them.
fn add_steps(steps: &mut Steps, new: &[NewStep], what: &str) -> mlua::Result<()> {
    for (i, step) in new.iter().enumerate() {
        steps
            .add(step)
            .map_err(|m| mlua::Error::runtime(format!("{what}, new_steps[{}]: {m}", i + 1)))?;
    }
    Ok(())
}

fn replace(yes: bool) -> Replace {
    if yes {
        Replace::Yes
    } else {
        Replace::No
    }
}

pub fn parse_element(
    lua: &Lua,
    decl: &Table,
    file: &str,
    steps: &mut Steps,
) -> mlua::Result<(ElementDef, Replace)> {
    let name = required_name(decl, "rally.element")?;
    let what = format!("element `{name}`");
    let hook_keys = hook_keys(Listener::Square);
    let hooks = element_hooks(lua, decl, &what)?;
    let data: ElementData = read(lua, decl, &hook_keys, ELEMENT_BY_NAME, &what)?;
    add_steps(steps, data.new_steps.as_deref().unwrap_or_default(), &what)?;
    let mut params = ParamSpecs::new();
    if let Some(specs) = decl.get::<Option<Table>>("params")? {
        for pair in open(lua, &specs)?.pairs::<String, Value>() {
            let (pname, spec) = pair?;
            let what = format!("{what}, parameter `{pname}`");
            let Value::Table(spec) = spec else {
                return Err(mlua::Error::runtime(format!(
                    "{what}: declare it with rally.param.* (e.g. `{pname} = rally.param.int {{ default = 1 }}`), not {}",
                    super::args::a(spec.type_name())
                )));
            };
            params.insert(pname, parse_param(lua, &spec, &what)?);
        }
    }
    let on_robots = Some((Acts::Standing, &params));
    let element_steps = step_entries(lua, decl, "steps", steps, &what, on_robots)?;
    let on_tiles = Some((Acts::Tile, &params));
    let tile_steps = step_entries(lua, decl, "tile_steps", steps, &what, on_tiles)?;
    Ok((
        ElementDef {
            describe: data.describe,
            file: file.to_string(),
            params,
            glyph: text_or_fn(decl, "glyph", &what)?,
            draw: super::draw::parse(lua, decl, &what)?,
            build: optional_fn(decl, "build", &what)?,
            steps: element_steps,
            tile_steps,
            hooks,
            replaces: data.replace,
            layer: 0,
            blocks: data.blocks,
            events: data.events,
            public_vars: data.public_vars,
            name,
        },
        replace(data.replace),
    ))
}

pub fn parse_rule(
    lua: &Lua,
    decl: &Table,
    file: &str,
    steps: &mut Steps,
) -> mlua::Result<(RuleDef, Replace)> {
    let name = required_name(decl, "rally.rule")?;
    let what = format!("rule `{name}`");
    let hook_keys = hook_keys(Listener::Rules);
    let hooks = hooks(decl, Listener::Rules, &what)?;
    let no_params = ParamSpecs::new();
    let game = Some((Acts::Game, &no_params));
    let data: RuleData = read(lua, decl, &hook_keys, RULE_BY_NAME, &what)?;
    add_steps(steps, data.new_steps.as_deref().unwrap_or_default(), &what)?;
    Ok((
        RuleDef {
            describe: data.describe,
            file: file.to_string(),
            steps: step_entries(lua, decl, "steps", steps, &what, game)?,
            hooks,
            replaces: data.replace,
            layer: 0,
            events: data.events,
            only_with: data.only_with,
            public_vars: data.public_vars,
            hears: data.hears,
            name,
        },
        replace(data.replace),
    ))
}

pub fn parse_option(
    lua: &Lua,
    decl: &Table,
    file: &str,
    steps: &mut Steps,
) -> mlua::Result<(OptionDef, Replace)> {
    let name = required_name(decl, "rally.option")?;
    let what = format!("option `{name}`");
    let hook_keys = hook_keys(Listener::Options);
    let hooks = hooks(decl, Listener::Options, &what)?;
    let data: OptionData = read(lua, decl, &hook_keys, OPTION_BY_NAME, &what)?;
    let uses = match data.uses {
        None => None,
        Some(n) if (1..=i64::from(u32::MAX)).contains(&n) => Some(n as u32),
        Some(n) => {
            return Err(mlua::Error::runtime(format!(
                "{what}: `uses` must be a whole number of at least 1, got {n}"
            )))
        }
    };
    let shot = match data.shot {
        None => None,
        Some(_) => {
            let table: Table = decl.get("shot")?;
            let what = format!("{what}, shot");
            let fire = optional_fn(&table, "fire", &what)?.ok_or_else(|| {
                mlua::Error::runtime(format!(
                    "{what}: `fire = function(ctx, robot, target, option, info)` is required"
                ))
            })?;
            Some(Shot {
                fire,
                can: optional_fn(&table, "can", &what)?,
                advise: optional_fn(&table, "advise", &what)?,
            })
        }
    };
    let mut modify = Vec::new();
    if let Some(table) = decl.get::<Option<Table>>("modify")? {
        for pair in open(lua, &table)?.pairs::<String, Value>() {
            let (key, f) = pair?;
            match f {
                Value::Function(f) => modify.push((key, f)),
                other => {
                    return Err(mlua::Error::runtime(format!(
                        "{what}: `modify.{key}` must be a function, got a {}",
                        other.type_name()
                    )))
                }
            }
        }
    }
    // `pairs` order differs between runs; handlers are looked up by key, but keep the list
    // in a fixed order anyway so anything that lists them is deterministic.
    modify.sort_by(|a, b| a.0.cmp(&b.0));
    Ok((
        OptionDef {
            describe: data.describe,
            file: file.to_string(),
            layer: 0,
            events: data.events,
            uses,
            hooks,
            shot,
            steps: step_table(lua, decl, "steps", steps, &what)?,
            modify,
            public_vars: data.public_vars,
            name,
        },
        replace(data.replace),
    ))
}
