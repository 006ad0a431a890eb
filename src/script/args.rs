//! A host method called with a wrong argument, said in the script's terms.
//!
//! mlua converts the arguments of `ctx:` and builder methods before our code runs, and says
//! what went wrong in its own terms, without the script's line: ``bad argument #2 to
//! `Ctx.damage`: error converting Lua table to userdata``. [`bad_argument`] rewrites such an
//! error where it becomes a message ([`super::lua_message`]): the method as scripts write it
//! (`ctx:damage`), the argument by its name and what it must be, from the annotations
//! (scripts/types/rally.lua, the one description of the API), what it got instead, and the
//! caller's line, from the traceback mlua takes when a callback fails. None of this runs
//! unless a call failed, so a call that succeeds pays nothing for it.

use crate::script::reference::{self, EntryKind, Param};

/// A word argument (a direction, a rotation, a way of moving) that must be a Lua string.
/// mlua's `String` and `LuaString` turn a number into its text, so `ctx:move(robot,
/// tile.distance, dir)` would take 2 for the direction ("2") and blame the next argument;
/// a `Word` refuses the number where it is given, and says what it was.
pub struct Word(pub mlua::LuaString);

impl mlua::FromLua for Word {
    fn from_lua(value: mlua::Value, _: &mlua::Lua) -> mlua::Result<Word> {
        match value {
            mlua::Value::String(s) => Ok(Word(s)),
            other => Err(mlua::Error::FromLuaConversionError {
                from: other.type_name(),
                to: "string".into(),
                message: Some(shown(&other)),
            }),
        }
    }
}

/// A whole-number argument of a native function (`ctx:damage(robot, n)`): converted as mlua
/// converts `T`, but a number that is not one says what was given and what fits (mlua's own
/// conversion says neither: "out of range").
#[derive(Clone, Copy, Debug)]
pub struct Whole<T>(pub T);

macro_rules! whole {
    ($($t:ty),*) => {$(
        impl mlua::FromLua for Whole<$t> {
            fn from_lua(value: mlua::Value, _: &mlua::Lua) -> mlua::Result<Self> {
                let fits = match &value {
                    mlua::Value::Integer(n) => <$t>::try_from(*n).ok(),
                    mlua::Value::Number(n) if n.fract() == 0.0 && n.abs() < 9.0e18 => {
                        <$t>::try_from(*n as i64).ok()
                    }
                    _ => None,
                };
                if let Some(n) = fits {
                    return Ok(Whole(n));
                }
                let message = match &value {
                    mlua::Value::Number(n) if n.fract() != 0.0 && n.is_finite() => {
                        format!("{}, which has a fraction", shown(&value))
                    }
                    mlua::Value::Integer(_) | mlua::Value::Number(_) => format!(
                        "{}, out of range (a whole number from {} to {})",
                        shown(&value),
                        <$t>::MIN,
                        <$t>::MAX
                    ),
                    _ => return Err(mlua::Error::FromLuaConversionError {
                        from: value.type_name(),
                        to: stringify!($t).into(),
                        message: None,
                    }),
                };
                Err(mlua::Error::FromLuaConversionError {
                    from: value.type_name(),
                    to: stringify!($t).into(),
                    message: Some(message),
                })
            }
        }
    )*};
}

whole!(i32, u8, u32, u64);

/// A value as a message shows what a script passed: numbers as Lua writes them (`2`,
/// `2.5`: an integer never as `2.0`), strings quoted, other values by their type.
pub fn shown(value: &mlua::Value) -> String {
    match value {
        mlua::Value::Integer(n) => format!("the number {n}"),
        mlua::Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => {
            format!("the number {}", *n as i64)
        }
        mlua::Value::Number(n) => format!("the number {n}"),
        mlua::Value::Boolean(b) => format!("`{b}`"),
        mlua::Value::Nil => "nothing (nil)".into(),
        mlua::Value::String(s) => format!("\"{}\"", crate::text::clean(&s.to_string_lossy())),
        other => a(other.type_name()),
    }
}

/// `file:line: ` of the innermost script frame of a Lua traceback, or "" if none is a
/// script's (host chunks are `rally/...`, mlua's own `__mlua_...`, native frames `[C]`).
pub fn traceback_place(traceback: &str) -> String {
    traceback
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let (src, rest) = line.split_once(':')?;
            let (number, _) = rest.split_once(':')?;
            let number: usize = number.parse().ok()?;
            let host =
                src.starts_with('[') || src.starts_with("rally/") || src.starts_with("__mlua");
            (!host).then(|| format!("{src}:{number}: "))
        })
        .next()
        .unwrap_or_default()
}

/// The object a host type is to scripts: its name in calls (`ctx`) and the table its
/// methods are annotated on (`Ctx`).
fn object(type_name: &str) -> Option<(&'static str, &'static str)> {
    if type_name == "Ctx" {
        Some(("ctx", "Ctx"))
    } else if type_name.contains("FactsBuilder") {
        Some(("b", "Builder"))
    } else {
        None
    }
}

/// The message for mlua's `BadArgument`: `to` is `Type.method`, `pos` counts `self` as 1.
pub fn bad_argument(
    to: Option<&str>,
    pos: usize,
    name: Option<&str>,
    cause: &mlua::Error,
    traceback: &str,
) -> String {
    let place = traceback_place(traceback);
    let call = to.and_then(|to| {
        let (type_name, method) = to.rsplit_once('.')?;
        let (object, var) = object(type_name)?;
        Some((object, var, method))
    });
    let Some((object, var, method)) = call else {
        let to = to.map(|t| format!(" to `{t}`")).unwrap_or_default();
        return format!(
            "{place}bad argument #{pos}{to}: {}",
            super::lua_message(cause)
        );
    };
    let call = format!("{object}:{method}");
    if name == Some("self") {
        return format!("{place}`{call}` is a method: call it with a colon, `{call}(...)`");
    }
    let param = params(var, method).and_then(|p| p.into_iter().nth(pos.saturating_sub(2)));
    let Some(param) = param else {
        return format!(
            "{place}`{call}`: argument {}: {}",
            pos.saturating_sub(1),
            super::lua_message(cause)
        );
    };
    let got = match cause {
        mlua::Error::FromLuaConversionError { from, message, .. } => got(from, message.as_deref()),
        other => super::lua_message(other),
    };
    let hint = if param.ty.starts_with("rally.Robot") && got.ends_with("a table") {
        " (a tile or a square? a robot is a handler's `robot`, or comes from ctx:robot_at(square) or ctx:robots())"
    } else {
        ""
    };
    format!(
        "{place}`{call}`: argument `{}` must be {}, got {got}{hint}",
        param.name,
        expected(&param)
    )
}

/// An argument of the right Lua type whose value is wrong (`ctx:move(robot, "Q")`), found
/// by the method itself: the message names the method (from the call on the stack) and the
/// argument of annotated type `ty` (`rally.Dir`), at the caller's line.
pub fn invalid(lua: &mlua::Lua, ty: &str, got: &str) -> mlua::Error {
    let method = method_name(lua);
    let param = method.as_deref().and_then(|m| {
        [("ctx", "Ctx"), ("b", "Builder")]
            .into_iter()
            .find_map(|(object, var)| {
                let params = params(var, m)?;
                let p = params
                    .into_iter()
                    .find(|p| p.ty.split('|').any(|t| t == ty))?;
                Some((format!("{object}:{m}"), p))
            })
    });
    let message = match param {
        Some((call, p)) => format!(
            "`{call}`: argument `{}` must be {}, got {got}",
            p.name,
            expected(&p)
        ),
        _ => format!(
            "expected {}, got {got}",
            expected(&Param {
                name: String::new(),
                ty: ty.into(),
                optional: false,
                doc: String::new(),
            })
        ),
    };
    super::located(lua, message)
}

/// The name of the host method running now, as the script called it (`move` in
/// `ctx:move(...)`), if it was called as a method.
fn method_name(lua: &mlua::Lua) -> Option<String> {
    let named = |level: usize| {
        lua.inspect_stack(level, |d| {
            let names = d.names();
            let unnamed = names.name.is_none();
            let method = (names.name_what == Some("method"))
                .then(|| names.name.map(|n| n.to_string()))
                .flatten();
            (method, unnamed)
        })
    };
    match named(0)? {
        (Some(name), _) => Some(name),
        // Called without a name: by the native method in front of it (`native.rs`), which
        // the script called.
        (None, true) => named(1)?.0,
        (None, false) => None,
    }
}

/// A count or amount below 0 given to a `ctx:` method (`ctx:damage(robot, -1)`): an error,
/// never silently ignored.
pub fn not_negative(lua: &mlua::Lua, param: &str, n: i32) -> mlua::Result<i32> {
    if n >= 0 {
        return Ok(n);
    }
    let call = method_name(lua).map_or_else(String::new, |m| format!("`ctx:{m}`: "));
    Err(super::located(
        lua,
        format!("{call}argument `{param}` must be 0 or more, got {n}"),
    ))
}

/// The annotated parameters of `Var:method`.
fn params(var: &str, method: &str) -> Option<Vec<Param>> {
    let api = reference::parse(reference::ANNOTATIONS).ok()?;
    let entry = api.bound(var)?.entries.iter().find(|e| e.name == method)?;
    match &entry.kind {
        EntryKind::Function { params, .. } => Some(params.clone()),
        _ => None,
    }
}

/// The names of every field and method annotated on `var` (`Ctx`), for "did you mean".
pub fn members(var: &str) -> Vec<String> {
    reference::parse(reference::ANNOTATIONS)
        .ok()
        .and_then(|api| {
            let section = api.bound(var)?;
            Some(section.entries.iter().map(|e| e.name.clone()).collect())
        })
        .unwrap_or_default()
}

/// What an argument of an annotated type must be, in words.
fn expected(param: &Param) -> String {
    let one = |ty: &str| -> String {
        match ty {
            "rally.Robot" => "a robot".into(),
            "rally.Pos" => "a square ({ x = .., y = .. } or { x, y })".into(),
            "rally.Dir" => "a direction (\"N\", \"E\", \"S\" or \"W\")".into(),
            "rally.Rotation" => "a rotation (\"left\", \"right\" or \"uturn\")".into(),
            "rally.How" => {
                "a way of moving (\"card\", \"push\", \"belt\", \"jump\" or \"script\")".into()
            }
            "rally.CardArg" => "a card (\"move2@700\" or a card table)".into(),
            "integer" => "a whole number".into(),
            "number" => "a number".into(),
            "string" => "a string".into(),
            "boolean" => "true or false".into(),
            "string[]" => "a list of strings".into(),
            "nil" => "nil".into(),
            "any" | "T" => "a value".into(),
            t if t.starts_with('{') || t.starts_with("table") => "a table".into(),
            t => format!("`{t}`"),
        }
    };
    // A table's shape (`{ pass: "out"|"in" }`) is described by the parameter's own doc.
    let mut words: Vec<String> = if param.ty.starts_with('{') {
        vec![one(&param.ty)]
    } else {
        param.ty.split('|').map(|t| one(t.trim())).collect()
    };
    if param.optional && !words.iter().any(|w| w == "nil") {
        words.push("nil".into());
    }
    match words.as_slice() {
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
        [] => "a value".into(),
    }
}

/// What a script passed, from mlua's conversion error (`from` is the Lua type's name).
fn got(from: &str, message: Option<&str>) -> String {
    match (from, message) {
        // A `Word`'s own words for the value.
        (_, Some(m)) if m.starts_with("the number ") || m.starts_with('`') => m.to_string(),
        ("number" | "integer", Some(m)) if m.contains("out of range") => {
            "a number with a fraction or out of range".into()
        }
        ("nil", _) => "nothing (nil)".into(),
        (t, _) => a(t),
    }
}

/// A Lua type's name with its article: `a table`, `an integer`.
pub fn a(type_name: &str) -> String {
    if type_name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {type_name}")
    } else {
        format!("a {type_name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_place_is_the_innermost_script_frame() {
        let traceback = "stack traceback:\n\t[C]: in ?\n\t__mlua_index:20: in function <__mlua_index:11>\n\trally/prelude.lua:7: in upvalue 'f'\n\tscripts/elements/t.lua:6: in function <scripts/elements/t.lua:5>\n\tother.lua:2: in ?";
        assert_eq!(traceback_place(traceback), "scripts/elements/t.lua:6: ");
        assert_eq!(traceback_place("stack traceback:\n\t[C]: in ?"), "");
    }

    #[test]
    fn every_ctx_argument_is_described_in_words() {
        let api = reference::parse(reference::ANNOTATIONS).unwrap();
        for var in ["Ctx", "Builder"] {
            for entry in &api.bound(var).unwrap().entries {
                if let EntryKind::Function { params, .. } = &entry.kind {
                    for p in params {
                        let words = expected(p);
                        assert!(
                            !words.contains('`'),
                            "{}: {} {}: {words}",
                            entry.call,
                            p.name,
                            p.ty
                        );
                    }
                }
            }
        }
    }
}
