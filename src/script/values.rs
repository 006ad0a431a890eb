//! Tables the engine hands to handlers (`info`, cards, options, lists of robots), made in one
//! protected call each.
//!
//! mlua protects every API call that may allocate once the state has a memory limit, as ours
//! has: `Table::raw_set` with a string key is two protected calls (the key, then the set),
//! each about as dear as calling a Lua function. A four-field `info` table made that way
//! cost more than the handler it was for. Here the table is built with Lua's C API inside
//! one protected call ([`Lua::exec_raw`]), where an out-of-memory error unwinds to that
//! call's boundary like any other Lua error.

use mlua::{ffi, FromLuaMulti, IntoLuaMulti, Lua, Table};

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

/// Reads `keys` of `table` as `table[key]` does (metamethods included: a read-only table
/// reads through its view), in one protected call: an `opts` table a script hands over.
pub fn read<R: FromLuaMulti, const N: usize>(
    lua: &Lua,
    table: &Table,
    keys: [&str; N],
) -> mlua::Result<R> {
    // SAFETY: as in `build`; `lua_gettable` may run a script's `__index`, whose errors unwind
    // to the protected call like any other.
    unsafe {
        lua.exec_raw(table, |state| {
            for key in keys {
                ffi::lua_pushlstring(state, key.as_ptr().cast(), key.len());
                ffi::lua_gettable(state, 1);
            }
            ffi::lua_remove(state, 1);
        })
    }
}
