//! The sandboxed Lua state every rule set runs in (design.md principle 6): only safe
//! libraries, no way to load bytecode or reach the file system, strict globals, a memory
//! limit, and an instruction budget per handler call that a script cannot catch its way out of.

use mlua::{HookTriggers, Lua, LuaOptions, StdLib, Table, Value, VmState};
use std::cell::Cell;
use std::rc::Rc;

/// Instructions one top-level handler call may run (nested calls share it).
pub const INSTRUCTION_BUDGET: i64 = 5_000_000;
/// Memory one rule set may hold.
pub const MEMORY_LIMIT: usize = 64 * 1024 * 1024;
/// How often the budget hook runs.
const HOOK_EVERY: u32 = 1_000;

/// The instruction budget of the call in progress. Once spent it stays spent, so the hook
/// keeps raising even inside `pcall` until the call unwinds.
#[derive(Debug, Default)]
pub struct Budget {
    remaining: Cell<i64>,
    spent: Cell<bool>,
}

impl Budget {
    pub fn reset(&self, instructions: i64) {
        self.remaining.set(instructions);
        self.spent.set(false);
    }

    pub fn is_spent(&self) -> bool {
        self.spent.get()
    }
}

pub const BUDGET_MESSAGE: &str =
    "instruction budget exceeded: the script ran too long (an endless loop?)";

/// A fresh sandboxed state. `print` goes to tracing; `math.random` is replaced by the host with
/// the game's RNG (`ctx::install_random`).
pub fn new_lua(budget: Rc<Budget>) -> mlua::Result<Lua> {
    let lua = Lua::new_with(
        StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8 | StdLib::COROUTINE,
        LuaOptions::default(),
    )?;
    lua.set_memory_limit(MEMORY_LIMIT)?;
    let globals = lua.globals();
    for name in ["load", "loadfile", "dofile", "collectgarbage", "require"] {
        globals.raw_set(name, Value::Nil)?;
    }
    let string: Table = globals.get("string")?;
    string.raw_set("dump", Value::Nil)?;
    let math: Table = globals.get("math")?;
    math.raw_set("randomseed", Value::Nil)?;
    globals.raw_set(
        "print",
        lua.create_function(|_, args: mlua::Variadic<Value>| {
            let text: Vec<String> = args
                .iter()
                .map(|v| v.to_string().unwrap_or_default())
                .collect();
            tracing::info!(target: "script", "{}", text.join("\t"));
            Ok(())
        })?,
    )?;
    strict_globals(&lua)?;
    budget.reset(INSTRUCTION_BUDGET);
    lua.set_global_hook(
        HookTriggers::new().every_nth_instruction(HOOK_EVERY),
        move |_, _| {
            let left = budget.remaining.get() - HOOK_EVERY as i64;
            budget.remaining.set(left);
            if left < 0 {
                budget.spent.set(true);
                return Err(mlua::Error::runtime(BUDGET_MESSAGE));
            }
            Ok(VmState::Continue)
        },
    )?;
    Ok(lua)
}

/// A strict `_ENV` for one chunk: it reads the shared globals, an unknown name is an error
/// (typos surface at once), and assigning a global is an error (scripts keep no state).
/// Reads go through a plain table chain (env -> globals), so the common case costs a table
/// lookup; only a missing name reaches the erroring function on the globals' metatable.
pub fn strict_env(lua: &Lua, extra: &[(&str, Value)]) -> mlua::Result<Table> {
    let env = lua.create_table()?;
    for (name, value) in extra {
        env.raw_set(*name, value.clone())?;
    }
    let meta = lua.create_table()?;
    meta.raw_set("__index", lua.globals())?;
    meta.raw_set(
        "__newindex",
        lua.create_function(|lua, (_, key, _): (Table, Value, Value)| -> mlua::Result<()> {
            Err(super::located(
                lua,
                format!(
                    "assignment to global `{}`: scripts keep no globals; use `local`, or robot/game vars for state",
                    key.to_string()?
                ),
            ))
        })?,
    )?;
    env.set_metatable(Some(meta))?;
    Ok(env)
}

/// Makes reading an undeclared global an error (see `strict_env`).
fn strict_globals(lua: &Lua) -> mlua::Result<()> {
    let meta = lua.create_table()?;
    meta.raw_set(
        "__index",
        lua.create_function(|lua, (_, key): (Table, Value)| -> mlua::Result<Value> {
            Err(super::located(
                lua,
                format!(
                    "undeclared global `{}` (declare it with `local`, or check the spelling)",
                    key.to_string()?
                ),
            ))
        })?,
    )?;
    lua.globals().set_metatable(Some(meta))
}

/// Makes reading a missing key of `table` an error (so `rally.HANDELD` is caught, not nil).
pub fn strict_table(lua: &Lua, table: &Table, name: &'static str) -> mlua::Result<()> {
    let meta = lua.create_table()?;
    meta.raw_set(
        "__index",
        lua.create_function(
            move |lua, (_, key): (Table, Value)| -> mlua::Result<Value> {
                Err(super::located(
                    lua,
                    format!("`{name}.{}` does not exist", key.to_string()?),
                ))
            },
        )?,
    )?;
    table.set_metatable(Some(meta))
}
