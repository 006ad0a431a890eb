//! `rally variants`: the variants of the variants folder, with their parameters, the steps
//! they add and what they build on; as text, or with `--json` (docs/formats.md, "Catalogues
//! as JSON"). Names given on the command line keep only those variants.

use super::catalogue::{chosen, layers_json, layers_line, params_json, params_lines, print_json};
use super::completions::variant_names;
use super::output::JSON_VERSION;
use crate::error::Result;
use crate::script::RuleFolders;
use crate::text::clean_line;
use clap_complete::ArgValueCompleter;
use serde_json::json;

/// List the variants, with parameters
#[derive(clap::Args)]
pub struct Args {
    /// Only these variants [default: all]
    #[arg(value_name = "VARIANT", add = ArgValueCompleter::new(variant_names))]
    names: Vec<String>,
    /// Print them as JSON
    #[arg(long)]
    json: bool,
}

impl Args {
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        variants(&self.names, self.json, common).map(|()| true)
    }
}

fn variants(names: &[String], as_json: bool, common: &RuleFolders) -> Result<()> {
    let (layers, found) = common.variants(None)?;
    let found = chosen(&found, |(_, v)| &v.name, names, "variant")?;
    // The folder variants came from before they were layered: the project's, else the
    // built-in one (kept for readers of the JSON; `layer` says where each comes from).
    let folder = layers
        .iter()
        .rev()
        .filter_map(|l| l.variants.as_ref())
        .find(|dir| crate::script::layers::holds_variants(dir))
        .map_or("none".to_string(), |dir| crate::files::describe_folder(dir));
    if as_json {
        print_json(json!({
            "version": JSON_VERSION,
            "folder": folder,
            "layers": layers_json(&layers),
            "variants": found.iter().map(|(offered, v)| json!({
                "name": v.name,
                "layer": layers[v.layer].to_string(),
                "replaces": offered.replaces.as_ref().map(|(over, _)| layers[*over].to_string()),
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
    println!("{}", layers_line(&layers));
    println!("Variants ({}):", found.len());
    for (offered, v) in &found {
        println!("  {:<18} {}", v.name, clean_line(&v.description));
        println!(
            "      ({}{})",
            layers[v.layer],
            offered
                .replaces
                .as_ref()
                .map(|(over, _)| format!(", replaces {}", layers[*over]))
                .unwrap_or_default()
        );
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
