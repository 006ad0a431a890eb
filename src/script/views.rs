//! Read-only tables. Lua has no way to freeze a table, so a read-only table is an empty *view*
//! whose metatable reads from a hidden *data* table and refuses every write (`__newindex`
//! fires for every key, since the view holds none). `#`, `pairs` and `ipairs` see the data;
//! the raw functions do too (`sandbox.lua`), and `rawset` on a view is refused. The metatable
//! is locked (`__metatable`), so neither it nor the data can be reached or replaced.
//!
//! Views are what scripts get of everything shared: the libraries, `rally`, tiles, variant
//! parameters, and (`keep`) every table a script holds on to after it has loaded, so that no
//! state hides outside vars (design.md principles 1 and 6).

use mlua::{Function, Lua, Table, Value};
use std::collections::HashSet;

/// What a view guards, for the message a write gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The standard libraries and `rally`.
    Library,
    /// A script's environment.
    Globals,
    /// A tile as handlers see it.
    Tile,
    /// A variant's parameters.
    Params,
    /// A table a script keeps from loading time (upvalues, declarations).
    Kept,
}

impl View {
    const ALL: [View; 5] = [
        View::Library,
        View::Globals,
        View::Tile,
        View::Params,
        View::Kept,
    ];

    fn refusal(self, key: &str) -> String {
        match self {
            View::Library => format!(
                "cannot set `{key}`: the standard libraries and `rally` are read-only (no script may change what another sees)"
            ),
            View::Globals => format!(
                "assignment to global `{key}`: scripts keep no globals; use `local`, or robot/game vars for state (ctx:set_var, ctx:set_game_var)"
            ),
            View::Tile => format!(
                "cannot set `{key}` on a tile: it is read-only (keep state with ctx:set_var)"
            ),
            View::Params => format!("cannot set `{key}`: variant parameters are read-only"),
            View::Kept => format!(
                "cannot set `{key}`: a table a script keeps between calls is read-only, so that no state hides outside vars; keep state with ctx:set_var(robot, key, value) or ctx:set_game_var(key, value)"
            ),
        }
    }
}

/// What the views of one Lua state share, kept in its app data.
struct Views {
    /// view -> data, weak keys.
    registry: Table,
    len: Function,
    pairs: Function,
    refuse: Vec<Function>,
    getupvalue: Function,
}

/// Sets up the views of a state. `getupvalue` is the debug library's, kept for [`keep`].
pub fn install(lua: &Lua, getupvalue: Function) -> mlua::Result<()> {
    let (registry, len, pairs): (Table, Function, Function) = lua
        .load(
            r#"
            local registry = setmetatable({}, { __mode = "k" })
            local function iterate(view, key) return next(registry[view], key) end
            return registry,
              function(view) return rawlen(registry[view]) end,
              function(view) return iterate, view, nil end
            "#,
        )
        .set_name("@rally/views.lua")
        .eval()?;
    let refuse = View::ALL
        .iter()
        .map(|&kind| {
            lua.create_function(move |lua, (_, key): (Value, Value)| -> mlua::Result<()> {
                Err(super::located(lua, kind.refusal(&key.to_string()?)))
            })
        })
        .collect::<mlua::Result<_>>()?;
    lua.set_app_data(Views {
        registry,
        len,
        pairs,
        refuse,
        getupvalue,
    });
    Ok(())
}

fn views(lua: &Lua) -> mlua::AppDataRef<'_, Views> {
    lua.app_data_ref::<Views>()
        .expect("views are installed with the state")
}

/// The registry of views (view -> data), for `sandbox.lua`.
pub fn registry(lua: &Lua) -> mlua::Result<Table> {
    Ok(views(lua).registry.clone())
}

/// What `table` shows: the data behind a view, or the table itself. The host reads scripts'
/// tables through this, since raw iteration sees nothing in a view.
pub fn open(lua: &Lua, table: &Table) -> mlua::Result<Table> {
    Ok(views(lua)
        .registry
        .raw_get::<Option<Table>>(table)?
        .unwrap_or_else(|| table.clone()))
}

fn is_view(views: &Views, table: &Table) -> mlua::Result<bool> {
    Ok(!views.registry.raw_get::<Value>(table)?.is_nil())
}

/// A new read-only view of `data`, which the host may go on changing.
pub fn view(lua: &Lua, data: Table, kind: View) -> mlua::Result<Table> {
    let views = views(lua);
    let view = lua.create_table()?;
    view.set_metatable(Some(view_metatable(lua, &views, &data, None, kind)?))?;
    views.registry.raw_set(&view, data)?;
    Ok(view)
}

/// Makes `table` and every table reachable from it read-only, in place; returns the data
/// behind `table` (which the host may go on changing).
pub fn freeze(lua: &Lua, table: &Table, kind: View) -> mlua::Result<Table> {
    freeze_all(lua, [Value::Table(table.clone())], kind, false).map_err(mlua::Error::runtime)?;
    open(lua, table)
}

/// Makes read-only, in place, every table a script keeps from loading time: what its
/// declarations hold and everything reachable from its functions' upvalues. (Coroutines
/// cannot be made while loading: `sandbox.lua`.)
pub fn keep(lua: &Lua, roots: impl IntoIterator<Item = Value>) -> Result<(), String> {
    freeze_all(lua, roots, View::Kept, true)
}

fn freeze_all(
    lua: &Lua,
    roots: impl IntoIterator<Item = Value>,
    kind: View,
    upvalues: bool,
) -> Result<(), String> {
    let text = |e: mlua::Error| super::lua_message(&e);
    let views = views(lua);
    // 1. Everything reachable that is not read-only yet.
    let mut seen = HashSet::new();
    let mut tables = Vec::new();
    let mut stack: Vec<Value> = roots.into_iter().collect();
    while let Some(value) = stack.pop() {
        match value {
            Value::Table(t) => {
                if !seen.insert(t.to_pointer()) || is_view(&views, &t).map_err(text)? {
                    continue;
                }
                for pair in t.pairs::<Value, Value>() {
                    let (k, v) = pair.map_err(text)?;
                    stack.extend([k, v]);
                }
                if let Some(meta) = t.metatable() {
                    if !is_data(&views, &meta).map_err(text)? {
                        stack.push(Value::Table(meta));
                    }
                }
                tables.push(t);
            }
            Value::Function(f) if upvalues => {
                if !seen.insert(f.to_pointer()) {
                    continue;
                }
                let info = f.info();
                let host = info.what == "C"
                    || info
                        .source
                        .as_deref()
                        .is_some_and(|s| s.starts_with("@rally/"));
                if host {
                    continue;
                }
                for i in 1.. {
                    let (name, value): (Option<String>, Value) =
                        views.getupvalue.call((&f, i)).map_err(text)?;
                    if name.is_none() {
                        break;
                    }
                    stack.push(value);
                }
            }
            _ => {}
        }
    }
    // 2. Each table's contents move to its data table (registered before metatables are set,
    // so a metatable that is one of these tables resolves to its data).
    let mut moved = Vec::with_capacity(tables.len());
    for t in tables {
        let data = lua.create_table().map_err(text)?;
        let keys: Vec<Value> = t
            .pairs::<Value, Value>()
            .map(|pair| {
                let (k, v) = pair?;
                data.raw_set(k.clone(), v)?;
                Ok(k)
            })
            .collect::<mlua::Result<_>>()
            .map_err(text)?;
        for k in keys {
            t.raw_set(k, Value::Nil).map_err(text)?;
        }
        views.registry.raw_set(&t, &data).map_err(text)?;
        let meta = t.metatable();
        moved.push((t, data, meta));
    }
    // 3. A table keeps its metatable's behaviour: its data looks missing keys up in the
    // metatable's data (a class's methods), and its view answers the same operators.
    for (t, data, meta) in moved {
        let (class, lock) = match &meta {
            Some(m) => {
                let (class, lock) = class_of(&views, m).map_err(text)?;
                (Some(class), lock)
            }
            None => (None, Value::Boolean(false)),
        };
        data.set_metatable(class.clone()).map_err(text)?;
        let view_meta = view_metatable(lua, &views, &data, class.as_ref(), kind).map_err(text)?;
        view_meta.raw_set("__metatable", lock).map_err(text)?;
        t.set_metatable(Some(view_meta)).map_err(text)?;
    }
    Ok(())
}

/// Is `table` the data behind a view (a frozen metatable lent by `setmetatable`)?
fn is_data(views: &Views, table: &Table) -> mlua::Result<bool> {
    Ok(match table.raw_get::<Value>("__metatable")? {
        Value::Table(view) => {
            views.registry.raw_get::<Option<Table>>(view)?.as_ref() == Some(table)
        }
        _ => false,
    })
}

/// A metatable as the data of a frozen table uses it, and what `getmetatable` gives back: a
/// view lends its data, locked so that `getmetatable` gives the view.
fn class_of(views: &Views, meta: &Table) -> mlua::Result<(Table, Value)> {
    let fields = views
        .registry
        .raw_get::<Option<Table>>(meta)?
        .unwrap_or_else(|| meta.clone());
    if fields != *meta && fields.raw_get::<Value>("__metatable")?.is_nil() {
        fields.raw_set("__metatable", meta)?;
    }
    let lock = match fields.raw_get::<Value>("__metatable")? {
        Value::Nil => Value::Table(meta.clone()),
        lock => lock,
    };
    Ok((fields, lock))
}

/// The metatable of a view of `data`: reads from it, refuses writes, answers `#` and `pairs`
/// from it, and the other operators as `class` (the frozen table's own metatable) did.
fn view_metatable(
    lua: &Lua,
    views: &Views,
    data: &Table,
    class: Option<&Table>,
    kind: View,
) -> mlua::Result<Table> {
    const OWN: [&str; 7] = [
        "__index",
        "__newindex",
        "__len",
        "__pairs",
        "__metatable",
        "__gc",
        "__mode",
    ];
    let meta = lua.create_table()?;
    meta.raw_set("__len", views.len.clone())?;
    meta.raw_set("__pairs", views.pairs.clone())?;
    if let Some(class) = class {
        for pair in class.pairs::<Value, Value>() {
            let (k, v) = pair?;
            let Value::String(name) = &k else { continue };
            let name = name.to_string_lossy();
            let keep = name.starts_with("__")
                && !OWN[..2].contains(&name.as_str())
                && !OWN[4..].contains(&name.as_str());
            if keep {
                meta.raw_set(k, v)?;
            }
        }
    }
    meta.raw_set("__index", data)?;
    meta.raw_set("__newindex", views.refuse[kind as usize].clone())?;
    meta.raw_set("__metatable", false)?;
    Ok(meta)
}
