//! What scripts store: Lua values copied into the game's state (vars, log details, causes),
//! exactly and within limits (design.md principle 6, docs/sandbox.md).
//!
//! A value JSON cannot hold faithfully is an error at the script's line, never silently
//! changed: NaN and infinities, functions and other objects, tables that mix a list with named
//! keys or have holes, tables that contain themselves, text that is not UTF-8. Every copy is
//! bounded (`Limits::value`), and so is what one register may add ([`Quota`]).

use super::sandbox::limits;
use super::views;
use mlua::{Lua, LuaSerdeExt, Table, Value};
use serde_json::{Map, Number, Value as Json};
use std::cell::Cell;
use std::collections::HashSet;

/// Deepest nesting of a stored value.
const MAX_DEPTH: usize = 64;

/// `value` as JSON, and its size in bytes (about its length as JSON text). `what` names it in
/// errors, e.g. "ctx:set_var: `speed`".
pub fn to_json(lua: &Lua, value: Value, what: &str) -> mlua::Result<(Json, usize)> {
    let mut copy = Copy {
        lua,
        size: 0,
        limit: limits().value,
        open: HashSet::new(),
        array: lua.array_metatable(),
    };
    match copy.value(value, 0) {
        Ok(json) => Ok((json, copy.size)),
        Err(problem) => Err(super::located(
            lua,
            format!("{what}: {problem} (vars and details hold nil, booleans, finite numbers, UTF-8 text, and lists or string-keyed tables of them; see docs/sandbox.md)"),
        )),
    }
}

/// A bounded text a script hands over to be kept (a log entry's name, a cause): its size
/// counts towards the register's log.
pub fn text(lua: &Lua, text: &str, what: &str) -> mlua::Result<()> {
    let limit = limits().value;
    if text.len() > limit {
        return Err(super::located(
            lua,
            format!(
                "{what} is {} bytes long, more than the {} a stored value may hold; raise it with --limit value=SIZE",
                text.len(),
                limit
            ),
        ));
    }
    Ok(())
}

struct Copy<'a> {
    lua: &'a Lua,
    size: usize,
    limit: usize,
    /// Tables being copied (a table met again inside itself is a cycle).
    open: HashSet<*const std::ffi::c_void>,
    array: Table,
}

impl Copy<'_> {
    fn grow(&mut self, n: usize) -> Result<(), String> {
        self.size += n;
        if self.size > self.limit {
            return Err(format!(
                "the value is larger than the {} bytes a stored value may hold; raise it with --limit value=SIZE",
                self.limit
            ));
        }
        Ok(())
    }

    fn value(&mut self, value: Value, depth: usize) -> Result<Json, String> {
        let lua_error = |e: mlua::Error| super::lua_message(&e);
        Ok(match value {
            Value::Nil => {
                self.grow(4)?;
                Json::Null
            }
            Value::Boolean(b) => {
                self.grow(5)?;
                Json::Bool(b)
            }
            Value::Integer(i) => {
                self.grow(8)?;
                Json::Number(i.into())
            }
            Value::Number(n) => {
                self.grow(8)?;
                Json::Number(Number::from_f64(n).ok_or_else(|| {
                    let what = if n.is_nan() {
                        "NaN (0/0)"
                    } else {
                        "an infinite number"
                    };
                    format!("{what} cannot be stored (only finite numbers can)")
                })?)
            }
            Value::String(s) => {
                let text = s
                    .to_str()
                    .map_err(|_| "a text that is not valid UTF-8 cannot be stored".to_string())?;
                self.grow(text.len() + 2)?;
                Json::String(text.to_string())
            }
            Value::Table(t) => {
                if depth >= MAX_DEPTH {
                    return Err(format!(
                        "tables nested more than {MAX_DEPTH} deep cannot be stored"
                    ));
                }
                let t = views::open(self.lua, &t).map_err(lua_error)?;
                if !self.open.insert(t.to_pointer()) {
                    return Err("a table that contains itself cannot be stored".into());
                }
                let json = self.table(&t, depth)?;
                self.open.remove(&t.to_pointer());
                json
            }
            other => {
                return Err(format!(
                    "a {} cannot be stored",
                    match other {
                        Value::UserData(_) => "robot, tile or other object (store its name)",
                        o => o.type_name(),
                    }
                ))
            }
        })
    }

    fn table(&mut self, t: &Table, depth: usize) -> Result<Json, String> {
        let lua_error = |e: mlua::Error| super::lua_message(&e);
        let mut items: Vec<(i64, Value)> = Vec::new();
        let mut named: Vec<(String, Value)> = Vec::new();
        for pair in t.pairs::<Value, Value>() {
            let (k, v) = pair.map_err(lua_error)?;
            match k {
                Value::Integer(i) => items.push((i, v)),
                Value::String(s) => named.push((
                    s.to_str()
                        .map_err(|_| "a key that is not valid UTF-8 cannot be stored".to_string())?
                        .to_string(),
                    v,
                )),
                Value::Number(n) => return Err(format!("a table with the key {n} cannot be stored (keys are names or list positions 1, 2, 3...)")),
                other => {
                    return Err(format!(
                        "a table with a {} as a key cannot be stored (keys are names or list positions 1, 2, 3...)",
                        other.type_name()
                    ))
                }
            }
            self.grow(1)?;
        }
        if !items.is_empty() && !named.is_empty() {
            return Err(format!(
                "a table that mixes list items with named keys (`{}`) cannot be stored",
                named[0].0
            ));
        }
        let is_list =
            !items.is_empty() || (named.is_empty() && t.metatable().as_ref() == Some(&self.array));
        if is_list {
            items.sort_unstable_by_key(|(i, _)| *i);
            if let Some(gap) = items
                .iter()
                .enumerate()
                .find(|(n, (i, _))| *i != *n as i64 + 1)
                .map(|(n, _)| n + 1)
            {
                return Err(format!(
                    "a list with a hole (no item {gap}) cannot be stored; use nil-free lists or string keys"
                ));
            }
            self.grow(2)?;
            let values = items
                .into_iter()
                .map(|(_, v)| self.value(v, depth + 1))
                .collect::<Result<_, _>>()?;
            return Ok(Json::Array(values));
        }
        // Keys sorted: `pairs` order differs between runs, and the same game must give the
        // same output byte for byte (design.md principle 4).
        named.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        self.grow(2)?;
        let mut map = Map::new();
        for (k, v) in named {
            self.grow(k.len() + 3)?;
            let v = self.value(v, depth + 1)?;
            map.insert(k, v);
        }
        Ok(Json::Object(map))
    }
}

/// The size [`to_json`] gives a stored value, for what the state already holds.
pub fn size(value: &Json) -> usize {
    match value {
        Json::Null => 4,
        Json::Bool(_) => 5,
        Json::Number(_) => 8,
        Json::String(s) => s.len() + 2,
        Json::Array(items) => 2 + items.iter().map(|v| 1 + size(v)).sum::<usize>(),
        Json::Object(map) => {
            2 + map
                .iter()
                .map(|(k, v)| 1 + k.len() + 3 + size(v))
                .sum::<usize>()
        }
    }
}

/// What scripts may still store in the register (or turn end) in progress: events, logged
/// bytes, and var bytes on top of what the state already holds. Reset by each transaction.
#[derive(Debug, Default)]
pub struct Quota {
    events_before: Cell<usize>,
    logged: Cell<usize>,
    /// The size of every var when the register began (measured at its first write).
    vars_before: Cell<Option<usize>>,
    vars_written: Cell<usize>,
}

impl Quota {
    pub fn reset(&self, events: usize) {
        self.events_before.set(events);
        self.logged.set(0);
        self.vars_before.set(None);
        self.vars_written.set(0);
    }

    /// Why the register may log no more events, if it may not.
    pub fn events_over(&self, events: usize) -> Option<String> {
        let limit = limits().events;
        (events.saturating_sub(self.events_before.get()) > limit).then(|| {
            format!(
                "event limit exceeded: more than {limit} events in one register (logging in a loop?); raise it with --limit events=N"
            )
        })
    }

    /// Counts `bytes` of text or details logged, if they stay within the limit (else counts
    /// nothing: [`Quota::log`] then says what is wrong).
    pub fn log_within(&self, bytes: usize) -> bool {
        let logged = self.logged.get().saturating_add(bytes);
        let fits = logged <= limits().log;
        if fits {
            self.logged.set(logged);
        }
        fits
    }

    /// Counts `bytes` of text or details logged.
    pub fn log(&self, lua: &Lua, bytes: usize) -> mlua::Result<()> {
        let logged = self.logged.get().saturating_add(bytes);
        self.logged.set(logged);
        let limit = limits().log;
        if logged > limit {
            return Err(super::located(
                lua,
                format!("log limit exceeded: the scripts logged more than {limit} bytes in one register; raise it with --limit log=SIZE"),
            ));
        }
        Ok(())
    }

    /// Counts `bytes` of a var written; `stored` measures every var the state holds.
    pub fn store(
        &self,
        lua: &Lua,
        bytes: usize,
        stored: impl FnOnce() -> usize,
    ) -> mlua::Result<()> {
        let before = match self.vars_before.get() {
            Some(n) => n,
            None => {
                let n = stored();
                self.vars_before.set(Some(n));
                n
            }
        };
        let written = self.vars_written.get().saturating_add(bytes);
        self.vars_written.set(written);
        let vars = limits().vars;
        if before.saturating_add(written) > vars {
            return Err(super::located(
                lua,
                format!(
                    "vars limit exceeded: the game's vars ({before} bytes) and what this register wrote ({written} bytes) pass the {vars} bytes allowed; raise it with --limit vars=SIZE"
                ),
            ));
        }
        Ok(())
    }
}
