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
    /// `robot.vars`: a copy, so a write would be lost.
    RobotVars,
    /// A table in `robot.vars`: part of that copy.
    VarsTable,
}

impl View {
    const ALL: [View; 7] = [
        View::Library,
        View::Globals,
        View::Tile,
        View::Params,
        View::Kept,
        View::RobotVars,
        View::VarsTable,
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
            View::RobotVars => {
                format!("robots are read-only: use ctx:set_var(robot, '{key}', n)")
            }
            View::VarsTable => format!(
                "cannot set `{key}`: a table read from robot.vars is read-only, like the robot (a change there would be lost); store a changed copy with ctx:set_var(robot, name, copy)"
            ),
        }
    }
}

/// What the views of one Lua state share, kept in its app data: the functions of `views.lua`.
struct Views {
    /// view -> data, weak keys.
    registry: Table,
    view: Function,
    freeze: Function,
    lazy: Function,
    trust: Function,
}

/// Sets up the views of a state, with the debug library's raw functions (never seen by
/// scripts): `getmetatable`, `setmetatable` and `getupvalue`.
pub fn install(lua: &Lua, debug: &Table) -> mlua::Result<()> {
    let refuse = lua.create_sequence_from(
        View::ALL
            .iter()
            .map(|&kind| {
                lua.create_function(move |lua, (_, key): (Value, Value)| -> mlua::Result<()> {
                    Err(super::located(lua, kind.refusal(&key.to_string()?)))
                })
            })
            .collect::<mlua::Result<Vec<_>>>()?,
    )?;
    let raw = |name: &str| debug.get::<Function>(name);
    let (registry, view, freeze, lazy, trust): (Table, Function, Function, Function, Function) =
        lua.load(include_str!("views.lua"))
            .set_name("@rally/views.lua")
            .call((
                refuse,
                raw("getmetatable")?,
                raw("setmetatable")?,
                raw("getupvalue")?,
            ))?;
    lua.set_app_data(Views {
        registry,
        view,
        freeze,
        lazy,
        trust,
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

/// A new read-only view of `data`, which the host may go on changing.
pub fn view(lua: &Lua, data: Table, kind: View) -> mlua::Result<Table> {
    views(lua).view.call((data, kind as usize + 1))
}

/// The Lua function `view(data, kind)` of `views.lua` and the number it takes for `kind`
/// (for `sandbox.lua`, which makes the scripts' environments).
pub fn maker(lua: &Lua, kind: View) -> mlua::Result<(Function, usize)> {
    Ok((views(lua).view.clone(), kind as usize + 1))
}

/// Marks the host's functions in `table` (and the tables in it) as its own: [`keep`] never
/// freezes what they hold, when a script keeps one of them (`local p = pcall`).
pub fn trust(lua: &Lua, table: &Table) -> mlua::Result<()> {
    views(lua).trust.call(table)
}

/// A read-only view of the declarations in `declared` (which the host fills in), each made
/// read-only when a script first reads it. Returns the view and its cache, from which the
/// host removes a name it declares again (`replace = true`).
pub fn declarations(lua: &Lua, declared: Table) -> mlua::Result<(Table, Table)> {
    views(lua).lazy.call((declared, View::Kept as usize + 1))
}

/// Makes `table` and every table reachable from it read-only, in place; returns the data
/// behind `table` (which the host may go on changing).
pub fn freeze(lua: &Lua, table: &Table, kind: View) -> mlua::Result<Table> {
    let roots = lua.create_sequence_from([table.clone()])?;
    views(lua)
        .freeze
        .call::<()>((roots, kind as usize + 1, false))?;
    open(lua, table)
}

/// `robot.vars` as scripts get it: `vars` (a table made from the robot's state) frozen in
/// place, the tables in it too, since a var set anywhere in it would be silently lost; a
/// script changes a var with `ctx:set_var`, a table in one by storing a changed copy.
pub fn read_only_vars(lua: &Lua, vars: Value) -> mlua::Result<Value> {
    if let Value::Table(data) = &vars {
        let freeze = |roots: Vec<Value>, kind: View| -> mlua::Result<()> {
            let roots = lua.create_sequence_from(roots)?;
            views(lua).freeze.call((roots, kind as usize + 1, false))
        };
        // The tables in it first, so that a write to one says it is part of vars.
        let inner = data
            .pairs::<Value, Value>()
            .filter_map(|pair| match pair {
                Ok((_, v @ Value::Table(_))) => Some(Ok(v)),
                Ok(_) => None,
                Err(e) => Some(Err(e)),
            })
            .collect::<mlua::Result<Vec<Value>>>()?;
        freeze(inner, View::VarsTable)?;
        freeze(vec![vars.clone()], View::RobotVars)?;
    }
    Ok(vars)
}

/// Makes read-only, in place, every table a script keeps from loading time: everything its
/// declared functions reach through their upvalues (the declarations themselves are frozen
/// when another script reads them: [`declarations`]). Coroutines cannot be made while
/// loading (`sandbox.lua`).
pub fn keep(lua: &Lua, roots: Vec<Value>) -> mlua::Result<()> {
    let roots = lua.create_sequence_from(roots)?;
    views(lua)
        .freeze
        .call((roots, View::Kept as usize + 1, true))
}
