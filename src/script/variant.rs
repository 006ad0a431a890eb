//! House-rule variants: a folder `variants/NAME/` with a `variant.toml` (what it is, its Lua
//! files, its parameters, the steps it adds, what it cannot be combined with) and its scripts.
//! Nothing of a variant is loaded unless a game or scenario switches it on.

use crate::board::params::{Kind, ParamSpec, ParamSpecs};
use crate::board::Origin;
use crate::error::{Error, Result};
use crate::files::Source;
use crate::order::NewStep;
use crate::script::layers::{Layer, Offered};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct VariantFile {
    name: String,
    description: String,
    #[serde(default)]
    files: Vec<String>,
    #[serde(default)]
    conflicts: Vec<String>,
    #[serde(default)]
    requires: Vec<String>,
    #[serde(default)]
    params: BTreeMap<String, Spanned<ParamFile>>,
    #[serde(default)]
    step: Vec<NewStep>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct ParamFile {
    kind: String,
    default: Spanned<toml::Value>,
    #[serde(default)]
    describe: String,
    min: Option<i64>,
    max: Option<i64>,
    #[serde(default)]
    choices: Vec<String>,
}

/// A variant as its folder describes it.
#[derive(Clone, Debug)]
pub struct Variant {
    pub name: String,
    pub description: String,
    pub dir: PathBuf,
    pub files: Vec<PathBuf>,
    pub conflicts: Vec<String>,
    /// Variants it builds on: switched on before it whenever it is.
    pub requires: Vec<String>,
    pub params: ParamSpecs,
    pub steps: Vec<NewStep>,
    /// The layer it comes from (an index into the rule set's layers: `super::layers`).
    pub layer: usize,
}

/// A variant switched on, with the parameter values a game or scenario set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Choice {
    pub name: String,
    pub params: toml::Table,
    /// Where the scenario or game file names it and sets each parameter, for errors; none
    /// when it came from elsewhere (`--variant`, a variant's `requires`).
    pub written: Option<Written>,
}

/// Where a [`Choice`] was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    pub name: Origin,
    pub params: BTreeMap<String, Origin>,
}

impl Choice {
    /// An error about the choice, at its name in the file that made it, if any.
    fn error(&self, message: String) -> Error {
        match &self.written {
            Some(w) => w.name.error(message),
            None => Error::Other(message),
        }
    }
}

impl Variant {
    pub fn load(dir: &Path) -> Result<Variant> {
        let source = Source::read(&dir.join("variant.toml"))?;
        let file: VariantFile = source.parse_toml()?;
        let whole = |message: String| Error::File {
            file: source.path.clone(),
            message,
        };
        let mut params = ParamSpecs::new();
        for (name, p) in file.params {
            let start = p.span().start;
            let at = |message: String| source.error_at(start, message);
            let p = p.into_inner();
            let kind = match p.kind.as_str() {
                "dir" => Kind::Dir,
                "rotation" => Kind::Rotation,
                "bool" => Kind::Bool,
                "int" => Kind::Int { min: p.min, max: p.max },
                "string" => Kind::Str { choices: p.choices },
                other => {
                    return Err(at(format!(
                        "parameter `{name}`: unknown kind `{other}`, expected dir, rotation, bool, int or string"
                    )))
                }
            };
            if let (Some(lo), Some(hi)) = (p.min, p.max) {
                if lo > hi {
                    return Err(at(format!(
                        "parameter `{name}`: min = {lo} is more than max = {hi}"
                    )));
                }
            }
            let default = kind.check(p.default.get_ref()).map_err(|e| {
                source.error_at(
                    p.default.span().start,
                    format!("parameter `{name}`: default: {e}"),
                )
            })?;
            params.insert(
                name,
                ParamSpec {
                    kind,
                    required: false,
                    default: Some(default),
                    describe: p.describe,
                },
            );
        }
        let files = file.files.iter().map(|f| dir.join(f)).collect::<Vec<_>>();
        for f in &files {
            // Anything there is read (and refused if it is not a regular file).
            if !crate::files::is_file(f) && !f.exists() {
                return Err(whole(format!(
                    "lists `{}`, which does not exist",
                    f.display()
                )));
            }
        }
        Ok(Variant {
            name: file.name,
            description: file.description,
            dir: dir.to_path_buf(),
            files,
            conflicts: file.conflicts,
            requires: file.requires,
            params,
            steps: file.step,
            layer: 0,
        })
    }

    /// The parameter values for a choice: defaults, overridden by what the choice sets. An
    /// error points at the parameter in the file that set it.
    pub fn resolve_params(&self, choice: &Choice) -> Result<Map<String, Value>> {
        crate::board::params::check_all(
            &self.params,
            &choice.params,
            &format!("variant {}", self.name),
        )
        .map_err(|e| {
            let message = e.message.replace("element `variant ", "variant `");
            let at = e
                .param
                .as_ref()
                .and_then(|p| choice.written.as_ref()?.params.get(p));
            match at {
                Some(origin) => origin.error(message),
                None => choice.error(message),
            }
        })
    }
}

/// `variants = [...]` in a scenario or game file, each name with where it is written.
pub type Names = Vec<Spanned<String>>;
/// `[variant.NAME]` tables in a scenario or game file, each key with where it is written.
pub type Settings = BTreeMap<Spanned<String>, BTreeMap<Spanned<String>, toml::Value>>;

/// The variants a scenario (`source`) switches on: its `variants = [...]`, each with the
/// parameters of its `[variant.NAME]` table. Parameters for a variant that is not switched
/// on are a mistake in a scenario, reported as such.
pub fn choices_from(names: &Names, settings: &Settings, source: &Source) -> Result<Vec<Choice>> {
    let (on, parked) = choices_and_parked(names, settings, source);
    match parked.first() {
        Some(stray) => Err(stray.error(format!(
            "[variant.{0}] sets parameters, but `{0}` is not in `variants`",
            stray.name
        ))),
        None => Ok(on),
    }
}

/// What a game file (`source`) says about variants: the choices it switches on (as
/// [`choices_from`]), and the **parked** settings, `[variant.NAME]` tables of variants it
/// does not switch on, which apply when `--variant`, a `rally sim` column or a sweep does
/// (docs/simulations.md): a designer keeps one file and compares settings.
pub fn choices_and_parked(
    names: &Names,
    settings: &Settings,
    source: &Source,
) -> (Vec<Choice>, Vec<Choice>) {
    let origin = |offset: usize| {
        let (line, column) = source.locate(offset);
        Origin {
            file: source.path.clone(),
            line,
            column,
        }
    };
    let choice = |name: &Spanned<String>| {
        let set = settings
            .iter()
            .find(|(key, _)| key.get_ref() == name.get_ref())
            .map(|(_, set)| set);
        let params = set
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.get_ref().clone(), v.clone()))
            .collect();
        let at = set
            .into_iter()
            .flatten()
            .map(|(k, _)| (k.get_ref().clone(), origin(k.span().start)))
            .collect();
        Choice {
            name: name.get_ref().clone(),
            params,
            written: Some(Written {
                name: origin(name.span().start),
                params: at,
            }),
        }
    };
    let on = names.iter().map(choice).collect();
    let parked = settings
        .keys()
        .filter(|name| !names.iter().any(|n| n.get_ref() == name.get_ref()))
        .map(choice)
        .collect();
    (on, parked)
}

/// `choices` plus the variants named on the command line (`--variant`), each once.
pub fn with_extra(choices: &[Choice], extra: &[String]) -> Vec<Choice> {
    with_extra_parked(choices, extra, &[])
}

/// `choices` plus the variants named in `extra`, each once, each with its `parked`
/// settings if the file has some ([`choices_and_parked`]).
pub fn with_extra_parked(choices: &[Choice], extra: &[String], parked: &[Choice]) -> Vec<Choice> {
    let mut all = choices.to_vec();
    for name in extra {
        if !all.iter().any(|c| &c.name == name) {
            all.push(
                parked
                    .iter()
                    .find(|p| &p.name == name)
                    .cloned()
                    .unwrap_or_else(|| Choice {
                        name: name.clone(),
                        ..Choice::default()
                    }),
            );
        }
    }
    all
}

/// The variants the layers offer, for [`select`]: each by name, and the layers, for errors.
pub struct Offer<'a> {
    pub offered: &'a [Offered],
    pub layers: &'a [Layer],
}

/// Finds the chosen variants among those the layers offer, each after the variants it
/// `requires`, and checks they can be combined. A required variant takes the parameters
/// `choices` give it, if any.
pub fn select(offer: &Offer, choices: &[Choice]) -> Result<Vec<(Variant, Map<String, Value>)>> {
    let mut selected: Vec<(Variant, Map<String, Value>)> = Vec::new();
    for choice in choices {
        add_with_requirements(offer, choices, choice, &mut Vec::new(), &mut selected)?;
    }
    Ok(selected)
}

/// Adds `choice` to `selected` after what it requires; `path` is the chain of requirements
/// being followed (a variant that requires itself, directly or not, is an error).
fn add_with_requirements(
    offer: &Offer,
    choices: &[Choice],
    choice: &Choice,
    path: &mut Vec<String>,
    selected: &mut Vec<(Variant, Map<String, Value>)>,
) -> Result<()> {
    if selected.iter().any(|(v, _)| v.name == choice.name) {
        return Ok(());
    }
    if path.contains(&choice.name) {
        return Err(Error::Other(format!(
            "variants require each other in a circle: {} → {}",
            path.join(" → "),
            choice.name
        )));
    }
    let Some(offered) = offer.offered.iter().find(|o| o.name == choice.name) else {
        let known: Vec<&str> = offer.offered.iter().map(|o| o.name.as_str()).collect();
        let wanted_by = match path.last() {
            Some(by) => format!(", required by `{by}`"),
            None => String::new(),
        };
        return Err(choice.error(format!(
            "unknown variant `{}`{}{wanted_by} (variants of the layers {}: {})",
            choice.name,
            crate::error::suggest(&choice.name, known.iter().copied()),
            super::layers::describe(offer.layers),
            if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            }
        )));
    };
    let mut variant = Variant::load(&offered.dir)?;
    variant.layer = offered.layer;
    path.push(choice.name.clone());
    for name in &variant.requires {
        let required = choices
            .iter()
            .find(|c| &c.name == name)
            .cloned()
            .unwrap_or_else(|| Choice {
                name: name.clone(),
                ..Choice::default()
            });
        add_with_requirements(offer, choices, &required, path, selected)?;
    }
    path.pop();
    for (other, _) in selected.iter() {
        if variant.conflicts.contains(&other.name) || other.conflicts.contains(&variant.name) {
            return Err(choice.error(format!(
                "variants `{}` and `{}` cannot be combined (one lists the other under `conflicts`)",
                other.name, variant.name
            )));
        }
    }
    let params = variant.resolve_params(choice)?;
    selected.push((variant, params));
    Ok(())
}

/// The switched-on variants that change nothing on `board`, each with the elements it
/// defines: none of those has a tile there, the variant declares no option card, and no rule
/// of its acts there ([`crate::script::RuleDef::acts`]: a rule acts when it replaced another,
/// or has handlers and is not limited by `only_with` to elements the board lacks). A
/// variant's new steps and parameters do nothing by themselves.
pub fn idle_on(
    board: &crate::board::Board,
    defs: &crate::script::Defs,
) -> Vec<(String, Vec<String>)> {
    let present = |element: &str| board.tiles.iter().any(|t| t.name == element);
    let mut idle = Vec::new();
    for (variant, _) in &defs.variants {
        let ours: Vec<String> = variant
            .files
            .iter()
            .map(|f| crate::files::display_path(f))
            .collect();
        let mine = |file: &String| ours.contains(file);
        let elements: Vec<String> = defs
            .elements
            .iter()
            .filter(|e| mine(&e.file))
            .map(|e| e.name.clone())
            .collect();
        let acts = elements.iter().any(|e| present(e))
            || defs.options.iter().any(|o| mine(&o.file))
            || defs.rules.iter().any(|r| mine(&r.file) && r.acts(&present));
        if !acts {
            idle.push((variant.name.clone(), elements));
        }
    }
    idle
}
