//! `rally elements`: the board elements the scripts define, with their parameters, then the
//! rules and the order of play; as text, or with `--json` (docs/formats.md, "Catalogues as
//! JSON"). Names given on the command line keep only those elements.

use super::catalogue::{
    chosen, from_words, layers_json, layers_line, params_json, params_lines, print_json,
};
use super::completions::element_names;
use super::output::JSON_VERSION;
use crate::error::Result;
use crate::script::RuleFolders;
use crate::text::clean_line;
use clap_complete::ArgValueCompleter;
use serde_json::json;

/// List the board elements the scripts define, with parameters, and the order of play
#[derive(clap::Args)]
pub struct Args {
    /// Only these elements [default: all]
    #[arg(value_name = "ELEMENT", add = ArgValueCompleter::new(element_names))]
    names: Vec<String>,
    /// Print them as JSON
    #[arg(long)]
    json: bool,
}

impl Args {
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        elements(&self.names, self.json, common).map(|()| true)
    }
}

fn elements(names: &[String], as_json: bool, common: &RuleFolders) -> Result<()> {
    let rules = common.rules(None, Vec::new())?;
    let elements = chosen(&rules.elements, |e| &e.name, names, "element")?;
    let layer = |i: usize| rules.layers[i].to_string();
    let replaces = |kind: &str, name: &str| {
        rules
            .replacement(kind, name)
            .map(|r| rules.layers[r.over].to_string())
    };
    if as_json {
        print_json(json!({
            "version": JSON_VERSION,
            "layers": layers_json(&rules.layers),
            "elements": elements.iter().map(|e| json!({
                "name": e.name,
                "describe": e.describe,
                "file": e.file,
                "layer": layer(e.layer),
                "replaces": replaces("element", &e.name),
                "params": params_json(&e.params),
            })).collect::<Vec<_>>(),
            "rules": rules.rules.iter().map(|r| json!({
                "name": r.name, "describe": r.describe, "file": r.file,
                "layer": layer(r.layer), "replaces": replaces("rule", &r.name),
            })).collect::<Vec<_>>(),
            "steps": rules.order.iter().map(|s| json!({
                "name": s.name, "segment": s.segment.name(), "describe": s.describe,
            })).collect::<Vec<_>>(),
        }));
        return Ok(());
    }
    let from = |kind: &str, name: &str, layer: usize, file: &str| {
        from_words(&rules.layers, layer, file, rules.replacement(kind, name))
    };
    println!("{}\n", layers_line(&rules.layers));
    println!("Elements ({}):", elements.len());
    for e in &elements {
        println!("  {:<14} {}", e.name, clean_line(&e.describe));
        println!("      ({})", from("element", &e.name, e.layer, &e.file));
        for line in params_lines(&e.params) {
            println!("{line}");
        }
    }
    if !names.is_empty() {
        return Ok(());
    }
    println!("\nRules:");
    for r in &rules.rules {
        println!(
            "  {:<14} {} ({})",
            r.name,
            clean_line(&r.describe),
            from("rule", &r.name, r.layer, &r.file)
        );
    }
    println!("\nOptions ({}): see `rally options`", rules.options.len());
    println!("\nOrder of play (steps scripts can attach to):");
    for s in &rules.order {
        println!("  {:<15} {:<15} {}", s.name, s.segment.name(), s.describe);
    }
    Ok(())
}
