//! Element parameters: what a script declares (`rally.param.dir()`, ...) and the check of the
//! values a board gives. Checked values are normalised (`"north"` becomes `"N"`), so scripts
//! see one spelling.

use crate::geometry::{Dir, Rotation};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Dir,
    Rotation,
    Bool,
    Int {
        min: Option<i64>,
        max: Option<i64>,
    },
    Str {
        choices: Vec<String>,
    },
    List(Box<Kind>),
    /// A table keyed by direction (e.g. a junction's `turns = { N = "right" }`).
    DirMap(Box<Kind>),
}

impl Kind {
    /// How the kind reads in a message and in `rally elements`.
    pub fn describe(&self) -> String {
        match self {
            Kind::Dir => "direction (N/E/S/W)".into(),
            Kind::Rotation => "rotation (left/right)".into(),
            Kind::Bool => "true/false".into(),
            Kind::Int {
                min: Some(lo),
                max: Some(hi),
            } => format!("whole number {lo}–{hi}"),
            Kind::Int { .. } => "whole number".into(),
            Kind::Str { choices } if !choices.is_empty() => format!("one of {}", choices.join("/")),
            Kind::Str { .. } => "text".into(),
            Kind::List(inner) => format!("list of {}", inner.describe()),
            Kind::DirMap(inner) => format!("table of direction = {}", inner.describe()),
        }
    }

    /// Checks a board value and returns it normalised.
    pub fn check(&self, value: &toml::Value) -> Result<Value, String> {
        let wrong = || {
            let expected = self.describe();
            let article = if expected.starts_with("one of") {
                ""
            } else {
                "a "
            };
            format!("expected {article}{expected}, got {}", show(value))
        };
        match (self, value) {
            (Kind::Dir, toml::Value::String(s)) => Dir::parse(s)
                .map(|d| Value::from(d.name()))
                .ok_or_else(wrong),
            (Kind::Rotation, toml::Value::String(s)) => Rotation::parse(s)
                .map(|r| Value::from(r.name()))
                .ok_or_else(wrong),
            (Kind::Bool, toml::Value::Boolean(b)) => Ok(Value::from(*b)),
            (Kind::Int { min, max }, toml::Value::Integer(i)) => {
                if min.is_some_and(|lo| *i < lo) || max.is_some_and(|hi| *i > hi) {
                    Err(wrong())
                } else {
                    Ok(Value::from(*i))
                }
            }
            (Kind::Str { choices }, toml::Value::String(s)) => {
                if choices.is_empty() || choices.contains(s) {
                    Ok(Value::from(s.clone()))
                } else {
                    Err(wrong())
                }
            }
            (Kind::List(inner), toml::Value::Array(items)) => items
                .iter()
                .map(|item| inner.check(item))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array)
                .map_err(|e| format!("in the list: {e}")),
            // An empty Lua table reads as an empty list.
            (Kind::DirMap(_), toml::Value::Array(items)) if items.is_empty() => {
                Ok(Value::Object(Map::new()))
            }
            (Kind::DirMap(inner), toml::Value::Table(table)) => {
                let mut out = Map::new();
                for (key, item) in table {
                    let dir = Dir::parse(key)
                        .ok_or_else(|| format!("key `{key}` is not a direction (N/E/S/W)"))?;
                    out.insert(dir.name().into(), inner.check(item)?);
                }
                Ok(Value::Object(out))
            }
            _ => Err(wrong()),
        }
    }

    /// Turns every direction inside `value` clockwise by `quarter_turns` (courses rotate boards).
    pub fn rotate(&self, value: &Value, quarter_turns: u8) -> Value {
        // Values are checked before they are turned; anything else is left as it is.
        let turn = |d: &str| {
            let Some(mut dir) = Dir::parse(d) else {
                return d.to_string();
            };
            for _ in 0..quarter_turns {
                dir = dir.turned(Rotation::Right);
            }
            dir.name().to_string()
        };
        match (self, value) {
            (Kind::Dir, Value::String(s)) => Value::from(turn(s)),
            (Kind::List(inner), Value::Array(items)) => Value::Array(
                items
                    .iter()
                    .map(|v| inner.rotate(v, quarter_turns))
                    .collect(),
            ),
            (Kind::DirMap(inner), Value::Object(map)) => Value::Object(
                map.iter()
                    .map(|(k, v)| (turn(k), inner.rotate(v, quarter_turns)))
                    .collect(),
            ),
            _ => value.clone(),
        }
    }
}

fn show(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParamSpec {
    pub kind: Kind,
    pub required: bool,
    pub default: Option<Value>,
    pub describe: String,
}

/// An element's declared parameters, by name.
pub type ParamSpecs = BTreeMap<String, ParamSpec>;

/// What is wrong with a set of parameters, and which parameter it is about (none for a
/// missing one), so that the caller can point at where it was written.
#[derive(Debug)]
pub struct ParamError {
    pub param: Option<String>,
    pub message: String,
}

impl From<ParamError> for String {
    fn from(e: ParamError) -> String {
        e.message
    }
}

/// Checks a placement's parameters against the declaration; fills in defaults.
pub fn check_all(
    specs: &ParamSpecs,
    given: &toml::Table,
    element: &str,
) -> Result<Map<String, Value>, ParamError> {
    let mut out = Map::new();
    for (name, value) in given {
        let about = |message: String| ParamError {
            param: Some(name.clone()),
            message,
        };
        let spec = specs.get(name).ok_or_else(|| {
            let known: Vec<&str> = specs.keys().map(String::as_str).collect();
            let list = if known.is_empty() {
                "it takes no parameters".to_string()
            } else {
                format!("expected one of {}", known.join(", "))
            };
            about(format!(
                "element `{element}` has no parameter `{name}`{}; {list}",
                crate::error::suggest(name, known.iter().copied())
            ))
        })?;
        let checked = spec
            .kind
            .check(value)
            .map_err(|e| about(format!("element `{element}`, parameter `{name}`: {e}")))?;
        out.insert(name.clone(), checked);
    }
    for (name, spec) in specs {
        if out.contains_key(name) {
            continue;
        }
        if let Some(default) = &spec.default {
            out.insert(name.clone(), default.clone());
        } else if spec.required {
            return Err(ParamError {
                param: None,
                message: format!(
                    "element `{element}` needs parameter `{name}` ({})",
                    spec.kind.describe()
                ),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_and_normalises() {
        assert_eq!(
            Kind::Dir.check(&toml::Value::from("north")).unwrap(),
            Value::from("N")
        );
        let err = Kind::Int {
            min: Some(1),
            max: Some(3),
        }
        .check(&toml::Value::from(4));
        assert_eq!(err.unwrap_err(), "expected a whole number 1–3, got 4");
        let map = Kind::DirMap(Box::new(Kind::Rotation));
        let v: toml::Value =
            toml::from_str::<toml::Table>("t = { north = \"right\" }").unwrap()["t"].clone();
        assert_eq!(map.check(&v).unwrap(), serde_json::json!({"N": "right"}));
        assert_eq!(
            map.rotate(&serde_json::json!({"N": "right"}), 1),
            serde_json::json!({"E": "right"})
        );
    }
}
