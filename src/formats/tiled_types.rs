//! `rally tiled-types`: Tiled's Custom Types (the JSON the Custom Types Editor imports and
//! exports, "propertytypes") for every loaded element: one class per element, usable by
//! tiles, with a member per parameter and its default, and an enum for directions, rotations
//! and parameters with a fixed set of choices. A designer sets a tile's Class to `conveyor`
//! and picks `dir` from a dropdown; what Tiled saves is what the map reader reads.

use crate::board::params::{Kind, ParamSpec};
use crate::script::ElementDef;
use serde_json::{json, Value};

/// The custom types for `elements`, as Tiled's JSON.
pub fn custom_types(elements: &[ElementDef]) -> Value {
    let mut types = vec![
        enumeration(1, "Dir", &["N", "E", "S", "W"]),
        enumeration(2, "Rotation", &["left", "right", "uturn"]),
    ];
    for element in elements {
        let mut members = Vec::new();
        for (name, spec) in &element.params {
            let (member, choices) = member(name, spec);
            if let Some(choices) = choices {
                let enum_name = format!("{}.{name}", element.name);
                let values: Vec<&str> = choices.iter().map(String::as_str).collect();
                types.push(enumeration(types.len() + 1, &enum_name, &values));
                members.push(with_type(member, &enum_name));
            } else {
                members.push(member);
            }
        }
        types.push(json!({
            "id": types.len() + 1,
            "name": element.name,
            "type": "class",
            "useAs": ["tile"],
            "color": "#ffa0a0a4",
            "drawFill": true,
            "members": members,
        }));
    }
    Value::Array(types)
}

fn enumeration(id: usize, name: &str, values: &[&str]) -> Value {
    json!({
        "id": id,
        "name": name,
        "type": "enum",
        "storageType": "string",
        "values": values,
        "valuesAsFlags": false,
    })
}

fn with_type(mut member: Value, property_type: &str) -> Value {
    member["propertyType"] = json!(property_type);
    member
}

/// A class member for one parameter, and the choices its enum needs (a string parameter
/// with a fixed set of values).
fn member(name: &str, spec: &ParamSpec) -> (Value, Option<Vec<String>>) {
    let default = spec.default.clone();
    let typed = |kind: &str, fallback: Value| json!({ "name": name, "type": kind, "value": default.clone().unwrap_or(fallback) });
    match &spec.kind {
        Kind::Dir => (with_type(typed("string", json!("N")), "Dir"), None),
        Kind::Rotation => (with_type(typed("string", json!("right")), "Rotation"), None),
        Kind::Bool => (typed("bool", json!(false)), None),
        Kind::Int { min, .. } => (typed("int", json!(min.unwrap_or(0))), None),
        Kind::Str { choices } if !choices.is_empty() => {
            (typed("string", json!(choices[0])), Some(choices.clone()))
        }
        Kind::Str { .. } => (typed("string", json!("")), None),
        // Lists and tables are written as TOML text, which the map reader reads back.
        Kind::List(_) | Kind::DirMap(_) => {
            let text = default
                .as_ref()
                .and_then(|d| toml::Value::try_from(d).ok())
                .map_or(String::new(), |v| v.to_string());
            (
                json!({ "name": name, "type": "string", "value": text }),
                None,
            )
        }
    }
}
