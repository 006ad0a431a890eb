//! What scripts do on every hot path, done by plain C functions that reach the game directly:
//! reading a robot's or ctx's fields (`robot.x`, `ctx.register`), and the belt and pusher
//! primitives, which only queue a move (`ctx:convey`, `ctx:queue_push`).
//!
//! Through mlua a field read was a Lua function (mlua's `__index`) and a Rust callback, about
//! 200 ns, more than most handlers spend on their own work (`#robot.options`, read by the
//! option scrapping rule at every hit, was a sixth of a laser's cost); a method call converted
//! and type-checked every argument through references, about 600 ns for `ctx:convey`. Here
//! each is one C call that finds the game through the state's extra space
//! ([`sandbox::budget_of`]) and knows robots by their address.
//!
//! What has to be built on the Rust heap (a robot's name, its options when it holds some, its
//! vars, the segment's name when a variant made it) and every key that is no field, with its
//! error message, go to the mlua function kept as the C function's upvalue: the slow path
//! answers everything, the fast one only what it can without allocating. So nothing that
//! needs dropping is alive when a Lua API call may raise (an out-of-memory error unwinds with
//! `longjmp`). Both read through the same [`robot_field`] and [`ctx_field`].

use super::sandbox;
use crate::engine::Link;
use crate::geometry::{Dir, Pos};
use crate::state::{Robot, RobotId};
use crate::world::World;
use mlua::{ffi, Function, Lua};
use std::ffi::c_int;

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

/// The robot whose view is argument `index`, if it is one of the game's.
unsafe fn robot_arg(state: *mut ffi::lua_State, game: &Link, index: c_int) -> Option<RobotId> {
    let view = ffi::lua_touserdata(state, index) as usize;
    game.robot_views
        .iter()
        .position(|&v| v == view && view != 0)
}

/// `robot[key]` (arguments 1 and 2) read without mlua, if it can be.
unsafe fn quick_robot(state: *mut ffi::lua_State) -> Option<Read> {
    let game = sandbox::budget_of(state)?.game()?;
    let id = robot_arg(state, &game, 1)?;
    let key = string_key(state, 2)?;
    let world = game.world.try_borrow().ok()?;
    quick(robot_field(world.state.robots.get(id)?, key)?)
}

/// `ctx[key]` (argument 2; argument 1 is ctx's method table) read without mlua, if it can be.
unsafe fn quick_ctx(state: *mut ffi::lua_State) -> Option<Read> {
    let game = sandbox::budget_of(state)?.game()?;
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

/// `ctx:NAME(robot, dir)` for a method that only queues a move: done here when the call is
/// exactly that (ctx, one of the game's robots, a direction), else by mlua's method, the
/// upvalue, which does the same or says what is wrong.
unsafe fn queue(state: *mut ffi::lua_State, act: fn(&mut World, RobotId, Dir)) -> c_int {
    let quick = || -> Option<()> {
        if ffi::lua_gettop(state) != 3 {
            return None;
        }
        let game = sandbox::budget_of(state)?.game()?;
        if ffi::lua_touserdata(state, 1) as usize != game.ctx_view {
            return None;
        }
        let id = robot_arg(state, &game, 2)?;
        let dir = Dir::parse(std::str::from_utf8(string_key(state, 3)?).ok()?)?;
        act(&mut *game.world.try_borrow_mut().ok()?, id, dir);
        Some(())
    };
    if quick().is_some() {
        return 0;
    }
    let n = ffi::lua_gettop(state);
    ffi::lua_pushvalue(state, ffi::lua_upvalueindex(1));
    ffi::lua_insert(state, 1);
    ffi::lua_call(state, n, ffi::LUA_MULTRET);
    ffi::lua_gettop(state)
}

unsafe extern "C-unwind" fn convey(state: *mut ffi::lua_State) -> c_int {
    queue(state, World::convey)
}

unsafe extern "C-unwind" fn queue_push(state: *mut ffi::lua_State) -> c_int {
    queue(state, World::queue_push)
}

/// Marks a Lua state whose ctx methods are the native ones.
struct NativeMethods;

/// Puts the native `ctx:convey` and `ctx:queue_push` in ctx's method table `methods`, in
/// front of mlua's (their upvalues). Once per Lua state.
pub fn install_methods(lua: &Lua, methods: &mlua::Table) -> mlua::Result<()> {
    if lua.app_data_ref::<NativeMethods>().is_some() {
        return Ok(());
    }
    let natives: [(&str, ffi::lua_CFunction); 2] = [("convey", convey), ("queue_push", queue_push)];
    for (name, f) in natives {
        let slow: Function = methods.raw_get(name)?;
        methods.raw_set(name, closure(lua, f, slow)?)?;
    }
    lua.set_app_data(NativeMethods);
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
        let robot = Robot::new("A", Pos::new(1, 2), crate::geometry::Dir::E);
        for (name, _) in super::super::ctx::ROBOT_FIELDS {
            assert!(robot_field(&robot, name.as_bytes()).is_some(), "{name}");
        }
        assert_eq!(robot_field(&robot, b"x"), Some(Read::Int(1)));
        assert_eq!(robot_field(&robot, b"facing"), Some(Read::Str("E")));
        assert_eq!(robot_field(&robot, b"nmae"), None);
    }
}
