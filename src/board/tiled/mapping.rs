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
//! start = { true = { element = "laser" }, false = { element = "floor" } }
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
    /// may include `element`.
    Translate(BTreeMap<String, toml::Table>),
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

    /// Adds property `name = value` to `out` as the mapping says: left out, renamed,
    /// translated into parameters (and perhaps the element), or as it is.
    pub fn apply(
        &self,
        name: &str,
        value: &toml::Value,
        out: &mut toml::Table,
    ) -> std::result::Result<(), String> {
        if self.drop.iter().any(|d| d == name) {
            return Ok(());
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
                let params = values.get(&key).ok_or_else(|| {
                    let known: Vec<&str> = values.keys().map(String::as_str).collect();
                    format!(
                        "property `{name}` = {value} has no translation in {} (it translates {})",
                        self.file,
                        known.join(", ")
                    )
                })?;
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
        Ok(())
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
