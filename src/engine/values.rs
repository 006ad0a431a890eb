//! Tables the engine hands to handlers (`info`, cards, options, lists of robots), made in one
//! protected call each.
//!
//! mlua protects every API call that may allocate once the state has a memory limit, as ours
//! has: `Table::raw_set` with a string key is two protected calls (the key, then the set),
//! each about as dear as calling a Lua function. A four-field `info` table made that way
//! cost more than the handler it was for. Here the table is built with Lua's C API inside
//! one protected call ([`Lua::exec_raw`]), where an out-of-memory error unwinds to that
//! call's boundary like any other Lua error.

// The tables are built with Lua's C API.
#![allow(unsafe_code)]

use crate::geometry::Dir;
use mlua::{ffi, Function, IntoLuaMulti, Lua, LuaString, Table};
use std::cell::RefCell;

/// One field's value. Tables and robots are passed to [`table`] as `refs` and named here
/// by their place among them.
#[derive(Clone, Copy, Debug)]
pub enum Field<'a> {
    /// The field is left out (reads as nil).
    Nil,
    Bool(bool),
    Int(i64),
    Str(&'a str),
    /// The `n`th of the `refs` (1-based).
    Ref(i32),
}

impl From<bool> for Field<'_> {
    fn from(b: bool) -> Self {
        Field::Bool(b)
    }
}

impl From<i32> for Field<'_> {
    fn from(n: i32) -> Self {
        Field::Int(n.into())
    }
}

impl From<u32> for Field<'_> {
    fn from(n: u32) -> Self {
        Field::Int(n.into())
    }
}

impl<'a> From<&'a str> for Field<'a> {
    fn from(s: &'a str) -> Self {
        Field::Str(s)
    }
}

impl<'a, T: Into<Field<'a>>> From<Option<T>> for Field<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Field::Nil, Into::into)
    }
}

/// A new table with `fields`, and the list items `refs[first..]`, if `items` is true.
/// `refs` are Lua values (tables, robots) that fields name with [`Field::Ref`].
fn build(
    lua: &Lua,
    refs: impl IntoLuaMulti,
    fields: &[(&str, Field)],
    items: Option<i32>,
) -> mlua::Result<Table> {
    // SAFETY: the closure only calls Lua's C API on values it pushed itself or on `refs`,
    // which `exec_raw` pushed as its arguments (slots 1..=n of the protected call's stack).
    // An allocation failure unwinds to `exec_raw`'s protected call; the closure owns nothing
    // that would need dropping on the way. On return, the table is the only value left.
    unsafe {
        lua.exec_raw(refs, |state| {
            let n = ffi::lua_gettop(state);
            let len = items.map_or(0, |first| (n - first + 1).max(0));
            ffi::lua_createtable(state, len, fields.len() as i32);
            let table = ffi::lua_gettop(state);
            for (key, value) in fields {
                match *value {
                    Field::Nil => continue,
                    Field::Bool(b) => ffi::lua_pushboolean(state, b as i32),
                    Field::Int(i) => ffi::lua_pushinteger(state, i),
                    Field::Str(s) => {
                        ffi::lua_pushlstring(state, s.as_ptr().cast(), s.len());
                    }
                    Field::Ref(i) => ffi::lua_pushvalue(state, i),
                }
                ffi::lua_pushlstring(state, key.as_ptr().cast(), key.len());
                ffi::lua_rotate(state, -2, 1);
                ffi::lua_rawset(state, table);
            }
            if let Some(first) = items {
                for (i, slot) in (first..=n).enumerate() {
                    ffi::lua_pushvalue(state, slot);
                    ffi::lua_rawseti(state, table, i as ffi::lua_Integer + 1);
                }
            }
            if n > 0 {
                ffi::lua_replace(state, 1);
                ffi::lua_settop(state, 1);
            }
        })
    }
}

/// A new table with `fields`; [`Field::Ref`] names one of `refs`.
pub fn table(lua: &Lua, refs: impl IntoLuaMulti, fields: &[(&str, Field)]) -> mlua::Result<Table> {
    build(lua, refs, fields, None)
}

/// A new list of `items` (robots, tables).
pub fn list(lua: &Lua, items: impl IntoLuaMulti) -> mlua::Result<Table> {
    build(lua, items, &[], Some(1))
}

/// A new list of strings.
pub fn strings<'a>(
    lua: &Lua,
    items: impl ExactSizeIterator<Item = &'a str>,
) -> mlua::Result<Table> {
    let items: Vec<&str> = items.collect();
    // SAFETY: as in `build`: only Lua's C API on the new table, nothing to drop on unwind
    // but the borrowed slice.
    unsafe {
        lua.exec_raw((), |state| {
            ffi::lua_createtable(state, items.len() as i32, 0);
            for (i, s) in items.iter().enumerate() {
                ffi::lua_pushlstring(state, s.as_ptr().cast(), s.len());
                ffi::lua_rawseti(state, -2, i as ffi::lua_Integer + 1);
            }
        })
    }
}

/// Lua strings made once per game for the names the engine hands to handlers again and again
/// (directions, causes) and the keys it reads: pushing one costs no allocation and
/// no protected call, and a key that is a Lua string lets mlua read a plain table raw.
pub struct Interned {
    dirs: [LuaString; 4],
    pub cause: LuaString,
    pub through: LuaString,
    /// Causes of damage seen so far (scripts name their own), a few dozen at most.
    causes: RefCell<Vec<(String, LuaString)>>,
    /// The calls of `calls.lua`, which build a handler's table in the handler's own call.
    pub calls: Calls,
}

/// The functions of `calls.lua`.
pub struct Calls {
    pub damage: Function,
}

impl Interned {
    pub fn new(lua: &Lua) -> mlua::Result<Interned> {
        let s = |text: &str| lua.create_string(text);
        let calls: Table = lua
            .load(include_str!("calls.lua"))
            .set_name("@rally/calls.lua")
            .call(())?;
        Ok(Interned {
            dirs: [s("N")?, s("E")?, s("S")?, s("W")?],
            cause: s("cause")?,
            through: s("through")?,
            causes: RefCell::new(Vec::new()),
            calls: Calls {
                damage: calls.get("damage")?,
            },
        })
    }

    pub fn dir(&self, dir: Dir) -> &LuaString {
        &self.dirs[dir.index()]
    }

    /// A cause of damage as a Lua string, made once per cause (up to a few dozen).
    pub fn cause(&self, lua: &Lua, cause: &str) -> mlua::Result<LuaString> {
        const KEPT: usize = 64;
        let mut causes = self.causes.borrow_mut();
        if let Some((_, s)) = causes.iter().find(|(c, _)| c == cause) {
            return Ok(s.clone());
        }
        let s = lua.create_string(cause)?;
        if causes.len() < KEPT {
            causes.push((cause.to_string(), s.clone()));
        }
        Ok(s)
    }
}
