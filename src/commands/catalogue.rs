//! What `rally elements`, `rally options` and `rally variants` share: parameters as text and
//! as JSON (docs/formats.md, "Catalogues as JSON"), the layers and where each entry comes
//! from, and the entries the command line names (an unknown name is an error with a
//! suggestion).

use crate::board::params::{Kind, ParamSpecs};
use crate::error::{Error, Result};
use crate::script::layers::{Layer, Replaced};
use crate::text::clean_line;
use serde_json::{json, Value};

pub(super) fn params_lines(params: &ParamSpecs) -> Vec<String> {
    params
        .iter()
        .map(|(name, p)| {
            let need = match (&p.default, p.required) {
                (Some(d), _) => format!("default {d}"),
                (None, true) => "required".into(),
                (None, false) => "optional".into(),
            };
            let describe = if p.describe.is_empty() {
                String::new()
            } else {
                format!(" — {}", clean_line(&p.describe))
            };
            format!("      {name}: {} ({need}){describe}", p.kind.describe())
        })
        .collect()
}

fn kind_json(kind: &Kind) -> Value {
    match kind {
        Kind::Dir => json!({ "kind": "dir" }),
        Kind::Rotation => json!({ "kind": "rotation" }),
        Kind::Bool => json!({ "kind": "bool" }),
        Kind::Int { min, max } => json!({ "kind": "int", "min": min, "max": max }),
        Kind::Str { choices } => json!({ "kind": "string", "choices": choices }),
        Kind::List(of) => json!({ "kind": "list", "of": kind_json(of) }),
        Kind::DirMap(of) => json!({ "kind": "dir_map", "of": kind_json(of) }),
    }
}

pub(super) fn params_json(params: &ParamSpecs) -> Value {
    params
        .iter()
        .map(|(name, p)| {
            let mut v = kind_json(&p.kind);
            v["name"] = json!(name);
            v["type"] = json!(p.kind.describe());
            v["default"] = p.default.clone().unwrap_or(Value::Null);
            v["required"] = json!(p.required);
            v["describe"] = json!(p.describe);
            v
        })
        .collect()
}

/// `Layers, lowest first: built-in 0.1.0, pack doors 1.0 (packs/doors), project (scripts)`.
pub(super) fn layers_line(layers: &[Layer]) -> String {
    format!(
        "Layers, lowest first: {}",
        crate::script::layers::list(layers, Layer::describe_with_version)
    )
}

/// The layers as JSON, lowest first: `[{"layer": "pack doors", "name", "version",
/// "scripts", "variants", "manifest"}]`, the folders as messages name them (null for the
/// built-in base, which has none on disk).
pub(super) fn layers_json(layers: &[Layer]) -> Value {
    let shown = |p: &Option<std::path::PathBuf>, l: &Layer| match (p, l.folders().is_empty()) {
        (Some(p), false) => json!(crate::files::display_path(p)),
        _ => Value::Null,
    };
    layers
        .iter()
        .map(|l| {
            json!({
                "layer": l.to_string(),
                "name": l.name,
                "version": l.version,
                "scripts": shown(&l.scripts, l),
                "variants": shown(&l.variants, l),
                "manifest": shown(&l.manifest, l),
            })
        })
        .collect()
}

/// Where an entry comes from, as the text says it: `project: scripts/elements/gear.lua,
/// replaces built-in`.
pub(super) fn from_words(
    layers: &[Layer],
    layer: usize,
    file: &str,
    replaced: Option<&Replaced>,
) -> String {
    let how = match replaced {
        Some(r) if r.unchanged => format!(", an unchanged copy of {}'s", layers[r.over]),
        Some(r) => format!(", replaces {}", layers[r.over]),
        None => String::new(),
    };
    format!("{}: {file}{how}", layers[layer])
}

/// The entries whose names were asked for (all when none were), in the catalogue's order;
/// a name that matches nothing is an error naming the known ones.
pub(super) fn chosen<'a, T>(
    all: &'a [T],
    name: impl Fn(&T) -> &str,
    wanted: &[String],
    what: &str,
) -> Result<Vec<&'a T>> {
    for w in wanted {
        if !all.iter().any(|t| name(t) == w) {
            let names: Vec<&str> = all.iter().map(&name).collect();
            return Err(Error::Other(format!(
                "no {what} `{w}`{}; there are {}",
                crate::error::suggest(w, names.iter().copied()),
                names.join(", ")
            )));
        }
    }
    Ok(all
        .iter()
        .filter(|t| wanted.is_empty() || wanted.iter().any(|w| w == name(t)))
        .collect())
}

pub(super) fn print_json(value: Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(&value).expect("JSON values serialize")
    );
}
