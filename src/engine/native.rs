//! What scripts do on every hot path, done by plain C functions that reach the game directly:
//! reading a robot's or ctx's fields (`robot.x`, `ctx.register`), the belt and pusher
//! primitives, which only queue a move (`ctx:convey`, `ctx:queue_push`), and a board laser's
//! beam in the laser step, where its hits are only queued (`ctx:fire_beam`), a turn no
//! `on_rotate` handler may change (`ctx:rotate`, gears), a repair site's `ctx:repair`,
//! `ctx:robot_at`, and `ctx:log` with flat details.
//!
//! Through mlua a field read was a Lua function (mlua's `__index`) and a Rust callback, about
//! 200 ns, more than most handlers spend on their own work (`#robot.options`, read by the
//! option scrapping rule at every hit, was a sixth of a laser's cost); a method call converted
//! and type-checked every argument through references, about 600 ns for `ctx:convey`. Here
//! each is one C call that finds the game through the state's extra space
//! ([`sandbox::budget_of`], then the budget's [`Attached`](sandbox::Attached) game) and knows
//! robots by their address.
//!
//! What has to be built on the Rust heap (a robot's name, its options when it holds some, its
//! vars, the segment's name when a variant made it) and every key that is no field, with its
//! error message, go to the mlua function kept as the C function's upvalue: the slow path
//! answers everything, the fast one only what it can without allocating. So nothing that
//! needs dropping is alive when a Lua API call may raise (an out-of-memory error unwinds with
//! `longjmp`). Both read through the same [`robot_field`] and [`ctx_field`].

// Lua calls these C functions directly, and they read the stack through Lua's C API.
#![allow(unsafe_code)]

use super::Link;
use crate::geometry::{Dir, Pos, Rotation};
use crate::hooks::{Hook, Listener};
use crate::script::sandbox;
use crate::state::{Robot, RobotId};
use crate::world::{Hit, Shot, World};
use mlua::{ffi, Function, Lua};
use std::any::Any;
use std::ffi::c_int;
use std::rc::Rc;

/// A field's value, as read from the game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Read {
    Int(i64),
    Bool(bool),
    /// A name that lives as long as the program (a facing, a segment of the standard order).
    Str(&'static str),
    /// `{ x =, y = }`.
    Pos(Pos),
    /// The robot's name (`robot.name`).
    Name,
    /// The names of the options the robot holds, how many.
    Options(usize),
    /// A copy of the robot's vars.
    Vars,
    /// A segment name made at run time.
    Segment,
}

/// `robot[key]`, if `key` is one of a robot's fields (`ROBOT_FIELDS` in ctx.rs).
pub fn robot_field(r: &Robot, key: &[u8]) -> Option<Read> {
    Some(match key {
        b"name" => Read::Name,
        b"at" => Read::Pos(r.at),
        b"x" => Read::Int(r.at.x.into()),
        b"y" => Read::Int(r.at.y.into()),
        b"facing" => Read::Str(r.facing.name()),
        b"damage" => Read::Int(r.damage.into()),
        b"lives" => Read::Int(r.lives.into()),
        b"flags" => Read::Int(r.flags.into()),
        b"archive" => Read::Pos(r.archive),
        b"destroyed" => Read::Bool(r.destroyed),
        b"powered_down" => Read::Bool(r.powered_down),
        b"options" => Read::Options(r.options.len()),
        b"vars" => Read::Vars,
        _ => return None,
    })
}

/// ctx's fields, for the API check (`tests/lua_api.rs`) and messages.
pub const CTX_FIELDS: [&str; 5] = ["register", "turn", "width", "height", "segment"];

/// `ctx[key]`, if `key` is one of ctx's fields ([`CTX_FIELDS`]).
pub fn ctx_field(w: &World, key: &[u8]) -> Option<Read> {
    Some(match key {
        b"register" => Read::Int(w.state.register.into()),
        b"turn" => Read::Int(w.state.turn.into()),
        b"width" => Read::Int(w.board.width.into()),
        b"height" => Read::Int(w.board.height.into()),
        b"segment" => match &w.state.segment {
            std::borrow::Cow::Borrowed(s) => Read::Str(s),
            std::borrow::Cow::Owned(_) => Read::Segment,
        },
        _ => return None,
    })
}

/// The key at `index` as bytes, if it is a string (never converting a number in place).
unsafe fn string_key<'a>(state: *mut ffi::lua_State, index: c_int) -> Option<&'a [u8]> {
    if ffi::lua_type(state, index) != ffi::LUA_TSTRING {
        return None;
    }
    let mut len = 0;
    let p = ffi::lua_tolstring(state, index, &mut len);
    Some(std::slice::from_raw_parts(p.cast(), len))
}

/// What the fast path can push: everything but what needs the Rust heap.
fn quick(read: Read) -> Option<Read> {
    match read {
        Read::Name | Read::Vars | Read::Segment => None,
        Read::Options(n) if n > 0 => None,
        other => Some(other),
    }
}

/// The game `state`'s rule set is attached to, found through its budget.
unsafe fn attached(state: *mut ffi::lua_State) -> Option<Rc<Link>> {
    let game: Rc<dyn Any> = sandbox::budget_of(state)?.game()?;
    game.downcast().ok()
}

/// The robot whose view is argument `index`, if it is one of the game's.
unsafe fn robot_arg(state: *mut ffi::lua_State, game: &Link, index: c_int) -> Option<RobotId> {
    let view = ffi::lua_touserdata(state, index) as usize;
    game.robot_views
        .iter()
        .position(|&v| v == view && view != 0)
}

/// `robot[key]` (arguments 1 and 2) read without mlua, if it can be.
unsafe fn quick_robot(state: *mut ffi::lua_State) -> Option<Read> {
    let game = attached(state)?;
    let id = robot_arg(state, &game, 1)?;
    let key = string_key(state, 2)?;
    let world = game.world.try_borrow().ok()?;
    quick(robot_field(world.state.robots.get(id)?, key)?)
}

/// `ctx[key]` (argument 2; argument 1 is ctx's method table) read without mlua, if it can be.
unsafe fn quick_ctx(state: *mut ffi::lua_State) -> Option<Read> {
    let game = attached(state)?;
    let key = string_key(state, 2)?;
    let world = game.world.try_borrow().ok()?;
    quick(ctx_field(&world, key)?)
}

/// Pushes a value [`quick`] allows. May raise (out of memory): nothing may need dropping.
unsafe fn push(state: *mut ffi::lua_State, read: Read) {
    match read {
        Read::Int(n) => ffi::lua_pushinteger(state, n),
        Read::Bool(b) => ffi::lua_pushboolean(state, b as c_int),
        Read::Str(s) => {
            ffi::lua_pushlstring(state, s.as_ptr().cast(), s.len());
        }
        Read::Pos(p) => {
            ffi::lua_createtable(state, 0, 2);
            ffi::lua_pushinteger(state, p.x.into());
            ffi::lua_setfield(state, -2, c"x".as_ptr());
            ffi::lua_pushinteger(state, p.y.into());
            ffi::lua_setfield(state, -2, c"y".as_ptr());
        }
        Read::Options(_) => ffi::lua_createtable(state, 0, 0),
        Read::Name | Read::Vars | Read::Segment => unreachable!("`quick` keeps these out"),
    }
}

/// The `__index` of robots and of ctx's fields: the fast path, else the slow function (its
/// upvalue) with the same arguments.
unsafe fn index(
    state: *mut ffi::lua_State,
    fast: unsafe fn(*mut ffi::lua_State) -> Option<Read>,
) -> c_int {
    // The read is done, and everything it held dropped, before any call that may raise.
    match fast(state) {
        Some(read) => push(state, read),
        None => {
            ffi::lua_settop(state, 2);
            ffi::lua_pushvalue(state, ffi::lua_upvalueindex(1));
            ffi::lua_insert(state, 1);
            ffi::lua_call(state, 2, 1);
        }
    }
    1
}

unsafe extern "C-unwind" fn robot_index(state: *mut ffi::lua_State) -> c_int {
    index(state, quick_robot)
}

unsafe extern "C-unwind" fn ctx_index(state: *mut ffi::lua_State) -> c_int {
    index(state, quick_ctx)
}

/// The game, if this is a ctx method call (argument 1 ctx) with `args` arguments in all.
unsafe fn ctx_call(
    state: *mut ffi::lua_State,
    args: std::ops::RangeInclusive<c_int>,
) -> Option<Rc<Link>> {
    if !args.contains(&ffi::lua_gettop(state)) {
        return None;
    }
    let game = attached(state)?;
    (ffi::lua_touserdata(state, 1) as usize == game.ctx_view).then_some(game)
}

/// The UTF-8 text argument at `index`, if it is a string.
unsafe fn text_arg<'a>(state: *mut ffi::lua_State, index: c_int) -> Option<&'a str> {
    std::str::from_utf8(string_key(state, index)?).ok()
}

/// `ctx:NAME(robot, dir)` for a method that only queues a move: done here when the call is
/// exactly that (ctx, one of the game's robots, a direction), else by mlua's method, the
/// upvalue, which does the same or says what is wrong.
unsafe fn queue(state: *mut ffi::lua_State, act: fn(&mut World, RobotId, Dir)) -> c_int {
    let quick = || -> Option<()> {
        let game = ctx_call(state, 3..=3)?;
        let id = robot_arg(state, &game, 2)?;
        let dir = Dir::parse(text_arg(state, 3)?)?;
        act(&mut *game.world.try_borrow_mut().ok()?, id, dir);
        Some(())
    };
    if quick().is_some() {
        return 0;
    }
    slow_method(state)
}

unsafe extern "C-unwind" fn convey(state: *mut ffi::lua_State) -> c_int {
    queue(state, World::convey)
}

/// `ctx:queue_push(robot, dir, by)`: as [`queue`], with the cause the events say (the
/// standard pushers give one, so the fast path takes it).
unsafe extern "C-unwind" fn queue_push(state: *mut ffi::lua_State) -> c_int {
    let quick = || -> Option<()> {
        let game = ctx_call(state, 3..=4)?;
        let id = robot_arg(state, &game, 2)?;
        let dir = Dir::parse(text_arg(state, 3)?)?;
        let by = match ffi::lua_type(state, 4) {
            ffi::LUA_TNONE | ffi::LUA_TNIL => None,
            // Long text goes through mlua's method, which charges the register's log quota.
            _ => Some(text_arg(state, 4).filter(|t| t.len() <= 256)?.to_string()),
        };
        let mut world = game.world.try_borrow_mut().ok()?;
        world.queue_push(id, dir, by);
        Some(())
    };
    if quick().is_some() {
        return 0;
    }
    slow_method(state)
}

/// Calls mlua's method (the upvalue) with this call's arguments and returns what it returns:
/// the slow path of a native method, which does the same or says what is wrong.
unsafe fn slow_method(state: *mut ffi::lua_State) -> c_int {
    let n = ffi::lua_gettop(state);
    ffi::lua_pushvalue(state, ffi::lua_upvalueindex(1));
    ffi::lua_insert(state, 1);
    ffi::lua_call(state, n, ffi::LUA_MULTRET);
    ffi::lua_gettop(state)
}

/// `ctx:rotate(robot, rotation, by)` when no rule or held option may change the turn (no
/// `on_rotate` to call): the robot turned, as the engine would; `None` for anything else.
unsafe fn quick_rotate(state: *mut ffi::lua_State) -> Option<()> {
    let game = ctx_call(state, 3..=4)?;
    let id = robot_arg(state, &game, 2)?;
    let rotation = Rotation::parse(text_arg(state, 3)?)?;
    // `by` only names the turn to handlers; still, mlua's method refuses what is no text.
    match ffi::lua_type(state, 4) {
        ffi::LUA_TNONE | ffi::LUA_TNIL => {}
        _ => {
            text_arg(state, 4)?;
        }
    }
    let mut world = game.world.try_borrow_mut().ok()?;
    let hears = |listener| game.listening.any(listener, Hook::Rotate);
    let hooked = hears(Listener::Rules)
        || (!world.state.robots.get(id)?.options.is_empty() && hears(Listener::Options));
    if hooked {
        return None;
    }
    world.rotate(id, rotation);
    Some(())
}

unsafe extern "C-unwind" fn rotate(state: *mut ffi::lua_State) -> c_int {
    // Everything `quick_rotate` held is dropped before the calls below, which may raise.
    if quick_rotate(state).is_none() {
        return slow_method(state);
    }
    ffi::lua_pushboolean(state, 1);
    1
}

/// `ctx:repair(robot, amount)` (a repair site's end of turn) with a plain whole amount of 0 or
/// more, or none (1); `None`, untouched, for anything mlua's method must judge.
unsafe fn quick_repair(state: *mut ffi::lua_State) -> Option<()> {
    let game = ctx_call(state, 2..=3)?;
    let id = robot_arg(state, &game, 2)?;
    let amount = int_arg::<i32>(state, 3)?.unwrap_or(1);
    if amount < 0 {
        return None;
    }
    game.world.try_borrow_mut().ok()?.repair(id, amount);
    Some(())
}

unsafe extern "C-unwind" fn repair(state: *mut ffi::lua_State) -> c_int {
    // Everything `quick_repair` held is dropped before the call below, which may raise.
    if quick_repair(state).is_none() {
        return slow_method(state);
    }
    0
}

/// `ctx:robot_at(square)` for a tile's `at` or a plain `{ x =, y = }` of integers: `Some`
/// robot or nobody; `None` for anything mlua's method must read or refuse.
unsafe fn quick_robot_at(state: *mut ffi::lua_State) -> Option<Option<RobotId>> {
    let game = ctx_call(state, 2..=2)?;
    if ffi::lua_type(state, 2) != ffi::LUA_TTABLE {
        return None;
    }
    let at = match game.squares.get(&(ffi::lua_topointer(state, 2) as usize)) {
        Some(&at) => at,
        None => {
            if ffi::lua_getmetatable(state, 2) != 0 {
                ffi::lua_pop(state, 1);
                return None;
            }
            // Read raw (no metatable to consult), then popped.
            ffi::lua_getfield(state, 2, c"x".as_ptr());
            ffi::lua_getfield(state, 2, c"y".as_ptr());
            let (x, y) = (int_arg::<i32>(state, -2), int_arg::<i32>(state, -1));
            ffi::lua_pop(state, 2);
            Pos::new(x??, y??)
        }
    };
    let id = game.world.try_borrow().ok()?.robot_at(at);
    Some(id)
}

unsafe extern "C-unwind" fn robot_at(state: *mut ffi::lua_State) -> c_int {
    // Everything `quick_robot_at` held is dropped before the calls below, which may raise.
    match quick_robot_at(state) {
        None => slow_method(state),
        Some(None) => {
            ffi::lua_pushnil(state);
            1
        }
        Some(Some(id)) => {
            ffi::lua_getfield(state, ffi::LUA_REGISTRYINDEX, ROBOT_VIEWS.as_ptr());
            ffi::lua_rawgeti(state, -1, id as ffi::lua_Integer + 1);
            1
        }
    }
}

/// The most fields of a detail table a native `ctx:log` copies (beyond, mlua's method does).
const MAX_DETAILS: usize = 8;

/// A detail's value: a Lua string (its bytes stay in the detail table), integer or boolean.
#[derive(Clone, Copy)]
enum Detail<'a> {
    Text(&'a str),
    Int(i64),
    Bool(bool),
}

/// A detail table's fields, in a fixed array (nothing to drop), and their stored size.
struct Details<'a> {
    fields: [(&'a str, Detail<'a>); MAX_DETAILS],
    n: usize,
    size: usize,
}

/// The detail table at `index`, if it is flat and small (no metatable; at most
/// [`MAX_DETAILS`] fields, each a UTF-8 name with a UTF-8 text, an integer or a boolean):
/// its fields and the size `store::to_json` gives it. Only reads the stack: `lua_next` on a
/// traversal it started itself never raises.
unsafe fn flat_details<'a>(state: *mut ffi::lua_State, index: c_int) -> Option<Details<'a>> {
    if ffi::lua_getmetatable(state, index) != 0 {
        ffi::lua_pop(state, 1);
        return None;
    }
    let mut fields = [("", Detail::Int(0)); MAX_DETAILS];
    let (mut n, mut size) = (0, 2);
    ffi::lua_pushnil(state);
    while ffi::lua_next(state, index) != 0 {
        let field = (|| {
            let key = text_arg(state, -2)?;
            let value = match ffi::lua_type(state, -1) {
                ffi::LUA_TSTRING => Detail::Text(text_arg(state, -1)?),
                ffi::LUA_TBOOLEAN => Detail::Bool(ffi::lua_toboolean(state, -1) != 0),
                _ => Detail::Int(int_arg::<i64>(state, -1)??),
            };
            Some((key, value))
        })();
        ffi::lua_pop(state, 1);
        // A detail named as one of the event's own fields is refused by mlua's method.
        let field = field.filter(|(key, _)| !crate::state::is_event_field(key));
        let Some((key, value)) = field.filter(|_| n < MAX_DETAILS) else {
            ffi::lua_pop(state, 1);
            return None;
        };
        size += 1 + key.len() + 3;
        size += match value {
            Detail::Text(t) => t.len() + 2,
            Detail::Int(_) => 8,
            Detail::Bool(_) => 5,
        };
        fields[n] = (key, value);
        n += 1;
    }
    Some(Details { fields, n, size })
}

/// `ctx:log(robot, what, details)` with a short name and flat details (or none), logged as
/// mlua's method would; `None`, untouched, for anything that method must judge or refuse.
unsafe fn quick_log(state: *mut ffi::lua_State) -> Option<()> {
    const SHORT: usize = 256;
    let game = ctx_call(state, 3..=4)?;
    let robot = match ffi::lua_type(state, 2) {
        ffi::LUA_TNIL => None,
        _ => Some(robot_arg(state, &game, 2)?),
    };
    let what = text_arg(state, 3)?;
    if what.len() > SHORT {
        return None;
    }
    let details = match ffi::lua_type(state, 4) {
        ffi::LUA_TNONE | ffi::LUA_TNIL => None,
        ffi::LUA_TTABLE => Some(flat_details(state, 4)?),
        _ => return None,
    };
    let mut world = game.world.try_borrow_mut().ok()?;
    // No Lua call from here on: what is built below is dropped before any may raise.
    let mut detail = serde_json::Map::new();
    if let Some(Details {
        mut fields,
        n,
        size,
    }) = details
    {
        if size > sandbox::limits().value || !game.quota.log_within(size) {
            return None;
        }
        // Keys sorted, as `store::to_json` does (the same game, the same output).
        fields[..n].sort_unstable_by(|a, b| a.0.cmp(b.0));
        for &(key, value) in &fields[..n] {
            let value = match value {
                Detail::Text(t) => serde_json::Value::String(t.to_string()),
                Detail::Int(i) => serde_json::Value::Number(i.into()),
                Detail::Bool(b) => serde_json::Value::Bool(b),
            };
            detail.insert(key.to_string(), value);
        }
    }
    world.state.log(robot, what.to_string(), detail);
    Some(())
}

unsafe extern "C-unwind" fn log(state: *mut ffi::lua_State) -> c_int {
    match quick_log(state) {
        Some(()) => 0,
        None => slow_method(state),
    }
}

/// The most robots one native beam may hit (a beam goes through `through` robots or walls;
/// beyond this, mlua's method fires it).
const MAX_HITS: usize = 8;

/// What a native beam hit, in order: plain data, nothing to drop.
#[derive(Clone, Copy)]
struct Hits {
    ids: [RobotId; MAX_HITS],
    n: usize,
}

/// The integer argument `index`: `Some(None)` if absent or nil, `Some(Some(n))` if a Lua
/// integer within `T`, `None` for anything else (mlua's method converts or refuses it).
unsafe fn int_arg<T: TryFrom<i64>>(state: *mut ffi::lua_State, index: c_int) -> Option<Option<T>> {
    match ffi::lua_type(state, index) {
        ffi::LUA_TNONE | ffi::LUA_TNIL => Some(None),
        _ if ffi::lua_isinteger(state, index) != 0 => {
            T::try_from(ffi::lua_tointeger(state, index)).ok().map(Some)
        }
        _ => None,
    }
}

/// `ctx:fire_beam(from, dir, strength, opts)` (arguments 1 to 5) while damage is deferred
/// (the laser step): traced, and its hits queued, as mlua's method would; `None`, untouched,
/// for any call that method must judge (a square not given as a tile's `at`, a table with a
/// metatable, a long cause, a number that is not a plain integer, damage applied at once).
unsafe fn quick_beam(state: *mut ffi::lua_State) -> Option<Hits> {
    let game = ctx_call(state, 3..=5)?;
    if !game.world.try_borrow().ok()?.defer_damage {
        return None;
    }
    let dir = Dir::parse(text_arg(state, 3)?)?;
    let strength: i32 = int_arg(state, 4)?.unwrap_or(1);
    if strength < 0 {
        return None;
    }
    let (mut cause, mut through): (Option<&[u8]>, u32) = (None, 0);
    match ffi::lua_type(state, 5) {
        ffi::LUA_TNONE | ffi::LUA_TNIL => {}
        ffi::LUA_TTABLE => {
            if ffi::lua_getmetatable(state, 5) != 0 {
                // Popped, so that mlua's method gets the call's own arguments.
                ffi::lua_pop(state, 1);
                return None;
            }
            // Read raw (no metatable to consult), then popped: the strings stay in the table.
            ffi::lua_getfield(state, 5, c"cause".as_ptr());
            let text = match ffi::lua_type(state, -1) {
                ffi::LUA_TNIL => None,
                _ => Some(string_key(state, -1)),
            };
            ffi::lua_getfield(state, 5, c"through".as_ptr());
            let n = int_arg::<u32>(state, -1);
            ffi::lua_pop(state, 2);
            cause = match text {
                None => None,
                Some(Some(t)) if t.len() <= 256 => Some(t),
                Some(_) => return None,
            };
            through = n?.unwrap_or(0);
        }
        _ => return None,
    }
    let cause = match cause {
        Some(text) => Some(std::str::from_utf8(text).ok()?),
        None => None,
    };
    let mut world = game.world.try_borrow_mut().ok()?;
    let (start, shooter) = match ffi::lua_type(state, 2) {
        ffi::LUA_TTABLE => (
            *game.squares.get(&(ffi::lua_topointer(state, 2) as usize))?,
            None,
        ),
        ffi::LUA_TUSERDATA => {
            let id = robot_arg(state, &game, 2)?;
            (world.state.robots[id].at, Some(id))
        }
        _ => return None,
    };
    let traced = world.trace_beam(start, dir, shooter.is_some(), through);
    if traced.len() > MAX_HITS {
        return None;
    }
    let cause: std::sync::Arc<str> = cause
        .unwrap_or(if shooter.is_some() {
            "robot laser"
        } else {
            "laser"
        })
        .into();
    let shot = Shot {
        from: start,
        shooter,
    };
    let mut hits = Hits {
        ids: [0; MAX_HITS],
        n: traced.len(),
    };
    for (i, &target) in traced.iter().enumerate() {
        hits.ids[i] = target;
        world.queue_hit(Hit::beam(target, strength, cause.clone(), dir, shot));
    }
    Some(hits)
}

/// The registry key of the list of the game's robot views (`Link::new` keeps it current),
/// from which a native method returns robots.
pub const ROBOT_VIEWS: &std::ffi::CStr = c"rally.robot_views";

unsafe extern "C-unwind" fn fire_beam(state: *mut ffi::lua_State) -> c_int {
    // Everything `quick_beam` held is dropped before the calls below, which may raise.
    let Some(hits) = quick_beam(state) else {
        return slow_method(state);
    };
    ffi::lua_settop(state, 0);
    ffi::lua_getfield(state, ffi::LUA_REGISTRYINDEX, ROBOT_VIEWS.as_ptr());
    // (first hit or nil, list of hits)
    match hits.n {
        0 => ffi::lua_pushnil(state),
        _ => {
            ffi::lua_rawgeti(state, 1, hits.ids[0] as ffi::lua_Integer + 1);
        }
    }
    ffi::lua_createtable(state, hits.n as c_int, 0);
    for (i, &id) in hits.ids[..hits.n].iter().enumerate() {
        ffi::lua_rawgeti(state, 1, id as ffi::lua_Integer + 1);
        ffi::lua_rawseti(state, -2, i as ffi::lua_Integer + 1);
    }
    2
}

/// Puts the native `ctx:convey`, `ctx:queue_push`, `ctx:fire_beam`, `ctx:rotate`,
/// `ctx:repair`, `ctx:robot_at` and `ctx:log` in ctx's method table `methods`, in front of
/// mlua's (their upvalues). Once per Lua state.
pub fn install_methods(lua: &Lua, methods: &mlua::Table) -> mlua::Result<()> {
    let natives: [(&str, ffi::lua_CFunction); 7] = [
        ("convey", convey),
        ("queue_push", queue_push),
        ("fire_beam", fire_beam),
        ("rotate", rotate),
        ("repair", repair),
        ("robot_at", robot_at),
        ("log", log),
    ];
    for (name, f) in natives {
        let slow: Function = methods.raw_get(name)?;
        methods.raw_set(name, closure(lua, f, slow)?)?;
    }
    Ok(())
}

/// A C closure over `slow`.
fn closure(lua: &Lua, f: ffi::lua_CFunction, slow: Function) -> mlua::Result<Function> {
    // SAFETY: the closure is made from the argument `exec_raw` pushed, and is the only value
    // left; `lua_pushcclosure` may raise only out of memory, which `exec_raw` protects.
    unsafe {
        lua.exec_raw(slow, |state| {
            ffi::lua_pushcclosure(state, f, 1);
        })
    }
}

/// The `__index` of robot views: `slow(robot, key)` answers what the fast path does not.
pub fn robot_reader(lua: &Lua, slow: Function) -> mlua::Result<Function> {
    closure(lua, robot_index, slow)
}

/// The `__index` of ctx's method table: `slow(methods, key)` answers what the fast path does
/// not (and says a key is no method or field).
pub fn ctx_reader(lua: &Lua, slow: Function) -> mlua::Result<Function> {
    closure(lua, ctx_index, slow)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_listed_is_read_and_no_other() {
        let robot = Robot::new("A", Pos::new(1, 2), Dir::E);
        for (name, _) in super::super::ctx::ROBOT_FIELDS {
            assert!(robot_field(&robot, name.as_bytes()).is_some(), "{name}");
        }
        assert_eq!(robot_field(&robot, b"x"), Some(Read::Int(1)));
        assert_eq!(robot_field(&robot, b"facing"), Some(Read::Str("E")));
        assert_eq!(robot_field(&robot, b"nmae"), None);
    }
}
