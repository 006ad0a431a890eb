//! Mapping files: how the tiles of a tileset made for another game become rally's elements,
//! without editing that tileset. TOML, given with `--tiled-mapping FILE`, named by a
//! tileset's or map's `rally_mapping` property, or found beside the map as
//! [`BESIDE`] (docs/tiled.md):
//!
//! ```toml
//! north = "bottom"                     # the map's top row is the south edge
//! drop = ["crossroad"]                 # properties that mean nothing here
//! [tiles]                              # a tile id → element(s), as a board's legend
//! 12 = [{ element = "flag", number = 1 }, "repair"]
//! [classes]                            # a class → element(s)
//! hole = "pit"
//! [properties]                         # a property → a parameter, or per value: parameters
//! heading = "dir"
//! direction_out = { -90 = { turn = "left" }, 0 = {}, 90 = { turn = "right" } }
//! start = { true = { element = "laser" }, false = [] }   # []: no element
//! [[match]]                            # several properties (and the class) at once
//! class = "belt"
//! properties = { crossroad = true, direction_out = 90 }
//! place = { element = "conveyor", dir = "E", turns = { N = "right" } }
//! ```

use crate::error::Result;
use crate::files::Source;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The mapping file found beside a map when nothing names one.
pub const BESIDE: &str = "rally-mapping.toml";

#[derive(Deserialize, Default, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct Mapping {
    /// Which edge of the map, as Tiled shows it, is north.
    pub north: Option<North>,
    /// Properties left out.
    #[serde(default)]
    drop: Vec<String>,
    /// Tile id → element(s); wins over everything else.
    #[serde(default)]
    tiles: BTreeMap<String, toml::Value>,
    /// Class → element(s).
    #[serde(default)]
    classes: BTreeMap<String, toml::Value>,
    #[serde(default)]
    properties: BTreeMap<String, Rule>,
    /// Rules matching several properties (and the class) at once: `[[match]]`.
    #[serde(default, rename = "match")]
    matches: Vec<MatchRule>,
    /// The file, as messages name it.
    #[serde(skip)]
    file: String,
}

/// What becomes of one property.
#[derive(Deserialize, Clone, Debug)]
#[serde(untagged)]
enum Rule {
    /// It is this parameter.
    Rename(String),
    /// Each of its values (as text: `90`, `true`, `"N"`) stands for these parameters, which
    /// may include `element`, or, written `[]`, for no element at all.
    Translate(BTreeMap<String, toml::Value>),
}

/// A `[[match]]` rule: a tile whose class (if given) and properties all have these values is
/// the elements `place` gives (a legend entry: a name, a table, a list, `[]` for none).
#[derive(Deserialize, Clone, Debug)]
#[serde(deny_unknown_fields)]
pub struct MatchRule {
    class: Option<String>,
    #[serde(default)]
    properties: toml::Table,
    pub place: toml::Value,
}

impl MatchRule {
    fn matches(&self, class: Option<&str>, properties: &toml::Table) -> bool {
        self.class.as_deref().is_none_or(|c| Some(c) == class)
            && self.properties.iter().all(|(name, want)| {
                properties
                    .get(name)
                    .is_some_and(|have| value_key(have) == value_key(want))
            })
    }

    /// Does this rule use up property `name` (so it is no parameter)?
    pub fn uses(&self, name: &str) -> bool {
        self.properties.contains_key(name)
    }

    /// How messages and `rally render --list` name the rule.
    fn describe(&self) -> String {
        let mut parts: Vec<String> = self.class.iter().map(|c| format!("class = {c}")).collect();
        parts.extend(
            self.properties
                .iter()
                .map(|(k, v)| format!("{k} = {}", value_key(v))),
        );
        parts.join(", ")
    }
}

/// What a property's value stands for, once the mapping is applied.
#[derive(Debug, PartialEq)]
pub enum Applied {
    /// Parameters (perhaps renamed or translated) were added.
    Params,
    /// A translation gives `[]`: the tile places no element.
    Nothing,
}

#[derive(Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum North {
    /// Tiled's top row is the north edge (y counts from the north, as in rally).
    Top,
    /// Tiled's top row is the south edge (y counts from the south).
    Bottom,
}

impl North {
    /// From a property's value: `"top"` or `"bottom"`.
    pub fn parse(value: &toml::Value) -> std::result::Result<North, String> {
        match value.as_str() {
            Some("top") => Ok(North::Top),
            Some("bottom") => Ok(North::Bottom),
            _ => Err(format!("`{value}`: expected \"top\" or \"bottom\"")),
        }
    }
}

/// Reads a mapping file.
pub fn read(path: &Path) -> Result<(PathBuf, Mapping)> {
    let source = Source::read(path)?;
    let mut mapping: Mapping = source.parse_toml()?;
    if let Some(i) = mapping
        .matches
        .iter()
        .position(|r| r.class.is_none() && r.properties.is_empty())
    {
        return Err(crate::error::Error::File {
            file: path.to_path_buf(),
            message: format!(
                "[[match]] {} gives neither `class` nor `properties`: it would match every tile (use [classes] or [tiles])",
                i + 1
            ),
        });
    }
    mapping.file = crate::files::display_path(path);
    Ok((path.to_path_buf(), mapping))
}

/// A property's value as a key of a translation table: `90`, `true`, `N`.
fn value_key(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Mapping {
    pub fn tile(&self, id: u32) -> Option<&toml::Value> {
        self.tiles.get(&id.to_string())
    }

    pub fn class(&self, class: &str) -> Option<&toml::Value> {
        self.classes.get(class)
    }

    /// The `[[match]]` rule a tile of `class` with `properties` matches, with its description
    /// (`[[match]] 2 (class = belt, crossroad = true)`); an error if several match.
    pub fn matching(
        &self,
        class: Option<&str>,
        properties: &toml::Table,
    ) -> std::result::Result<Option<(&MatchRule, String)>, String> {
        let named = |i: usize, r: &MatchRule| format!("[[match]] {} ({})", i + 1, r.describe());
        let mut found = self
            .matches
            .iter()
            .enumerate()
            .filter(|(_, r)| r.matches(class, properties));
        let Some((i, rule)) = found.next() else {
            return Ok(None);
        };
        let others: Vec<String> = found.map(|(j, r)| named(j, r)).collect();
        if !others.is_empty() {
            return Err(format!(
                "the tile matches several rules of {}: {} and {}; make them exclusive (give one a property the other does not match)",
                self.file,
                named(i, rule),
                others.join(" and ")
            ));
        }
        Ok(Some((rule, named(i, rule))))
    }

    /// Adds property `name = value` to `out` as the mapping says: left out, renamed,
    /// translated into parameters (and perhaps the element), or as it is.
    pub fn apply(
        &self,
        name: &str,
        value: &toml::Value,
        out: &mut toml::Table,
    ) -> std::result::Result<Applied, String> {
        if self.drop.iter().any(|d| d == name) {
            return Ok(Applied::Params);
        }
        match self.properties.get(name) {
            None => {
                out.insert(name.to_string(), value.clone());
            }
            Some(Rule::Rename(to)) => {
                out.insert(to.clone(), value.clone());
            }
            Some(Rule::Translate(values)) => {
                let key = value_key(value);
                let translated = values.get(&key).ok_or_else(|| {
                    let known: Vec<&str> = values.keys().map(String::as_str).collect();
                    format!(
                        "property `{name}` = {value} has no translation in {} (it translates {})",
                        self.file,
                        known.join(", ")
                    )
                })?;
                let params = match translated {
                    toml::Value::Table(params) => params,
                    toml::Value::Array(a) if a.is_empty() => return Ok(Applied::Nothing),
                    other => {
                        return Err(format!(
                            "property `{name}` = {value} is translated to {other} in {}: a translation is a table of parameters, or [] for no element",
                            self.file
                        ))
                    }
                };
                for (param, v) in params {
                    if param == "element" && out.get("element").is_some_and(|e| e != v) {
                        return Err(format!(
                            "property `{name}` = {value} names element {v}, but another property named {}",
                            out["element"]
                        ));
                    }
                    out.insert(param.clone(), v.clone());
                }
            }
        }
        Ok(Applied::Params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_are_dropped_renamed_and_translated() {
        let mapping: Mapping = toml::from_str(
            r#"
drop = ["crossroad"]
[properties]
heading = "dir"
direction_out = { -90 = { turn = "left" }, 0 = {}, 90 = { turn = "right" } }
start = { true = { element = "laser" } }
"#,
        )
        .unwrap();
        let mut out = toml::Table::new();
        for (name, value) in [
            ("crossroad", toml::Value::Boolean(true)),
            ("heading", toml::Value::from("N")),
            ("direction_out", toml::Value::Integer(-90)),
            ("start", toml::Value::Boolean(true)),
            ("express", toml::Value::Boolean(false)),
        ] {
            mapping.apply(name, &value, &mut out).unwrap();
        }
        let expected: toml::Table =
            toml::from_str("dir = \"N\"\nturn = \"left\"\nelement = \"laser\"\nexpress = false")
                .unwrap();
        assert_eq!(out, expected);
        let e = mapping
            .apply("direction_out", &toml::Value::Integer(45), &mut out)
            .unwrap_err();
        assert!(
            e.contains("property `direction_out` = 45 has no translation"),
            "{e}"
        );
        assert!(e.contains("-90, 0, 90"), "{e}");
    }
}
