//! `rally elements`, `rally options` and `rally variants`: what is loaded, with parameters
//! and descriptions, taken from the scripts themselves.

use super::Common;
use crate::error::Result;
use crate::params::ParamSpecs;
use crate::variant::Variant;

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
                format!(" — {}", p.describe)
            };
            format!("      {name}: {} ({need}){describe}", p.kind.describe())
        })
        .collect()
}

pub fn elements(common: &Common) -> Result<()> {
    let rules = common.rules(None, Vec::new())?;
    println!("Elements ({}):", rules.elements.len());
    for e in &rules.elements {
        println!("  {:<14} {}", e.name, e.describe);
        println!("      ({})", e.file);
        for line in params_lines(&e.params) {
            println!("{line}");
        }
    }
    println!("\nRules:");
    for r in &rules.rules {
        println!("  {:<14} {} ({})", r.name, r.describe, r.file);
    }
    println!("\nOptions ({}): see `rally options`", rules.options.len());
    println!("\nOrder of play (steps scripts can attach to):");
    for s in &rules.order {
        println!("  {:<15} {:<15} {}", s.name, s.segment.name(), s.describe);
    }
    Ok(())
}

pub fn options(common: &Common) -> Result<()> {
    let rules = common.rules(None, Vec::new())?;
    println!("Options ({}):", rules.options.len());
    let mut options: Vec<_> = rules.options.iter().collect();
    options.sort_by(|a, b| a.name.cmp(&b.name));
    for o in options {
        let uses = o.uses.map(|n| format!(" [{n} uses]")).unwrap_or_default();
        println!("  {:<22} {}{uses}", o.name, o.describe);
        println!("      ({})", o.file);
    }
    Ok(())
}

pub fn variants(common: &Common) -> Result<()> {
    let (_, dir) = common.folders(None)?;
    let found = Variant::discover(&dir)?;
    println!(
        "Variants in {} ({}):",
        crate::files::describe_folder(&dir),
        found.len()
    );
    for v in &found {
        println!("  {:<18} {}", v.name, v.description);
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
                    format!(" — {}", step.describe)
                }
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

/// `rally tiled-types`: Tiled's Custom Types for every loaded element (src/tiled/types.rs).
pub fn tiled_types(output: Option<&std::path::Path>, common: &Common) -> Result<()> {
    let rules = common.rules(None, Vec::new())?;
    let text = serde_json::to_string_pretty(&crate::tiled::types::custom_types(&rules.elements))
        .map_err(|e| crate::error::Error::Other(e.to_string()))?;
    match output {
        Some(path) => crate::game::save::write_atomic(path, format!("{text}\n").as_bytes()),
        None => {
            println!("{text}");
            Ok(())
        }
    }
}
