//! `rally elements`, `rally options` and `rally variants`: what is loaded, with parameters
//! and descriptions, taken from the scripts themselves; as text, or with `--json` in the
//! format of docs/formats.md ("Catalogues as JSON"). Names given on the command line keep
//! only those entries; an unknown name is an error with a suggestion.

use super::output::JSON_VERSION;
use crate::board::params::{Kind, ParamSpecs};
use crate::error::{Error, Result};
use crate::script::variant::Variant;
use crate::script::RuleFolders;
use crate::text::clean_line;
use serde_json::{json, Value};

fn params_lines(params: &ParamSpecs) -> Vec<String> {
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

fn params_json(params: &ParamSpecs) -> Value {
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

/// The entries whose names were asked for (all when none were), in the catalogue's order;
/// a name that matches nothing is an error naming the known ones.
fn chosen<'a, T>(
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

fn print_json(value: Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(&value).expect("JSON values serialize")
    );
}

pub fn elements(names: &[String], as_json: bool, common: &RuleFolders) -> Result<()> {
    let rules = common.rules(None, Vec::new())?;
    let elements = chosen(&rules.elements, |e| &e.name, names, "element")?;
    if as_json {
        print_json(json!({
            "version": JSON_VERSION,
            "elements": elements.iter().map(|e| json!({
                "name": e.name,
                "describe": e.describe,
                "file": e.file,
                "params": params_json(&e.params),
            })).collect::<Vec<_>>(),
            "rules": rules.rules.iter().map(|r| json!({
                "name": r.name, "describe": r.describe, "file": r.file,
            })).collect::<Vec<_>>(),
            "steps": rules.order.iter().map(|s| json!({
                "name": s.name, "segment": s.segment.name(), "describe": s.describe,
            })).collect::<Vec<_>>(),
        }));
        return Ok(());
    }
    println!("Elements ({}):", elements.len());
    for e in &elements {
        println!("  {:<14} {}", e.name, clean_line(&e.describe));
        println!("      ({})", e.file);
        for line in params_lines(&e.params) {
            println!("{line}");
        }
    }
    if !names.is_empty() {
        return Ok(());
    }
    println!("\nRules:");
    for r in &rules.rules {
        println!("  {:<14} {} ({})", r.name, clean_line(&r.describe), r.file);
    }
    println!("\nOptions ({}): see `rally options`", rules.options.len());
    println!("\nOrder of play (steps scripts can attach to):");
    for s in &rules.order {
        println!("  {:<15} {:<15} {}", s.name, s.segment.name(), s.describe);
    }
    Ok(())
}

pub fn options(names: &[String], as_json: bool, common: &RuleFolders) -> Result<()> {
    let rules = common.rules(None, Vec::new())?;
    let mut options = chosen(&rules.options, |o| &o.name, names, "option card")?;
    options.sort_by(|a, b| a.name.cmp(&b.name));
    if as_json {
        print_json(json!({
            "version": JSON_VERSION,
            "options": options.iter().map(|o| json!({
                "name": o.name, "describe": o.describe, "uses": o.uses, "file": o.file,
            })).collect::<Vec<_>>(),
        }));
        return Ok(());
    }
    println!("Options ({}):", options.len());
    for o in options {
        let uses = o.uses.map(|n| format!(" [{n} uses]")).unwrap_or_default();
        println!("  {:<22} {}{uses}", o.name, clean_line(&o.describe));
        println!("      ({})", o.file);
    }
    Ok(())
}

pub fn variants(names: &[String], as_json: bool, common: &RuleFolders) -> Result<()> {
    let (_, dir) = common.folders(None)?;
    let found = Variant::discover(&dir)?;
    let found = chosen(&found, |v| &v.name, names, "variant")?;
    if as_json {
        print_json(json!({
            "version": JSON_VERSION,
            "folder": crate::files::describe_folder(&dir),
            "variants": found.iter().map(|v| json!({
                "name": v.name,
                "description": v.description,
                "params": params_json(&v.params),
                "steps": v.steps.iter().map(|s| json!({
                    "name": s.name, "before": s.before, "after": s.after, "describe": s.describe,
                })).collect::<Vec<_>>(),
                "conflicts": v.conflicts,
                "files": v.files.iter().map(|f| crate::files::display_path(f)).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        }));
        return Ok(());
    }
    println!(
        "Variants in {} ({}):",
        crate::files::describe_folder(&dir),
        found.len()
    );
    for v in &found {
        println!("  {:<18} {}", v.name, clean_line(&v.description));
        for line in params_lines(&v.params) {
            println!("{line}");
        }
        for step in &v.steps {
            let (place, anchor) = match (&step.before, &step.after) {
                (Some(a), _) => ("before", a),
                (_, Some(a)) => ("after", a),
                _ => continue,
            };
            println!(
                "      adds step {} ({place} {anchor}){}",
                step.name,
                if step.describe.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", clean_line(&step.describe))
                }
            );
        }
        if !v.requires.is_empty() {
            println!(
                "      builds on (switched on before it): {}",
                v.requires.join(", ")
            );
        }
        if !v.conflicts.is_empty() {
            println!("      cannot be combined with: {}", v.conflicts.join(", "));
        }
        let files: Vec<String> = v
            .files
            .iter()
            .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        println!("      files: {}", files.join(", "));
    }
    Ok(())
}

/// `rally tiled-types`: Tiled's Custom Types for every loaded element (src/formats/tiled/types.rs).
pub fn tiled_types(output: Option<&std::path::Path>, common: &RuleFolders) -> Result<()> {
    let rules = common.rules(None, Vec::new())?;
    let text =
        serde_json::to_string_pretty(&crate::formats::tiled_types::custom_types(&rules.elements))
            .map_err(|e| crate::error::Error::Other(e.to_string()))?;
    match output {
        Some(path) => super::output::write_file(path, format!("{text}\n").as_bytes()),
        None => {
            println!("{text}");
            Ok(())
        }
    }
}
