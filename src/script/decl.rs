//! Reading what scripts declare (`rally.element { ... }`, `rally.rule { ... }`) into native
//! definitions, checking every key so that a typo is a clear error, not a silent no-op.

use super::views::open;
use crate::board::params::{Kind, ParamSpec, ParamSpecs};
use crate::order::{NewStep, Steps};
use mlua::{Function, Lua, Table, Value};

/// A few handlers keyed by step or event. A short list beats hashing here: a declaration has
/// a handful at most, and they are looked up for every step of every register.
#[derive(Clone, Debug)]
pub struct Handlers<K>(Vec<(K, Function)>);

impl<K> Default for Handlers<K> {
    fn default() -> Self {
        Handlers(Vec::new())
    }
}

impl<K: PartialEq> Handlers<K> {
    pub fn insert(&mut self, key: K, f: Function) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = f,
            None => self.0.push((key, f)),
        }
    }

    pub fn get(&self, key: &K) -> Option<&Function> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, f)| f)
    }

    pub fn contains_key(&self, key: &K) -> bool {
        self.get(key).is_some()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Handlers<usize> {
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
    /// How `rally render` draws it when it has no built-in drawing (`draw = { ... }`).
    pub draw: Option<Draw>,
    pub build: Option<Function>,
    /// Step handlers called for each robot standing on a tile, by step id.
    pub steps: Handlers<usize>,
    /// Step handlers called once for every tile, occupied or not, by step id.
    pub tile_steps: Handlers<usize>,
    /// It replaced an element of the same name (`replace = true`).
    pub replaces: bool,
    pub events: Handlers<TileEvent>,
}

/// An element's own look in the SVG picture: `draw = { color = "#4a8", label = "Z", shape = "circle" }`.
/// Lets a designer's new element be recognisable without touching the renderer.
#[derive(Clone, Debug)]
pub struct Draw {
    /// Fill colour, `#rgb` or `#rrggbb` (checked, so it can go into SVG as is).
    pub color: Option<String>,
    /// Text on the square: a string or `function(tile) -> string`; default: the glyph.
    pub label: Option<Value>,
    pub shape: Shape,
}

/// The outline `draw.shape` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The whole square.
    Square,
    /// A disc in the middle of the square.
    Circle,
    /// A band along the side named by the tile's `side` parameter (edge elements).
    Edge,
}

impl Shape {
    pub const ALL: [(&'static str, Shape); 3] = [
        ("square", Shape::Square),
        ("circle", Shape::Circle),
        ("edge", Shape::Edge),
    ];
}

fn parse_draw(lua: &Lua, decl: &Table, what: &str) -> mlua::Result<Option<Draw>> {
    let table = match decl.get::<Value>("draw")? {
        Value::Nil => return Ok(None),
        Value::Table(t) => t,
        other => {
            return Err(mlua::Error::runtime(format!(
                "{what}: `draw` must be a table {{ color = \"#rrggbb\", label = ..., shape = ... }}, got a {}",
                other.type_name()
            )))
        }
    };
    let what = format!("{what}, draw");
    check_keys(lua, &table, &["color", "label", "shape"], &what)?;
    let color = table.get::<Option<String>>("color")?;
    if let Some(c) = &color {
        let hex = c.strip_prefix('#').unwrap_or("");
        if !matches!(hex.len(), 3 | 6) || !hex.chars().all(|ch| ch.is_ascii_hexdigit()) {
            return Err(mlua::Error::runtime(format!(
                "{what}: color = \"{c}\": expected \"#rgb\" or \"#rrggbb\""
            )));
        }
    }
    let label = match table.get::<Value>("label")? {
        Value::Nil => None,
        v @ (Value::String(_) | Value::Function(_)) => Some(v),
        other => {
            return Err(mlua::Error::runtime(format!(
                "{what}: `label` must be a string or a function(tile), got a {}",
                other.type_name()
            )))
        }
    };
    let shape = match table.get::<Option<String>>("shape")? {
        None => Shape::Square,
        Some(name) => Shape::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                let names: Vec<&str> = Shape::ALL.iter().map(|(n, _)| *n).collect();
                mlua::Error::runtime(format!(
                    "{what}: shape = \"{name}\"{}: expected one of {}",
                    crate::error::suggest(&name, names.iter().copied()),
                    names.join(", ")
                ))
            })?,
    };
    Ok(Some(Draw {
        color,
        label,
        shape,
    }))
}

/// Moments (not steps) when the core asks the element on a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileEvent {
    /// A robot entered the square (by card, push, belt, placement...).
    Enter,
    /// A robot standing here is about to execute its card; may replace the execution.
    Card,
    /// A robot finished its card here (also when a script resolved the card). Gets
    /// `(ctx, tile, robot, card, info)`; `info.moved` says whether the card changed the
    /// robot's square, `info.dir` the direction of its last step (nil if it took none).
    CardEnd,
    /// A robot standing here revealed its card; may swap it.
    Reveal,
    /// A belt carried a robot onto this square.
    Conveyed,
    /// A robot crossed an edge of this square, leaving or entering it (before the entered
    /// square's `on_enter`), or a wall on that edge stopped it (`info.blocked`): ledges,
    /// repulsor fields, ramps. Called on both squares of the edge.
    Cross,
    /// A robot standing here was dealt its hand (programming time, before it programs).
    Deal,
    /// A robot standing here has set its program (programming time; its hand holds the
    /// leftovers until the hooks are done).
    Program,
}

impl TileEvent {
    pub const ALL: [(&'static str, TileEvent); 8] = [
        ("on_enter", TileEvent::Enter),
        ("on_card", TileEvent::Card),
        ("on_card_end", TileEvent::CardEnd),
        ("on_reveal", TileEvent::Reveal),
        ("on_conveyed", TileEvent::Conveyed),
        ("on_cross", TileEvent::Cross),
        ("on_deal", TileEvent::Deal),
        ("on_program", TileEvent::Program),
    ];

    pub fn name(self) -> &'static str {
        TileEvent::ALL.iter().find(|(_, e)| *e == self).unwrap().0
    }
}

/// A game-wide rule (robot lasers, a variant's house rule) as its script declared it.
#[derive(Clone, Debug)]
pub struct RuleDef {
    pub name: String,
    pub describe: String,
    pub file: String,
    pub steps: Handlers<usize>,
    pub events: Handlers<RuleEvent>,
    /// It replaced a rule of the same name (`replace = true`).
    pub replaces: bool,
    /// `only_with = { "ice", ... }`: the rule does something only on a board with one of
    /// these elements (it looks after them). Used to tell when a variant changes nothing.
    pub only_with: Vec<String>,
}

impl RuleDef {
    /// Whether the rule can change anything on a board whose elements pass `present`: it
    /// replaced another rule, or it has a handler and the board has an element it looks
    /// after (any board, without `only_with`).
    pub fn acts(&self, present: &dyn Fn(&str) -> bool) -> bool {
        self.replaces
            || ((!self.steps.is_empty() || !self.events.is_empty())
                && (self.only_with.is_empty() || self.only_with.iter().any(|e| present(e))))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleEvent {
    /// Any robot is about to execute its card (before the square's `on_card`).
    Card,
    /// A robot was destroyed.
    Destroyed,
    /// A robot re-entered the board.
    Reenter,
    /// Any robot arrived on any square (by card, push, belt or script), after that square's
    /// own `on_enter`: for rules that track where robots are, such as whether a robot is
    /// still on the ice.
    Enter,
    /// A robot is about to take damage, after its options had their say:
    /// `(ctx, robot, amount, info)` returns the amount to take (nil: unchanged). The
    /// standard rule `option_absorb` lets a player scrap options to cancel points (§6.4).
    Damage,
    /// A robot was dealt its hand: `(ctx, robot)`, before it programs (`ctx:hand`).
    Deal,
    /// A robot's program is set: `(ctx, robot)`; `ctx:hand` holds its leftovers, discarded
    /// after these hooks.
    Program,
    /// A robot pushed another one square: `(ctx, pusher, pushed, info)`, `info.dir`.
    Push,
    /// A robot is about to turn: `(ctx, robot, info)`, `info = { rotation, by }`; returns nil
    /// (turn), false (it does not turn) or another rotation.
    Rotate,
}

impl RuleEvent {
    pub const ALL: [(&'static str, RuleEvent); 9] = [
        ("on_card", RuleEvent::Card),
        ("on_destroyed", RuleEvent::Destroyed),
        ("on_reenter", RuleEvent::Reenter),
        ("on_enter", RuleEvent::Enter),
        ("on_damage", RuleEvent::Damage),
        ("on_deal", RuleEvent::Deal),
        ("on_program", RuleEvent::Program),
        ("on_push", RuleEvent::Push),
        ("on_rotate", RuleEvent::Rotate),
    ];

    pub fn name(self) -> &'static str {
        RuleEvent::ALL.iter().find(|(_, e)| *e == self).unwrap().0
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
    /// Ammunition (`uses = n`): a drawn card starts with n; `None`: no limit.
    pub uses: Option<u32>,
    /// `(ctx, robot, card, option)`, after the rules' `on_card` and before the square's;
    /// returns what an `on_card` returns.
    pub on_card: Option<Function>,
    /// `(ctx, robot, amount, info, option)` before damage is taken; returns the new amount.
    pub on_damage: Option<Function>,
    /// `(ctx, robot, option)`: the holder was dealt its hand (programming time).
    pub on_deal: Option<Function>,
    /// `(ctx, robot, option)`: the holder's program is set; its hand holds the leftovers.
    pub on_program: Option<Function>,
    /// `(ctx, robot, other, info, option)`: the holder pushed `other` one square
    /// (`info.pushing = true`) or `other` pushed it (`false`); `info.dir`.
    pub on_push: Option<Function>,
    /// `(ctx, robot, info, option)`, `info = { rotation, by }`: the holder is about to turn;
    /// returns nil, false (no turn) or another rotation.
    pub on_rotate: Option<Function>,
    /// A shot that may replace the holder's main laser (Pressor Beam...).
    pub shot: Option<Shot>,
    /// Step handlers, called once per robot holding the option (on the board), after the
    /// rules' handlers of that step: `(ctx, robot, option)`.
    pub steps: Handlers<usize>,
    /// Value modifiers by key: `(ctx, robot, value, option)` returns the new value (nil
    /// keeps it). `ctx:modify(robot, key, value)` runs them; the core asks `hand_size` and
    /// `reentry_damage`, the standard robot lasers ask `main_laser`.
    pub modify: Vec<(String, Function)>,
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

fn parse_shot(lua: &Lua, decl: &Table, what: &str) -> mlua::Result<Option<Shot>> {
    let table = match decl.get::<Value>("shot")? {
        Value::Nil => return Ok(None),
        Value::Table(t) => t,
        other => {
            return Err(mlua::Error::runtime(format!(
                "{what}: `shot` must be a table {{ fire = function, can = function, advise = function }}, got a {}",
                other.type_name()
            )))
        }
    };
    let what = format!("{what}, shot");
    check_keys(lua, &table, &["fire", "can", "advise"], &what)?;
    let fire = optional_fn(&table, "fire", &what)?.ok_or_else(|| {
        mlua::Error::runtime(format!(
            "{what}: `fire = function(ctx, robot, target, option, info)` is required"
        ))
    })?;
    Ok(Some(Shot {
        fire,
        can: optional_fn(&table, "can", &what)?,
        advise: optional_fn(&table, "advise", &what)?,
    }))
}

impl OptionDef {
    pub fn modifier(&self, key: &str) -> Option<&Function> {
        self.modify.iter().find(|(k, _)| k == key).map(|(_, f)| f)
    }
}

pub fn parse_option(
    lua: &Lua,
    decl: &Table,
    file: &str,
    steps: &mut Steps,
) -> mlua::Result<(OptionDef, Replace)> {
    let name = required_name(decl, "rally.option")?;
    let what = format!("option `{name}`");
    let allowed = [
        "name",
        "describe",
        "uses",
        "on_card",
        "on_damage",
        "on_deal",
        "on_program",
        "on_push",
        "on_rotate",
        "shot",
        "steps",
        "modify",
        "replace",
    ];
    check_keys(lua, decl, &allowed, &what)?;
    let uses = match decl.get::<Value>("uses")? {
        Value::Nil => None,
        Value::Integer(n) if n >= 1 => Some(n as u32),
        other => {
            return Err(mlua::Error::runtime(format!(
                "{what}: `uses` must be a whole number of at least 1, got {}",
                other.to_string()?
            )))
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
    let replace = if decl.get::<Option<bool>>("replace")?.unwrap_or(false) {
        Replace::Yes
    } else {
        Replace::No
    };
    Ok((
        OptionDef {
            describe: decl.get::<Option<String>>("describe")?.unwrap_or_default(),
            file: file.to_string(),
            uses,
            on_card: optional_fn(decl, "on_card", &what)?,
            on_damage: optional_fn(decl, "on_damage", &what)?,
            on_deal: optional_fn(decl, "on_deal", &what)?,
            on_program: optional_fn(decl, "on_program", &what)?,
            on_push: optional_fn(decl, "on_push", &what)?,
            on_rotate: optional_fn(decl, "on_rotate", &what)?,
            shot: parse_shot(lua, decl, &what)?,
            steps: step_table(lua, decl, "steps", steps, &what)?,
            modify,
            name,
        },
        replace,
    ))
}

/// Whether a declaration replaces one of the same name (variants overriding a standard
/// element or rule), or removes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replace {
    No,
    Yes,
}

fn check_keys(lua: &Lua, table: &Table, allowed: &[&str], what: &str) -> mlua::Result<()> {
    for pair in open(lua, table)?.pairs::<Value, Value>() {
        let (key, _) = pair?;
        let key = key.to_string()?;
        if !allowed.contains(&key.as_str()) {
            return Err(mlua::Error::runtime(format!(
                "{what}: unknown field `{key}`{}, expected one of {}",
                crate::error::suggest(&key, allowed.iter().copied()),
                allowed.join(", ")
            )));
        }
    }
    Ok(())
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
            "{what}: `{key}` must be a function, got a {}",
            other.type_name()
        ))),
    }
}

/// Reads `new_steps = { { name = "springs", after = "crushers", describe = "..." } }`: steps
/// of its own a declaration adds to the order of play, before its handlers name them.
fn new_steps(lua: &Lua, decl: &Table, steps: &mut Steps, what: &str) -> mlua::Result<()> {
    let list = match decl.get::<Value>("new_steps")? {
        Value::Nil => return Ok(()),
        Value::Table(t) => open(lua, &t)?,
        other => {
            return Err(mlua::Error::runtime(format!(
                "{what}: `new_steps` must be a list {{ {{ name = \"...\", after = \"step\" }} }}, got {}",
                super::args::a(other.type_name())
            )))
        }
    };
    for (i, item) in list.sequence_values::<Value>().enumerate() {
        let what = format!("{what}, new_steps[{}]", i + 1);
        let Value::Table(item) = item? else {
            return Err(mlua::Error::runtime(format!(
                "{what}: expected a table {{ name = \"...\", before = \"step\" or after = \"step\", describe = \"...\" }}"
            )));
        };
        check_keys(lua, &item, &["name", "before", "after", "describe"], &what)?;
        let text = |key: &str| item.get::<Option<String>>(key);
        let step = NewStep {
            name: text("name")?
                .ok_or_else(|| mlua::Error::runtime(format!("{what}: needs `name = \"...\"`")))?,
            before: text("before")?,
            after: text("after")?,
            describe: text("describe")?.unwrap_or_default(),
        };
        steps
            .add(&step)
            .map_err(|m| mlua::Error::runtime(format!("{what}: {m}")))?;
    }
    Ok(())
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
        match handler {
            Value::Function(f) => {
                out.insert(id, f);
            }
            other => {
                return Err(mlua::Error::runtime(format!(
                    "{what}: `{key}.{name}` must be a function, got a {}",
                    other.type_name()
                )))
            }
        }
    }
    Ok(out)
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

pub fn parse_element(
    lua: &Lua,
    decl: &Table,
    file: &str,
    steps: &mut Steps,
) -> mlua::Result<(ElementDef, Replace)> {
    let name = required_name(decl, "rally.element")?;
    let what = format!("element `{name}`");
    let mut allowed = vec![
        "name",
        "describe",
        "params",
        "glyph",
        "draw",
        "build",
        "new_steps",
        "steps",
        "tile_steps",
        "replace",
    ];
    allowed.extend(TileEvent::ALL.iter().map(|(n, _)| *n));
    check_keys(lua, decl, &allowed, &what)?;
    new_steps(lua, decl, steps, &what)?;
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
    let mut events = Handlers::default();
    for (key, event) in TileEvent::ALL {
        if let Some(f) = optional_fn(decl, key, &what)? {
            events.insert(event, f);
        }
    }
    let glyph = match decl.get::<Value>("glyph")? {
        Value::Nil => None,
        v @ (Value::String(_) | Value::Function(_)) => Some(v),
        other => {
            return Err(mlua::Error::runtime(format!(
                "{what}: `glyph` must be a string or a function(tile), got a {}",
                other.type_name()
            )))
        }
    };
    let replace = if decl.get::<Option<bool>>("replace")?.unwrap_or(false) {
        Replace::Yes
    } else {
        Replace::No
    };
    Ok((
        ElementDef {
            describe: decl.get::<Option<String>>("describe")?.unwrap_or_default(),
            file: file.to_string(),
            params,
            glyph,
            draw: parse_draw(lua, decl, &what)?,
            build: optional_fn(decl, "build", &what)?,
            steps: step_table(lua, decl, "steps", steps, &what)?,
            tile_steps: step_table(lua, decl, "tile_steps", steps, &what)?,
            events,
            replaces: replace == Replace::Yes,
            name,
        },
        replace,
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
    let mut allowed = vec![
        "name",
        "describe",
        "new_steps",
        "steps",
        "replace",
        "only_with",
    ];
    allowed.extend(RuleEvent::ALL.iter().map(|(n, _)| *n));
    check_keys(lua, decl, &allowed, &what)?;
    new_steps(lua, decl, steps, &what)?;
    let mut events = Handlers::default();
    for (key, event) in RuleEvent::ALL {
        if let Some(f) = optional_fn(decl, key, &what)? {
            events.insert(event, f);
        }
    }
    let replace = if decl.get::<Option<bool>>("replace")?.unwrap_or(false) {
        Replace::Yes
    } else {
        Replace::No
    };
    Ok((
        RuleDef {
            describe: decl.get::<Option<String>>("describe")?.unwrap_or_default(),
            file: file.to_string(),
            steps: step_table(lua, decl, "steps", steps, &what)?,
            events,
            replaces: replace == Replace::Yes,
            only_with: decl
                .get::<Option<Vec<String>>>("only_with")
                .map_err(|_| {
                    mlua::Error::runtime(format!(
                        "{what}: `only_with` must be a list of element names, {{ \"ice\", ... }}"
                    ))
                })?
                .unwrap_or_default(),
            name,
        },
        replace,
    ))
}
