//! `rally options`: the option cards the scripts define, with ammunition and descriptions; as
//! text, or with `--json` (docs/formats.md, "Catalogues as JSON"). Names given on the command
//! line keep only those cards.

use super::catalogue::{chosen, from_words, layers_json, layers_line, print_json};
use super::completions::option_names;
use super::output::JSON_VERSION;
use crate::error::Result;
use crate::script::RuleFolders;
use crate::text::clean_line;
use clap_complete::ArgValueCompleter;
use serde_json::json;

/// List the option cards the scripts define, with ammunition and descriptions
#[derive(clap::Args)]
pub struct Args {
    /// Only these option cards [default: all]
    #[arg(value_name = "OPTION", add = ArgValueCompleter::new(option_names))]
    names: Vec<String>,
    /// Print them as JSON
    #[arg(long)]
    json: bool,
}

impl Args {
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        options(&self.names, self.json, common).map(|()| true)
    }
}

fn options(names: &[String], as_json: bool, common: &RuleFolders) -> Result<()> {
    let rules = common.rules(None, Vec::new())?;
    let mut options = chosen(&rules.options, |o| &o.name, names, "option card")?;
    options.sort_by(|a, b| a.name.cmp(&b.name));
    let replaced = |name: &str| rules.replacement("option", name);
    if as_json {
        print_json(json!({
            "version": JSON_VERSION,
            "layers": layers_json(&rules.layers),
            "options": options.iter().map(|o| json!({
                "name": o.name, "describe": o.describe, "uses": o.uses, "file": o.file,
                "layer": rules.layers[o.layer].to_string(),
                "replaces": replaced(&o.name).map(|r| rules.layers[r.over].to_string()),
            })).collect::<Vec<_>>(),
        }));
        return Ok(());
    }
    println!("{}\n", layers_line(&rules.layers));
    println!("Options ({}):", options.len());
    for o in options {
        let uses = o.uses.map(|n| format!(" [{n} uses]")).unwrap_or_default();
        println!("  {:<22} {}{uses}", o.name, clean_line(&o.describe));
        println!(
            "      ({})",
            from_words(&rules.layers, o.layer, &o.file, replaced(&o.name))
        );
    }
    Ok(())
}
