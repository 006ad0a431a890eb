//! What scripts hold: `ctx`, the door to the primitives, and read-only robot views.
//!
//! Both are tiny native objects that look the game up when used (through the Lua state's app
//! data), so a handler call costs no copying of state. Every change a script makes goes
//! through a `ctx:` method, which enforces the physical rules in `world.rs`.

use super::native::{self, Read};
use super::values::{self, Field};
use super::{Link, Resolver};
use crate::cards::{Card, CardKind};
use crate::error::Error;
use crate::geometry::{Dir, Pos, Rotation};
use crate::script::args::{Whole, Word};
use crate::script::{args, located, pos_table, sandbox, store, views};
use crate::state::{is_event_field, RobotId, EVENT_FIELDS};
use crate::world::How;
use mlua::{
    AnyUserData, Lua, LuaSerdeExt, LuaString, Table, UserData, UserDataFields, UserDataMethods,
    Value, Variadic,
};
use std::rc::Rc;

/// The `ctx` every handler receives.
pub struct Ctx;

/// A robot as scripts see it: `robot.name`, `robot.at`, `robot.facing`, `robot.vars`, ...
pub struct RobotView(pub RobotId);

fn link(lua: &Lua) -> mlua::Result<Rc<Link>> {
    lua.app_data_ref::<Rc<Link>>()
        .map(|l| l.clone())
        .ok_or_else(|| located(lua, sandbox::NOT_ATTACHED))
}

/// Runs a primitive with the resolver of the game this Lua state is attached to.
fn with_resolver<R>(
    lua: &Lua,
    f: impl FnOnce(&Resolver) -> crate::error::Result<R>,
) -> mlua::Result<R> {
    let link = link(lua)?;
    let resolver = Resolver { lua, link: &link };
    f(&resolver).map_err(|e| match e {
        Error::Script(_) => mlua::Error::external(e),
        other => located(lua, other),
    })
}

fn robot_id(lua: &Lua, v: &AnyUserData) -> mlua::Result<RobotId> {
    // Known by address among the game's views: no type check through the metatable.
    let view = v.to_pointer() as usize;
    if let Some(link) = lua.app_data_ref::<Rc<Link>>() {
        if let Some(id) = link.robot_views.iter().position(|&r| r == view) {
            return Ok(id);
        }
    }
    v.borrow::<RobotView>().map(|r| r.0).map_err(|_| {
        let got = if v.is::<Ctx>() {
            "ctx"
        } else {
            "another object"
        };
        args::invalid(lua, "rally.Robot", got)
    })
}

pub fn pos_arg(lua: &Lua, t: &Table) -> mlua::Result<Pos> {
    let (x, y) = {
        let keys = lua
            .app_data_ref::<crate::script::Keys>()
            .expect("keys are installed with the rule set");
        (
            coordinate(lua, "x", t.get(keys.x.clone())?)?,
            coordinate(lua, "y", t.get(keys.y.clone())?)?,
        )
    };
    match (x, y) {
        (Some(x), Some(y)) => Ok(Pos::new(x, y)),
        _ => match (
            coordinate(lua, "x", t.get(1)?)?,
            coordinate(lua, "y", t.get(2)?)?,
        ) {
            (Some(x), Some(y)) => Ok(Pos::new(x, y)),
            _ => Err(args::invalid(
                lua,
                "rally.Pos",
                "a table without `x` and `y`",
            )),
        },
    }
}

/// One coordinate of a square: a whole number that fits the board's coordinates, or nil.
/// Read as a Lua value, so that a wrong one (`2^62`, `0.5`) is refused at the script's line
/// (mlua's own conversion would say neither where nor which).
fn coordinate(lua: &Lua, name: &str, value: Value) -> mlua::Result<Option<i32>> {
    let whole = match &value {
        Value::Nil => return Ok(None),
        Value::Integer(n) => i32::try_from(*n).ok(),
        Value::Number(n) if n.fract() == 0.0 && n.abs() <= f64::from(i32::MAX) => Some(*n as i32),
        _ => None,
    };
    whole.map(Some).ok_or_else(|| {
        let got = match &value {
            Value::Integer(_) | Value::Number(_) => format!(
                "a square whose {name} is {} (a coordinate is a whole number from {} to {})",
                args::shown(&value).trim_start_matches("the number "),
                i32::MIN,
                i32::MAX
            ),
            other => format!("a square whose {name} is {}", args::shown(other)),
        };
        args::invalid(lua, "rally.Pos", &got)
    })
}

/// A square given by a script: a tile's `at` (read-only, so known by identity: reading it
/// through its metatable would cost more than the rest of the call) or any `{ x =, y = }`.
fn square_arg(lua: &Lua, t: &Table) -> mlua::Result<Pos> {
    if let Some(link) = lua.app_data_ref::<Rc<Link>>() {
        if let Some(&at) = link.squares.get(&(t.to_pointer() as usize)) {
            return Ok(at);
        }
    }
    pos_arg(lua, t)
}

fn dir_arg(lua: &Lua, s: &str) -> mlua::Result<Dir> {
    Dir::parse(s).ok_or_else(|| args::invalid(lua, "rally.Dir", &format!("\"{s}\"")))
}

/// A direction given as a Lua string: read in place, without making a Rust `String` (the
/// belt, push and turn primitives run many times a register).
fn lua_dir_arg(lua: &Lua, s: &Word) -> mlua::Result<Dir> {
    dir_arg(lua, &s.0.to_str()?)
}

fn how_arg(lua: &Lua, s: Option<Word>, default: How) -> mlua::Result<How> {
    match s {
        None => Ok(default),
        Some(s) => {
            let s = s.0.to_str()?;
            How::parse(&s).ok_or_else(|| args::invalid(lua, "rally.How", &format!("\"{s}\"")))
        }
    }
}

/// The cause a script gives a move, push or placement ("the magnetic crane"), which its
/// event's sentence says: text for people, so it is shown safely and kept short.
fn cause_arg(lua: &Lua, by: Option<LuaString>) -> mlua::Result<Option<String>> {
    let Some(by) = by else { return Ok(None) };
    let by = by.to_str()?.to_string();
    logged_text(lua, Some(by), "the cause", "").map(Some)
}

/// A card as scripts see it: `{ name = "move2", priority = 700, distance = 2, rotation = nil }`.
pub fn card_table(lua: &Lua, card: &Card) -> mlua::Result<Table> {
    values::table(lua, (), &card_fields(card))
}

/// The fields of [`card_table`].
pub fn card_fields(card: &Card) -> [(&'static str, Field<'static>); 5] {
    [
        ("name", card.kind.name().into()),
        ("priority", card.priority.map(u32::from).into()),
        ("distance", card.kind.distance().into()),
        ("rotation", card.kind.rotation().map(|r| r.name()).into()),
        ("back", (card.kind == CardKind::Back).into()),
    ]
}

/// An option card as its handlers get it: `{ name =, uses =, max_uses = }`.
pub fn option_table(
    lua: &Lua,
    name: &str,
    uses: Option<u32>,
    max_uses: Option<u32>,
) -> mlua::Result<Table> {
    let fields = [
        ("name", name.into()),
        ("uses", uses.into()),
        ("max_uses", max_uses.into()),
    ];
    values::table(lua, (), &fields)
}

/// A card argument: `"move2@700"` or a card table.
fn card_arg(lua: &Lua, v: &Value) -> mlua::Result<Card> {
    card_from_lua(v).map_err(|m| args::invalid(lua, "rally.CardArg", &m))
}

/// A card a script gives back: `"move2"`, `"move2@700"` or a card table.
pub fn card_from_lua(v: &Value) -> Result<Card, String> {
    match v {
        Value::String(s) => Card::parse(&s.to_string_lossy()),
        Value::Table(t) => {
            let name: String = t.get("name").map_err(|e| e.to_string())?;
            let mut card = Card::parse(&name)?;
            if let Ok(Some(p)) = t.get::<Option<u16>>("priority") {
                card.priority = Some(p);
            }
            Ok(card)
        }
        other => Err(args::a(other.type_name())),
    }
}

/// A table of details a script hands over (`ctx:log`, `ctx:choose`), as JSON fields, counted
/// towards what the register logs. An empty table has no fields.
fn detail_from_lua(
    lua: &Lua,
    detail: Option<Table>,
    what: &str,
) -> mlua::Result<serde_json::Map<String, serde_json::Value>> {
    let Some(t) = detail else {
        return Ok(serde_json::Map::new());
    };
    let (json, size) = store::to_json(lua, Value::Table(t), what)?;
    link(lua)?.quota.log(lua, size)?;
    match json {
        serde_json::Value::Object(map) => Ok(map),
        serde_json::Value::Array(items) if items.is_empty() => Ok(serde_json::Map::new()),
        _ => Err(located(
            lua,
            format!("{what}: expected a table of named details, not a list"),
        )),
    }
}

/// A name or cause a script hands over to be logged: bounded, and a long one counted towards
/// the log (short ones are bounded by the events limit; not counting them keeps the common
/// `cause = "laser"` cheap).
fn logged_text(lua: &Lua, text: Option<String>, what: &str, default: &str) -> mlua::Result<String> {
    const SHORT: usize = 256;
    match text {
        None => Ok(default.to_string()),
        Some(text) if text.len() <= SHORT => Ok(text),
        Some(text) => {
            store::text(lua, &text, what)?;
            link(lua)?.quota.log(lua, text.len())?;
            Ok(text)
        }
    }
}

/// The choices of `ctx:choose`, each counted towards the log limit before it is copied (a
/// list of a million references to one long string is refused, not copied).
fn choice_list(lua: &Lua, list: &Table) -> mlua::Result<Vec<String>> {
    let link = link(lua)?;
    let mut choices = Vec::new();
    for (i, choice) in views::open(lua, list)?
        .sequence_values::<Value>()
        .enumerate()
    {
        let text = match choice? {
            Value::String(s) => s,
            other => lua.coerce_string(other.clone())?.ok_or_else(|| {
                located(
                    lua,
                    format!(
                        "ctx:choose: choice {} must be a string, got a {}",
                        i + 1,
                        other.type_name()
                    ),
                )
            })?,
        };
        link.quota.log(lua, text.as_bytes().len())?;
        let text = text.to_str()?;
        store::text(lua, &text, "ctx:choose: a choice")?;
        choices.push(text.to_string());
    }
    Ok(choices)
}

/// Stores a var: `vars[key] = value` (nil removes it), within the limits.
fn set_var(
    lua: &Lua,
    key: String,
    value: Value,
    vars: impl FnOnce(&mut crate::world::World) -> &mut crate::state::Vars,
    what: &str,
) -> mlua::Result<()> {
    store::text(lua, &key, &format!("{what}: the key"))?;
    let (json, size) = store::to_json(lua, value, &format!("{what}: `{key}`"))?;
    let link = link(lua)?;
    link.quota.store(lua, key.len() + size, || {
        let w = link.world.borrow();
        let all = w
            .state
            .robots
            .iter()
            .map(|r| &r.vars)
            .chain([&w.state.vars]);
        all.flat_map(|vars| vars.iter())
            .map(|(k, v)| k.len() + store::size(v))
            .sum()
    })?;
    let mut w = link.world.borrow_mut();
    // The map is copied here only if a copy of the state still shares it.
    let vars = std::sync::Arc::make_mut(vars(&mut w));
    if json.is_null() {
        vars.remove(&key);
    } else {
        vars.insert(key, json);
    }
    Ok(())
}

/// `robot[key]` as mlua reads it: every field, and the error for a key that is none. The
/// fields that need no allocation are answered before this, natively (`native.rs`).
fn robot_field_slow(lua: &Lua, (robot, key): (AnyUserData, Value)) -> mlua::Result<Value> {
    let id = robot_id(lua, &robot)?;
    let read = match &key {
        Value::String(s) => {
            let link = link(lua)?;
            let world = link.world.borrow();
            native::robot_field(&world.state.robots[id], &s.as_bytes())
        }
        _ => None,
    };
    let Some(read) = read else {
        let key = key.to_string()?;
        let names = ROBOT_FIELDS.iter().map(|(name, _)| *name);
        return Err(located(
            lua,
            format!(
                "a robot has no field `{key}`{}; it has {}",
                crate::error::suggest(&key, names.clone()),
                names.collect::<Vec<_>>().join(", ")
            ),
        ));
    };
    let link = link(lua)?;
    let world = link.world.borrow();
    let r = &world.state.robots[id];
    match read {
        Read::Int(n) => Ok(Value::Integer(n)),
        Read::Bool(b) => Ok(Value::Boolean(b)),
        Read::Str(s) => lua.create_string(s).map(Value::String),
        Read::Pos(p) => pos_table(lua, p).map(Value::Table),
        Read::Name => lua.create_string(&*r.name).map(Value::String),
        // The names of the option cards it holds, in the order drawn.
        Read::Options(_) => {
            values::strings(lua, r.options.iter().map(|o| o.name.as_str())).map(Value::Table)
        }
        // A read-only copy: writing to it would be lost, so it is refused (`RobotVars`).
        Read::Vars => {
            let vars = lua.to_value(&r.vars)?;
            drop(world);
            views::read_only_vars(lua, vars)
        }
        Read::Segment => unreachable!("robots have no segment"),
    }
}

impl UserData for RobotView {
    fn add_fields<F: UserDataFields<Self>>(fields: &mut F) {
        // How Lua's own errors name it (`attempt to perform arithmetic on a robot value`).
        fields.add_meta_field(mlua::MetaMethod::Type, "robot");
        // Its fields (`ROBOT_FIELDS`): no mlua field getters, whose `__index` would put a Lua
        // function and a callback in front of every read.
        fields.add_meta_field_with("__index", |lua| {
            native::robot_reader(lua, lua.create_function(robot_field_slow)?)
        });
    }

    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_meta_method("__tostring", |lua, this, ()| {
            let link = link(lua)?;
            let name = link.world.borrow().state.robots[this.0].name.clone();
            Ok(format!("robot {name}"))
        });
        methods.add_meta_method(
            "__newindex",
            |lua, _, (key, _): (Value, Value)| -> mlua::Result<()> {
                let key = key.to_string()?;
                let advice = match ROBOT_FIELDS.iter().find(|(name, _)| *name == key) {
                    Some((_, advice)) => advice.to_string(),
                    None => format!("keep state with ctx:set_var(robot, '{key}', value)"),
                };
                Err(located(lua, format!("robots are read-only: {advice}")))
            },
        );
    }
}

/// A robot's fields, and how a script changes each (robots themselves are read-only).
pub const ROBOT_FIELDS: [(&str, &str); 13] = [
    ("name", "a robot's name never changes"),
    (
        "at",
        "move it with ctx:move(robot, dir, n) or ctx:place(robot, square)",
    ),
    (
        "x",
        "move it with ctx:move(robot, dir, n) or ctx:place(robot, square)",
    ),
    (
        "y",
        "move it with ctx:move(robot, dir, n) or ctx:place(robot, square)",
    ),
    (
        "facing",
        "turn it with ctx:face(robot, dir) or ctx:rotate(robot, rotation)",
    ),
    ("damage", "use ctx:damage(robot, n) or ctx:repair(robot, n)"),
    ("lives", "use ctx:set_lives(robot, n)"),
    ("flags", "use ctx:touch_flag(robot, n)"),
    ("archive", "use ctx:set_archive(robot, square)"),
    ("destroyed", "use ctx:destroy(robot, cause)"),
    (
        "powered_down",
        "powering down is its player's decision (the turn loop asks `power_down`)",
    ),
    (
        "options",
        "use ctx:draw_option(robot) or ctx:discard_option(robot, name)",
    ),
    ("vars", "use ctx:set_var(robot, key, value)"),
];

/// `ctx[key]` for a key that is no method, as mlua reads it: a field ([`native::CTX_FIELDS`]),
/// or the error for a key that is neither. The fields that need no allocation are answered
/// before this, natively (`native.rs`).
fn ctx_field_slow(lua: &Lua, (_, key): (Value, Value)) -> mlua::Result<Value> {
    if let Value::String(s) = &key {
        let link = link(lua)?;
        let world = link.world.borrow();
        match native::ctx_field(&world, &s.as_bytes()) {
            Some(Read::Int(n)) => return Ok(Value::Integer(n)),
            Some(Read::Str(_) | Read::Segment) => {
                return lua.create_string(&*world.state.segment).map(Value::String)
            }
            Some(other) => unreachable!("ctx has no field of this kind: {other:?}"),
            None => {}
        }
    }
    let key = key.to_string()?;
    let known = args::members("Ctx");
    Err(located(
        lua,
        format!(
            "ctx has no method or field `{key}`{} (the whole list: docs/api.md)",
            crate::error::suggest(&key, known.iter().map(String::as_str))
        ),
    ))
}

impl UserData for Ctx {
    fn add_fields<F: UserDataFields<Self>>(fields: &mut F) {
        fields.add_meta_field(mlua::MetaMethod::Type, "ctx");
        // What `ctx` looks its keys up in: a plain table, into which mlua puts the methods, so
        // that `ctx:method()` costs one table read (field getters would make every lookup call
        // a Lua function first). The fields, and unknown keys, go to that table's own
        // `__index`.
        fields.add_meta_field_with("__index", |lua| {
            let index = lua.create_table()?;
            let read = native::ctx_reader(lua, lua.create_function(ctx_field_slow)?)?;
            index.set_metatable(Some(lua.create_table_from([("__index", read)])?))?;
            Ok(index)
        });
    }

    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_meta_method(
            "__newindex",
            |lua, _, (key, _): (Value, Value)| -> mlua::Result<()> {
                Err(located(
                    lua,
                    format!(
                        "cannot set `{}`: ctx is read-only; keep state with ctx:set_var(robot, key, value) or ctx:set_game_var(key, value)",
                        key.to_string()?
                    ),
                ))
            },
        );

        // --- Looking at the board -------------------------------------------------------
        methods.add_method("robots", |lua, _, ()| {
            let link = link(lua)?;
            let active: Variadic<&AnyUserData> = {
                let w = link.world.borrow();
                (0..w.state.robots.len())
                    .filter(|&i| w.state.robots[i].is_active())
                    .map(|i| &link.robots[i])
                    .collect()
            };
            values::list(lua, active)
        });
        methods.add_method("robot_at", |lua, _, at: Table| {
            let at = square_arg(lua, &at)?;
            let link = link(lua)?;
            let id = link.world.borrow().robot_at(at);
            Ok(id.map(|i| link.robots[i].clone()))
        });
        methods.add_method("tiles_at", |lua, _, at: Table| {
            let at = square_arg(lua, &at)?;
            let link = link(lua)?;
            let board = link.world.borrow().board.clone();
            let tiles: Variadic<&Table> =
                board.tiles_at(at).iter().map(|&t| &link.tiles[t]).collect();
            values::list(lua, tiles)
        });
        // Every tile of one element on the board, in board order (row, then column): a
        // portal finds its twin, a designer's element finds its partners.
        methods.add_method("find_tiles", |lua, _, element: String| {
            let link = link(lua)?;
            let board = link.world.borrow().board.clone();
            Ok(board
                .tiles
                .iter()
                .enumerate()
                .filter(|(_, t)| t.name == element)
                .map(|(i, _)| link.tiles[i].clone())
                .collect::<Vec<_>>())
        });
        methods.add_method("has", |lua, _, (at, element): (Table, String)| {
            let at = square_arg(lua, &at)?;
            Ok(link(lua)?.world.borrow().board.has_element(at, &element))
        });
        methods.add_method("on_board", |lua, _, at: Table| {
            let at = square_arg(lua, &at)?;
            Ok(link(lua)?.world.borrow().board.contains(at))
        });
        methods.add_method("can_move", |lua, _, (at, dir): (Table, Word)| {
            let (at, dir) = (square_arg(lua, &at)?, lua_dir_arg(lua, &dir)?);
            Ok(link(lua)?.world.borrow().board.robot_can_cross(at, dir))
        });
        // What a beam or a line of sight from a square (or a robot) along `dir` meets: the
        // squares, the first robot, the wall; `opts.range` squares at most (default: across
        // the board). The engine's own tracing (the re-entry rule's line of sight).
        methods.add_method(
            "trace",
            |lua, _, (from, dir, opts): (Value, Word, Option<Table>)| {
                let dir = lua_dir_arg(lua, &dir)?;
                let link = link(lua)?;
                let from = match &from {
                    Value::UserData(u) => {
                        let id = robot_id(lua, u)?;
                        link.world.borrow().state.robots[id].at
                    }
                    Value::Table(t) => square_arg(lua, t)?,
                    other => {
                        return Err(located(
                            lua,
                            format!(
                                "ctx:trace: `from` must be a square or a robot, got {}",
                                args::a(other.type_name())
                            ),
                        ))
                    }
                };
                let range = opts.map_or(Ok(None), |o| o.get::<Option<i32>>("range"))?;
                let sight = {
                    let w = link.world.borrow();
                    let across = w.board.width.max(w.board.height);
                    let range = args::not_negative(lua, "range", range.unwrap_or(across))?;
                    w.look(from, dir, range.min(across))
                };
                let out = lua.create_table()?;
                let squares = lua.create_table()?;
                for p in &sight.squares {
                    squares.push(pos_table(lua, *p)?)?;
                }
                out.set("squares", squares)?;
                out.set("robot", sight.robot.map(|r| link.robots[r].clone()))?;
                if let Some(at) = sight.wall {
                    let wall = lua.create_table()?;
                    wall.set("at", pos_table(lua, at)?)?;
                    wall.set("side", dir.name())?;
                    out.set("wall", wall)?;
                }
                Ok(out)
            },
        );
        methods.add_method("is_hazard", |lua, _, at: Table| {
            let at = square_arg(lua, &at)?;
            Ok(link(lua)?.world.borrow().board.is_hazard(at))
        });
        methods.add_method("is_solid", |lua, _, at: Table| {
            let at = square_arg(lua, &at)?;
            Ok(link(lua)?.world.borrow().board.is_solid(at))
        });
        methods.add_method("flag_count", |lua, _, ()| {
            Ok(link(lua)?.world.borrow().board.flags().len())
        });

        // --- Moving robots ----------------------------------------------------------------
        methods.add_method(
            "move",
            |lua,
             _,
             (robot, dir, squares, how, by): (
                AnyUserData,
                Word,
                Option<i32>,
                Option<Word>,
                Option<LuaString>,
            )| {
                let (id, dir) = (robot_id(lua, &robot)?, lua_dir_arg(lua, &dir)?);
                let how = how_arg(lua, how, How::Script)?;
                let squares = args::not_negative(lua, "squares", squares.unwrap_or(1))?;
                let by = cause_arg(lua, by)?;
                with_resolver(lua, |e| e.move_robot(id, dir, squares, how, by.as_deref()))
            },
        );
        methods.add_method(
            "push",
            |lua, _, (robot, dir, by): (AnyUserData, Word, Option<LuaString>)| {
                let (id, dir) = (robot_id(lua, &robot)?, lua_dir_arg(lua, &dir)?);
                let by = cause_arg(lua, by)?;
                with_resolver(lua, |e| e.move_robot(id, dir, 1, How::Push, by.as_deref()))
                    .map(|moved| moved == 1)
            },
        );
        methods.add_method(
            "place",
            |lua,
             _,
             (robot, at, how, dir, by): (
                AnyUserData,
                Table,
                Option<Word>,
                Option<Word>,
                Option<LuaString>,
            )| {
                let (id, at) = (robot_id(lua, &robot)?, square_arg(lua, &at)?);
                let how = how_arg(lua, how, How::Script)?;
                let link = link(lua)?;
                if let Some(other) = link.world.borrow().robot_at(at) {
                    if other != id {
                        return Err(located(
                            lua,
                            format!("cannot place a robot on {at}: a robot stands there"),
                        ));
                    }
                }
                let facing = link.world.borrow().state.robots[id].facing;
                let dir = match dir {
                    Some(d) => lua_dir_arg(lua, &d)?,
                    None => facing,
                };
                let by = cause_arg(lua, by)?;
                with_resolver(lua, |e| e.place(id, at, dir, how, by.as_deref()))
            },
        );
        // `by` names what turns the robot ("gear", "belt"...; default "script"), for the
        // rules' and options' `on_rotate` (Gyroscopic Stabilizer). Returns whether it turned.
        methods.add_method(
            "rotate",
            |lua, _, (robot, rotation, by): (AnyUserData, Word, Option<LuaString>)| {
                let id = robot_id(lua, &robot)?;
                let rotation = rotation.0.to_str()?;
                let rotation = Rotation::parse(&rotation).ok_or_else(|| {
                    args::invalid(lua, "rally.Rotation", &format!("\"{rotation}\""))
                })?;
                let by = by.as_ref().map(|s| s.to_str()).transpose()?;
                with_resolver(lua, |e| {
                    e.rotate(id, rotation, by.as_deref().unwrap_or("script"))
                })
            },
        );
        methods.add_method("face", |lua, _, (robot, dir): (AnyUserData, Word)| {
            let (id, dir) = (robot_id(lua, &robot)?, lua_dir_arg(lua, &dir)?);
            link(lua)?.world.borrow_mut().face(id, dir);
            Ok(())
        });
        methods.add_method("convey", |lua, _, (robot, dir): (AnyUserData, Word)| {
            let (id, dir) = (robot_id(lua, &robot)?, lua_dir_arg(lua, &dir)?);
            link(lua)?.world.borrow_mut().convey(id, dir);
            Ok(())
        });
        methods.add_method(
            "queue_push",
            |lua, _, (robot, dir, by): (AnyUserData, Word, Option<LuaString>)| {
                let (id, dir) = (robot_id(lua, &robot)?, lua_dir_arg(lua, &dir)?);
                let by = cause_arg(lua, by)?;
                link(lua)?.world.borrow_mut().queue_push(id, dir, by);
                Ok(())
            },
        );

        // --- Lasers and damage --------------------------------------------------------------
        methods.add_method("fire_robot_lasers", |lua, _, ()| {
            with_resolver(lua, |e| e.fire_robot_lasers())
        });
        methods.add_method(
            "fire_beam",
            // `from` is a square (a board laser: the beam starts in it) or a robot (its laser:
            // the beam starts in the next square, so the shooter never hits itself).
            // `opts.through = n`: the beam goes on through n walls or robots (High-Power
            // Laser), and every robot in it takes the damage. Returns the first robot hit
            // (or nil) and the list of all robots hit.
            |lua, _, (from, dir, strength, opts): (Value, Word, Option<i32>, Option<Table>)| {
                let dir = lua_dir_arg(lua, &dir)?;
                let strength = args::not_negative(lua, "strength", strength.unwrap_or(1))?;
                let link = link(lua)?;
                let (start, shooter) = match &from {
                    Value::Table(t) => (square_arg(lua, t)?, None),
                    Value::UserData(u) => {
                        let id = robot_id(lua, u)?;
                        (link.world.borrow().state.robots[id].at, Some(id))
                    }
                    other => {
                        return Err(args::invalid(
                            lua,
                            "rally.Robot",
                            &args::a(other.type_name()),
                        ))
                    }
                };
                let (cause, through): (Option<String>, Option<u32>) = match &opts {
                    Some(o) => (o.get(&link.names.cause)?, o.get(&link.names.through)?),
                    None => (None, None),
                };
                let cause = cause
                    .map(|c| logged_text(lua, Some(c), "ctx:fire_beam: the cause", ""))
                    .transpose()?;
                let cause: std::sync::Arc<str> = match cause {
                    Some(c) => c.into(),
                    None if shooter.is_some() => "robot laser".into(),
                    None => "laser".into(),
                };
                let through = through.unwrap_or(0);
                let hits = with_resolver(lua, |e| {
                    e.fire_beam(start, dir, strength, &cause, shooter, through)
                })?;
                let first = hits.first().map(|&i| link.robots[i].clone());
                let views: Variadic<&AnyUserData> = hits.iter().map(|&i| &link.robots[i]).collect();
                Ok((first, values::list(lua, views)?))
            },
        );
        methods.add_method(
            "damage",
            // `from`: the side of the robot the damage comes from ("N".."W"), for options
            // that care (Power-Down Shield); omitted, it has no side.
            // `opts.absorb = false`: its player may not scrap options to cancel it (Fire Control).
            // `opts.register = n`: its first token lies on register n (1..5), locking it
            // (Fire Control, rules.md §6.4 erratum).
            |lua,
             _,
             (robot, amount, cause, from, opts): (
                AnyUserData,
                Whole<i32>,
                Option<String>,
                Option<String>,
                Option<Table>,
            )| {
                let id = robot_id(lua, &robot)?;
                let amount = args::not_negative(lua, "amount", amount.0)?;
                let from = from.map(|d| dir_arg(lua, &d)).transpose()?;
                let cause = logged_text(lua, cause, "ctx:damage: the cause", "script")?;
                let absorb = opts
                    .as_ref()
                    .map_or(Ok(None), |o| o.get::<Option<bool>>("absorb"))?;
                let register = opts
                    .as_ref()
                    .map_or(Ok(None), |o| o.get::<Option<i64>>("register"))?;
                let register = match register {
                    None => None,
                    Some(n @ 1..=5) => Some(n as u8),
                    Some(n) => {
                        return Err(located(
                            lua,
                            format!(
                                "ctx:damage: opts.register = {n}: expected a register from 1 to 5"
                            ),
                        ))
                    }
                };
                with_resolver(lua, |e| {
                    e.hit(crate::world::Hit {
                        robot: id,
                        amount,
                        cause: cause.into(),
                        from,
                        absorb: absorb.unwrap_or(true),
                        shot: None,
                        register,
                    })
                })
            },
        );
        methods.add_method(
            "destroy",
            |lua, _, (robot, cause): (AnyUserData, Option<String>)| {
                let id = robot_id(lua, &robot)?;
                let cause = logged_text(lua, cause, "ctx:destroy: the cause", "script")?;
                link(lua)?.world.borrow_mut().destroy(id, &cause);
                Ok(())
            },
        );
        methods.add_method(
            "repair",
            |lua, _, (robot, amount): (AnyUserData, Option<Whole<i32>>)| {
                let id = robot_id(lua, &robot)?;
                let amount = args::not_negative(lua, "amount", amount.map_or(1, |a| a.0))?;
                link(lua)?.world.borrow_mut().repair(id, amount);
                Ok(())
            },
        );

        // Sets the robot's lives left (a house rule giving more or fewer lives); logs `lives`.
        methods.add_method(
            "set_lives",
            |lua, _, (robot, lives): (AnyUserData, Whole<i32>)| {
                let (id, lives) = (robot_id(lua, &robot)?, lives.0);
                link(lua)?.world.borrow_mut().set_lives(id, lives);
                Ok(())
            },
        );

        // --- Option cards (rules.md §6.6) and decisions -------------------------------------
        // The options a robot holds, in the order drawn: `{ { name =, uses =, max_uses = } }`
        // (`uses`/`max_uses` nil for options without ammunition).
        methods.add_method("options", |lua, _, robot: AnyUserData| {
            let id = robot_id(lua, &robot)?;
            let link = link(lua)?;
            let held = link.world.borrow().state.robots[id].options.clone();
            held.iter()
                .map(|o| {
                    let max = link.defs.option_def(&o.name).and_then(|d| d.uses);
                    option_table(lua, &o.name, o.uses_left, max)
                })
                .collect::<mlua::Result<Vec<Table>>>()
        });
        methods.add_method(
            "has_option",
            |lua, _, (robot, name): (AnyUserData, String)| {
                let id = robot_id(lua, &robot)?;
                Ok(link(lua)?.world.borrow().state.robots[id]
                    .option(&name)
                    .is_some())
            },
        );
        // Draws the top option card for the robot (logs `option_drawn`); returns its name, or
        // nil when none is left.
        methods.add_method("draw_option", |lua, _, robot: AnyUserData| {
            let id = robot_id(lua, &robot)?;
            let link = link(lua)?;
            let catalogue = link.defs.option_catalogue();
            let drawn = link.world.borrow_mut().draw_option(id, &catalogue);
            Ok(drawn)
        });
        // Scraps a held option onto the discards (logs `option_discarded` with `why`).
        methods.add_method(
            "discard_option",
            |lua, _, (robot, name, why): (AnyUserData, String, Option<String>)| {
                let id = robot_id(lua, &robot)?;
                let why = logged_text(lua, why, "ctx:discard_option: why", "scrapped")?;
                let link = link(lua)?;
                let done = link.world.borrow_mut().discard_option(id, &name, &why);
                Ok(done)
            },
        );
        // Spends n (default 1) ammunition of a held option; false if it has not enough.
        methods.add_method(
            "use_option",
            |lua, _, (robot, name, n): (AnyUserData, String, Option<u32>)| {
                let id = robot_id(lua, &robot)?;
                Ok(link(lua)?
                    .world
                    .borrow_mut()
                    .use_option(id, &name, n.unwrap_or(1)))
            },
        );
        // Refills a held option's ammunition to its declared `uses`; false if it has none.
        methods.add_method(
            "reload_option",
            |lua, _, (robot, name): (AnyUserData, String)| {
                let id = robot_id(lua, &robot)?;
                let link = link(lua)?;
                let Some(full) = link.defs.option_def(&name).and_then(|d| d.uses) else {
                    return Ok(false);
                };
                let done = link.world.borrow_mut().reload_option(id, &name, full);
                Ok(done)
            },
        );
        // Asks the robot's player: `ctx:choose(robot, key, { "a", "b" }, { text = "...", ... })`
        // returns one of the choices. The first choice is the default (a scenario that fixes
        // nothing, a bot with no opinion). The other `info` keys are hints for bots.
        methods.add_method(
            "choose",
            |lua, _, (robot, key, choices, info): (AnyUserData, String, Table, Option<Table>)| {
                let id = robot_id(lua, &robot)?;
                let key = logged_text(lua, Some(key), "ctx:choose: the key", "")?;
                let choices = choice_list(lua, &choices)?;
                let mut detail = detail_from_lua(lua, info, "ctx:choose: info")?;
                let text = match detail.remove("text") {
                    Some(serde_json::Value::String(s)) => s,
                    _ => String::new(),
                };
                let hidden = detail.get("hidden") == Some(&serde_json::Value::Bool(true));
                with_resolver(lua, |e| {
                    e.choose(id, &key, choices, hidden, || (text, detail))
                })
            },
        );
        // `value` after every option the robot holds had its `modify[key]` say (held order).
        methods.add_method(
            "modify",
            |lua, _, (robot, key, value): (AnyUserData, String, Value)| {
                let id = robot_id(lua, &robot)?;
                with_resolver(lua, |e| e.modify(id, &key, value))
            },
        );

        // --- Checkpoints ----------------------------------------------------------------------
        methods.add_method(
            "touch_flag",
            |lua, _, (robot, number): (AnyUserData, u32)| {
                let id = robot_id(lua, &robot)?;
                Ok(link(lua)?.world.borrow_mut().touch_flag(id, number))
            },
        );
        methods.add_method(
            "set_archive",
            |lua, _, (robot, at): (AnyUserData, Option<Table>)| {
                let id = robot_id(lua, &robot)?;
                let link = link(lua)?;
                let at = match at {
                    Some(t) => square_arg(lua, &t)?,
                    None => link.world.borrow().state.robots[id].at,
                };
                // What a save checks (game/save.rs), the primitive checks: an archive off the
                // board would make a save that `--resume` refuses.
                let off = {
                    let board = &link.world.borrow().board;
                    (!board.contains(at)).then(|| format!("{}×{}", board.width, board.height))
                };
                if let Some(size) = off {
                    return Err(located(
                        lua,
                        format!("ctx:set_archive: {at} is off the {size} board"),
                    ));
                }
                link.world.borrow_mut().set_archive(id, at);
                Ok(())
            },
        );

        // --- Script memory, randomness, log -----------------------------------------------
        methods.add_method(
            "set_var",
            |lua, _, (robot, key, value): (AnyUserData, String, Value)| {
                let id = robot_id(lua, &robot)?;
                set_var(
                    lua,
                    key,
                    value,
                    |w| &mut w.state.robots[id].vars,
                    "ctx:set_var",
                )
            },
        );
        methods.add_method("game_var", |lua, _, key: String| {
            let link = link(lua)?;
            let v = link.world.borrow().state.vars.get(&key).cloned();
            // A missing var is nil (serializing `None` would give serde's `null` userdata).
            v.map_or(Ok(Value::Nil), |v| lua.to_value(&v))
        });
        methods.add_method("set_game_var", |lua, _, (key, value): (String, Value)| {
            set_var(lua, key, value, |w| &mut w.state.vars, "ctx:set_game_var")
        });
        methods.add_method("random", |lua, _, Whole(n): Whole<u64>| {
            if n == 0 {
                return Err(located(lua, "ctx:random(n) needs n >= 1"));
            }
            Ok(link(lua)?.world.borrow_mut().state.rng.roll(n))
        });
        methods.add_method(
            "log",
            |lua, _, (robot, what, detail): (Option<AnyUserData>, String, Option<Table>)| {
                let id = robot.as_ref().map(|r| robot_id(lua, r)).transpose()?;
                let what = logged_text(lua, Some(what), "ctx:log: the event's name", "")?;
                let detail = detail_from_lua(lua, detail, "ctx:log: details")?;
                if let Some(key) = detail.keys().find(|k| is_event_field(k)) {
                    return Err(located(
                        lua,
                        format!(
                            "ctx:log: details: `{key}` is one of the event's own fields ({}): name the detail otherwise",
                            EVENT_FIELDS.join(", ")
                        ),
                    ));
                }
                link(lua)?.world.borrow_mut().state.log(id, what, detail);
                Ok(())
            },
        );
        // A program card drawn at random (game RNG) from the classic deck, leaving out the
        // cards in robots' registers: the undealt remainder (a randomizer, rules.md §4.21).
        methods.add_method("random_card", |lua, _, ()| {
            let link = link(lua)?;
            let mut w = link.world.borrow_mut();
            let held: Vec<Card> = w
                .state
                .robots
                .iter()
                .flat_map(|r| r.program.iter().flatten().copied())
                .collect();
            let pool: Vec<Card> = Card::classic_deck()
                .into_iter()
                .filter(|c| !held.contains(c))
                .collect();
            if pool.is_empty() {
                return Err(located(
                    lua,
                    "ctx:random_card(): every card of the deck is held",
                ));
            }
            let pick = w.state.rng.roll(pool.len() as u64) as usize - 1;
            card_table(lua, &pool[pick])
        });
        // --- Program cards: hands, registers, the deck (programming-time hooks) ---------------
        // The robot's hand: while it programs (`on_deal`) the cards dealt, after (`on_program`)
        // its leftovers; empty otherwise.
        methods.add_method("hand", |lua, _, robot: AnyUserData| {
            let id = robot_id(lua, &robot)?;
            let hand = link(lua)?.world.borrow().state.robots[id].hand.clone();
            hand.iter()
                .map(|c| card_table(lua, c))
                .collect::<mlua::Result<Vec<_>>>()
        });
        // Deals `n` (default 1) cards from the top of the deck into the robot's hand (logs
        // `cards_drawn`); returns them (fewer if the deck runs out).
        methods.add_method(
            "draw_cards",
            |lua, _, (robot, n): (AnyUserData, Option<u32>)| {
                let id = robot_id(lua, &robot)?;
                let link = link(lua)?;
                let mut w = link.world.borrow_mut();
                let mut drawn = Vec::new();
                for _ in 0..n.unwrap_or(1) {
                    match crate::deal::draw_card(&mut w.state) {
                        Some(c) => drawn.push(c),
                        None => break,
                    }
                }
                w.state.robots[id].hand.extend(drawn.iter().copied());
                let shown: Vec<String> = drawn.iter().map(Card::to_string).collect();
                w.state
                    .log(Some(id), "cards_drawn", crate::detail! {"cards" => shown});
                drop(w);
                drawn
                    .iter()
                    .map(|c| card_table(lua, c))
                    .collect::<mlua::Result<Vec<_>>>()
            },
        );
        // Takes a card out of the robot's hand (it is discarded); false if not in the hand.
        methods.add_method(
            "discard_card",
            |lua, _, (robot, card): (AnyUserData, Value)| {
                let id = robot_id(lua, &robot)?;
                let card = card_arg(lua, &card)?;
                let link = link(lua)?;
                let mut w = link.world.borrow_mut();
                let hand = &mut w.state.robots[id].hand;
                let Some(i) = hand.iter().position(|c| *c == card) else {
                    return Ok(false);
                };
                hand.remove(i);
                w.state.log(
                    Some(id),
                    "card_discarded",
                    crate::detail! {"card" => card.to_string()},
                );
                Ok(true)
            },
        );
        // Sets a card from the robot's hand aside under `key` (an option's name): it leaves the
        // hand and the deck until `ctx:take_kept`. `opts.offered = true`: it is offered with
        // the robot's hand when it programs (Flywheel). A card already kept under `key` is
        // discarded. Logs `card_kept`; false if the card is not in the hand.
        methods.add_method(
            "keep_card",
            |lua, _, (robot, key, card, opts): (AnyUserData, String, Value, Option<Table>)| {
                let id = robot_id(lua, &robot)?;
                let card = card_arg(lua, &card)?;
                let offered = opts.map_or(Ok(None), |o| o.get::<Option<bool>>("offered"))?;
                let link = link(lua)?;
                let mut w = link.world.borrow_mut();
                let r = &mut w.state.robots[id];
                let Some(i) = r.hand.iter().position(|c| *c == card) else {
                    return Ok(false);
                };
                r.hand.remove(i);
                let kept = crate::state::Kept {
                    card,
                    offered: offered.unwrap_or(false),
                };
                r.kept.insert(key.clone(), kept);
                w.state.log(
                    Some(id),
                    "card_kept",
                    crate::detail! {"card" => card.to_string(), "key" => key},
                );
                Ok(true)
            },
        );
        // The card the robot keeps under `key`, or nil.
        methods.add_method(
            "kept_card",
            |lua, _, (robot, key): (AnyUserData, String)| {
                let id = robot_id(lua, &robot)?;
                let kept = link(lua)?.world.borrow().state.robots[id]
                    .kept
                    .get(&key)
                    .copied();
                kept.map(|k| card_table(lua, &k.card)).transpose()
            },
        );
        // Takes the card kept under `key` off the option and returns it (nil if none): to put
        // it in a register (`ctx:set_card`) or to discard it. Logs `card_unkept`.
        methods.add_method(
            "take_kept",
            |lua, _, (robot, key): (AnyUserData, String)| {
                let id = robot_id(lua, &robot)?;
                let link = link(lua)?;
                let mut w = link.world.borrow_mut();
                let Some(kept) = w.state.robots[id].kept.remove(&key) else {
                    return Ok(None);
                };
                w.state.log(
                    Some(id),
                    "card_unkept",
                    crate::detail! {"card" => kept.card.to_string(), "key" => key},
                );
                drop(w);
                card_table(lua, &kept.card).map(Some)
            },
        );
        // The robot's five registers: a card table per register, false where it is empty.
        methods.add_method("program", |lua, _, robot: AnyUserData| {
            let id = robot_id(lua, &robot)?;
            let program = link(lua)?.world.borrow().state.robots[id].program.clone();
            (0..crate::state::REGISTERS)
                .map(|i| match program.get(i).copied().flatten() {
                    Some(c) => card_table(lua, &c).map(Value::Table),
                    None => Ok(Value::Boolean(false)),
                })
                .collect::<mlua::Result<Vec<_>>>()
        });
        // Is the robot's register (1..5) locked by its damage (rules.md §1.3, §6.4)?
        methods.add_method(
            "is_locked",
            |lua, _, (robot, register): (AnyUserData, usize)| {
                let id = robot_id(lua, &robot)?;
                let link = link(lua)?;
                let w = link.world.borrow();
                Ok((1..=crate::state::REGISTERS).contains(&register)
                    && crate::deal::is_locked(&w.state.robots[id], register - 1))
            },
        );
        // Puts a card (or nil: nothing) in the robot's register for the rest of the turn; a
        // register already revealed this turn cannot change. Logs `card_set` with `why`.
        methods.add_method(
            "set_card",
            |lua, _, (robot, register, card, why): (AnyUserData, u8, Value, Option<String>)| {
                let id = robot_id(lua, &robot)?;
                let card = match card {
                    Value::Nil => None,
                    v => Some(card_arg(lua, &v)?),
                };
                with_resolver(lua, |e| {
                    e.set_card(
                        id,
                        register,
                        card,
                        false,
                        why.as_deref().unwrap_or("script"),
                    )
                })
            },
        );
        // Puts a copy of `from`'s card in `register` into the robot's (Radio Control); on a tie
        // of priorities the original's robot acts first.
        methods.add_method(
            "copy_card",
            |lua, _, (robot, register, from, why): (AnyUserData, u8, AnyUserData, Option<String>)| {
                let (id, source) = (robot_id(lua, &robot)?, robot_id(lua, &from)?);
                let card = link(lua)?.world.borrow().state.robots[source]
                    .card(register.clamp(1, crate::state::REGISTERS as u8));
                with_resolver(lua, |e| {
                    e.set_card(id, register, card, card.is_some(), why.as_deref().unwrap_or("copied"))
                })
            },
        );
        // The top card of this turn's program deck, taken off it (nil when every card is out).
        methods.add_method("draw_card", |lua, _, ()| {
            let link = link(lua)?;
            let card = crate::deal::draw_card(&mut link.world.borrow_mut().state);
            card.map(|c| card_table(lua, &c)).transpose()
        });
        // The card the robot revealed this register (after any randomizer swap); nil outside
        // the registers and for robots without a card.
        methods.add_method("card", |lua, _, robot: AnyUserData| {
            let id = robot_id(lua, &robot)?;
            let link = link(lua)?;
            let card = if link.world.borrow().state.register == 0 {
                None
            } else {
                link.revealed.borrow()[id]
            };
            card.map(|c| card_table(lua, &c)).transpose()
        });
    }
}

/// Replaces `math.random` with the game's seeded RNG (design.md principle 4), with Lua's
/// signature: `math.random()` is in [0, 1), `math.random(n)` in 1..n, `math.random(m, n)` in
/// m..n. Outside a game (a rule set detached from its game) there is no game RNG, so it is an
/// error.
pub fn install_random(lua: &Lua) -> mlua::Result<()> {
    let random = lua.create_function(|lua, (m, n): (Option<i64>, Option<i64>)| {
        let link = link(lua)?;
        let rng = &mut link.world.borrow_mut().state.rng;
        let (lo, hi) = match (m, n) {
            (None, _) => {
                return Ok(Value::Number(
                    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64,
                ))
            }
            (Some(n), None) => (1, n),
            (Some(m), Some(n)) => (m, n),
        };
        if lo > hi {
            return Err(located(
                lua,
                format!("math.random({lo}, {hi}): the interval is empty"),
            ));
        }
        // hi - lo in u64: exact for every interval, the whole of i64 included.
        let offset = match hi.wrapping_sub(lo) as u64 {
            u64::MAX => rng.next_u64(),
            span => rng.roll(span + 1) - 1,
        };
        Ok(Value::Integer(lo.wrapping_add(offset as i64)))
    })?;
    let math: Table = lua.globals().get("math")?;
    math.raw_set("random", random)
}
