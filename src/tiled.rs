//! Boards drawn in the Tiled map editor: JSON maps (`.tmj`, `.json`) and XML maps (`.tmx`),
//! with embedded or external tilesets (`.tsj`/`.json`, `.tsx`), read into the same
//! [`Layout`] a TOML board gives, so the rest of rally cannot tell them apart.
//!
//! Which element a tile is comes from the tile itself: its class (Tiled's "Class", written
//! `type` or `class` in the files) is the element name and its custom properties are the
//! element's parameters. A tileset that names things differently gets a small mapping file
//! (`rally_mapping` property, TOML) that renames classes and properties or says outright what
//! a tile id is. Tiled's rotation flags give directions: a tile rotated 90° clockwise turns
//! its parameters' directions a quarter turn, as a rotated board in a course does. Every tile
//! layer adds its elements, like several legend entries on one square.
//!
//! Why not the `tiled` crate: it reads only the XML formats, and designers mostly save JSON;
//! one reader for both keeps the mapping identical. Both formats are read into the small
//! model below (with serde_json and roxmltree) and mapped by one function.

use crate::board::file::{legend_entries, Placement};
use crate::board::{Layout, Origin};
use crate::error::{Error, Result, Source};
use crate::geometry::Pos;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Tiled's flip flags in the high bits of a tile's gid.
const FLIP_H: u32 = 0x8000_0000;
const FLIP_V: u32 = 0x4000_0000;
const FLIP_D: u32 = 0x2000_0000;
const GID_MASK: u32 = 0x0FFF_FFFF;

/// Is this file a Tiled map (by its extension)?
pub fn is_map(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("tmj" | "tmx" | "json")
    )
}

struct Map {
    width: i32,
    height: i32,
    properties: toml::Table,
    tilesets: Vec<(u32, Tileset)>,
    layers: Vec<Layer>,
}

struct Layer {
    name: String,
    /// Where the layer is written, for messages.
    line: usize,
    gids: Vec<u32>,
}

struct Tileset {
    name: String,
    /// The file it is written in (the map, for an embedded tileset).
    file: PathBuf,
    tiles: BTreeMap<u32, TileDef>,
    properties: toml::Table,
}

#[derive(Default)]
struct TileDef {
    class: Option<String>,
    properties: toml::Table,
}

/// What a mapping file says about one tileset (`rally_mapping = "factory.rally.toml"`).
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Mapping {
    /// Tileset class → element: a name, `{ element = .., params.. }`, or a list of those.
    #[serde(default)]
    classes: BTreeMap<String, toml::Value>,
    /// Tile id → element(s), as in a board's legend; wins over the tile's class.
    #[serde(default)]
    tiles: BTreeMap<String, toml::Value>,
    /// Tileset property name → parameter name.
    #[serde(default)]
    properties: BTreeMap<String, String>,
}

/// Reads a Tiled map into a layout.
pub fn load(path: &Path) -> Result<Layout> {
    let source = Source::read(path)?;
    let map = if path.extension().is_some_and(|e| e == "tmx") {
        xml::map(&source)?
    } else {
        json::map(&source)?
    };
    let whole = |message: String| Error::File {
        file: path.to_path_buf(),
        message,
    };
    let map_mapping = mapping(&map.properties, path)?;
    let mut mappings = Vec::new();
    for (_, tileset) in &map.tilesets {
        mappings.push(match mapping(&tileset.properties, &tileset.file)? {
            Some(m) => Some(m),
            None => map_mapping
                .as_ref()
                .map(|(p, _)| read_mapping(p))
                .transpose()?,
        });
    }

    let mut placements = Vec::new();
    for layer in &map.layers {
        if layer.gids.len() != (map.width * map.height) as usize {
            return Err(whole(format!(
                "layer `{}` has {} tiles, the {}×{} map needs {}",
                layer.name,
                layer.gids.len(),
                map.width,
                map.height,
                map.width * map.height
            )));
        }
        let origin = Origin {
            file: path.to_path_buf(),
            line: layer.line,
            column: 1,
        };
        for (i, &raw) in layer.gids.iter().enumerate() {
            let gid = raw & GID_MASK;
            if gid == 0 {
                continue;
            }
            let at = Pos::new(i as i32 % map.width, i as i32 / map.width);
            let where_ = format!("layer `{}`, square {at}", layer.name);
            let Some(index) = map.tilesets.iter().rposition(|(first, _)| *first <= gid) else {
                return Err(origin.error(format!("{where_}: tile {gid} is in no tileset")));
            };
            let (first, tileset) = &map.tilesets[index];
            let id = gid - first;
            let entries = elements_of(tileset, id, mappings[index].as_ref().map(|(_, m)| m))
                .map_err(|m| origin.error(format!("{where_}: {m}")))?;
            let has_params = entries.iter().any(|(_, p)| !p.is_empty());
            let quarter_turns = match (raw & FLIP_H != 0, raw & FLIP_V != 0, raw & FLIP_D != 0) {
                (false, false, false) => 0,
                (true, false, true) => 1,
                (true, true, false) => 2,
                (false, true, true) => 3,
                // A mirror image has no meaning for an element without parameters (a pit).
                _ if !has_params => 0,
                _ => {
                    return Err(origin.error(format!(
                        "{where_}: tile {id} of tileset `{}` is flipped; elements can be rotated but not mirrored (use Tiled's rotate, Z / Shift+Z)",
                        tileset.name
                    )))
                }
            };
            for (element, params) in entries {
                placements.push(Placement {
                    element,
                    at,
                    params,
                    quarter_turns,
                    origin: origin.clone(),
                });
            }
        }
    }
    let text = |key: &str| match map.properties.get(key) {
        Some(toml::Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    let mut files = vec![path.to_path_buf()];
    for (_, t) in &map.tilesets {
        if !files.contains(&t.file) {
            files.push(t.file.clone());
        }
    }
    files.extend(
        mappings
            .iter()
            .flatten()
            .map(|(p, _)| p.clone())
            .chain(map_mapping.map(|(p, _)| p)),
    );
    files.dedup();
    Ok(Layout {
        name: text("name").unwrap_or_else(|| {
            path.file_stem()
                .map_or("board".into(), |s| s.to_string_lossy().into())
        }),
        description: text("description").unwrap_or_default(),
        width: map.width,
        height: map.height,
        placements,
        files,
        parts: Vec::new(),
    })
}

/// The elements (with parameters) tile `id` of `tileset` stands for.
fn elements_of(
    tileset: &Tileset,
    id: u32,
    mapping: Option<&Mapping>,
) -> std::result::Result<Vec<(String, toml::Table)>, String> {
    let tile = tileset.tiles.get(&id);
    let mut properties = toml::Table::new();
    for (name, value) in tile.map(|t| &t.properties).into_iter().flatten() {
        let name = mapping.and_then(|m| m.properties.get(name)).unwrap_or(name);
        properties.insert(name.clone(), value.clone());
    }
    let class = tile.and_then(|t| t.class.clone());
    let named = properties.remove("element").map(|v| match v {
        toml::Value::String(s) => Ok(s),
        _ => Err("property `element` must be text".to_string()),
    });
    let mut entries = match (mapping.and_then(|m| m.tiles.get(&id.to_string())), named) {
        (Some(entry), _) => legend_entries(entry)?,
        (None, Some(name)) => vec![(name?, toml::Table::new())],
        (None, None) => {
            let class = class.ok_or_else(|| {
                format!(
                    "tile {id} of tileset `{}` has no class: give it the element's name as its Class in Tiled, an `element` property, or map it in a rally_mapping file",
                    tileset.name
                )
            })?;
            match mapping.and_then(|m| m.classes.get(&class)) {
                Some(entry) => legend_entries(entry)?,
                None => vec![(class, toml::Table::new())],
            }
        }
    };
    // The tile's own properties are the parameters of its (first) element.
    if let Some((_, params)) = entries.first_mut() {
        params.extend(properties);
    }
    Ok(entries)
}

/// The mapping file a `rally_mapping` property names (relative to the file it is set in).
fn mapping(properties: &toml::Table, file: &Path) -> Result<Option<(PathBuf, Mapping)>> {
    match properties.get("rally_mapping") {
        None => Ok(None),
        Some(toml::Value::String(name)) => {
            let path = file.parent().unwrap_or(Path::new(".")).join(name);
            Ok(Some(read_mapping(&path)?))
        }
        Some(_) => Err(Error::File {
            file: file.to_path_buf(),
            message: "property `rally_mapping` must be a file name".into(),
        }),
    }
}

fn read_mapping(path: &Path) -> Result<(PathBuf, Mapping)> {
    let source = Source::read(path)?;
    Ok((path.to_path_buf(), source.parse_toml()?))
}

/// A custom property's value. Text that looks like a TOML list or table (`[1, 3, 5]`,
/// `{ N = "right" }`) is read as one, since Tiled has no list properties.
fn property(kind: &str, value: &str) -> std::result::Result<toml::Value, String> {
    let bad = |what: &str| format!("`{value}` is not {what}");
    Ok(match kind {
        "int" | "object" => toml::Value::Integer(value.parse().map_err(|_| bad("a whole number"))?),
        "float" => toml::Value::Float(value.parse().map_err(|_| bad("a number"))?),
        "bool" => toml::Value::Boolean(value.parse().map_err(|_| bad("true or false"))?),
        _ => {
            let trimmed = value.trim();
            if trimmed.starts_with('[') || trimmed.starts_with('{') {
                let table: toml::Table = format!("v = {trimmed}")
                    .parse()
                    .map_err(|e: toml::de::Error| format!("`{value}`: {}", e.message()))?;
                table["v"].clone()
            } else {
                toml::Value::String(value.to_string())
            }
        }
    })
}

fn read_tileset_file(path: &Path) -> Result<Tileset> {
    let source = Source::read(path)?;
    if path.extension().is_some_and(|e| e == "tsx") {
        let doc = xml::parse(&source)?;
        xml::tileset(&source, doc.root_element(), path)
    } else {
        let value = json::parse(&source)?;
        json::tileset(&value, path).map_err(|m| source_error(&source, m))
    }
}

fn source_error(source: &Source, message: String) -> Error {
    Error::File {
        file: source.path.clone(),
        message,
    }
}

/// The JSON formats (`.tmj`/`.json` maps, `.tsj`/`.json` tilesets).
mod json {
    use super::*;

    pub fn parse(source: &Source) -> Result<Value> {
        serde_json::from_str(&source.text).map_err(|e| Error::At {
            file: source.path.clone(),
            line: e.line(),
            column: e.column(),
            message: format!("not a Tiled JSON file: {e}"),
        })
    }

    pub fn map(source: &Source) -> Result<Map> {
        let v = parse(source)?;
        let err = |m: String| source_error(source, m);
        check_orthogonal(&v).map_err(err)?;
        let size = |k: &str| {
            v[k].as_i64()
                .map(|n| n as i32)
                .ok_or_else(|| err(format!("the map has no `{k}`")))
        };
        let (width, height) = (size("width")?, size("height")?);
        let mut tilesets = Vec::new();
        for t in v["tilesets"].as_array().into_iter().flatten() {
            let first = t["firstgid"].as_u64().unwrap_or(1) as u32;
            let tileset = match t["source"].as_str() {
                Some(file) => {
                    read_tileset_file(&source.path.parent().unwrap_or(Path::new(".")).join(file))?
                }
                None => tileset(t, &source.path).map_err(err)?,
            };
            tilesets.push((first, tileset));
        }
        tilesets.sort_by_key(|(first, _)| *first);
        let mut layers = Vec::new();
        collect_layers(source, &v["layers"], &mut layers)?;
        Ok(Map {
            width,
            height,
            properties: properties(&v["properties"]).map_err(err)?,
            tilesets,
            layers,
        })
    }

    fn check_orthogonal(v: &Value) -> std::result::Result<(), String> {
        if v["orientation"].as_str().is_some_and(|o| o != "orthogonal") {
            return Err("only orthogonal maps can be boards".into());
        }
        if v["infinite"].as_bool() == Some(true) {
            return Err(
                "infinite maps cannot be boards: uncheck Infinite in Map Properties".into(),
            );
        }
        Ok(())
    }

    fn collect_layers(source: &Source, layers: &Value, out: &mut Vec<Layer>) -> Result<()> {
        for layer in layers.as_array().into_iter().flatten() {
            let name = layer["name"].as_str().unwrap_or("").to_string();
            match layer["type"].as_str() {
                Some("group") => collect_layers(source, &layer["layers"], out)?,
                Some("tilelayer") => {
                    // The line of the layer's name, so messages point into the file.
                    let line = source
                        .text
                        .find(&format!("\"name\":\"{name}\""))
                        .or_else(|| source.text.find(&format!("\"name\": \"{name}\"")))
                        .map_or(1, |offset| source.locate(offset).0);
                    let gids = match &layer["data"] {
                        Value::Array(items) => items
                            .iter()
                            .map(|g| g.as_u64().unwrap_or(0) as u32)
                            .collect(),
                        _ => {
                            return Err(Error::At {
                                file: source.path.clone(),
                                line,
                                column: 1,
                                message: format!(
                                    "layer `{name}`: tile data must be saved as CSV (Map Properties → Tile Layer Format)"
                                ),
                            })
                        }
                    };
                    out.push(Layer { name, line, gids });
                }
                _ => {} // object and image layers hold no board elements
            }
        }
        Ok(())
    }

    pub fn tileset(t: &Value, file: &Path) -> std::result::Result<Tileset, String> {
        let name = t["name"].as_str().unwrap_or("").to_string();
        let mut tiles = BTreeMap::new();
        for tile in t["tiles"].as_array().into_iter().flatten() {
            let id = tile["id"]
                .as_u64()
                .ok_or_else(|| format!("tileset `{name}`: a tile has no id"))?
                as u32;
            let class = tile["type"]
                .as_str()
                .or_else(|| tile["class"].as_str())
                .filter(|c| !c.is_empty())
                .map(str::to_string);
            let properties = properties(&tile["properties"])
                .map_err(|m| format!("tileset `{name}`, tile {id}: {m}"))?;
            tiles.insert(id, TileDef { class, properties });
        }
        Ok(Tileset {
            properties: properties(&t["properties"])
                .map_err(|m| format!("tileset `{name}`: {m}"))?,
            name,
            file: file.to_path_buf(),
            tiles,
        })
    }

    fn properties(list: &Value) -> std::result::Result<toml::Table, String> {
        let mut out = toml::Table::new();
        for p in list.as_array().into_iter().flatten() {
            let name = p["name"].as_str().unwrap_or("").to_string();
            let kind = p["type"].as_str().unwrap_or("string");
            let value = match &p["value"] {
                Value::String(s) => property(kind, s),
                Value::Bool(b) => Ok(toml::Value::Boolean(*b)),
                Value::Number(n) if n.is_i64() => Ok(toml::Value::Integer(n.as_i64().unwrap())),
                Value::Number(n) => Ok(toml::Value::Float(n.as_f64().unwrap_or(0.0))),
                other => toml::Value::try_from(other).map_err(|e| e.to_string()),
            }
            .map_err(|m| format!("property `{name}`: {m}"))?;
            out.insert(name, value);
        }
        Ok(out)
    }
}

/// The XML formats (`.tmx` maps, `.tsx` tilesets).
mod xml {
    use super::*;
    use roxmltree::{Document, Node};

    pub fn parse(source: &Source) -> Result<Document<'_>> {
        Document::parse(&source.text).map_err(|e| {
            let pos = e.pos();
            Error::At {
                file: source.path.clone(),
                line: pos.row as usize,
                column: pos.col as usize,
                message: format!("not a Tiled XML file: {e}"),
            }
        })
    }

    fn line(source: &Source, node: Node) -> usize {
        source.locate(node.range().start).0
    }

    fn at(source: &Source, node: Node, message: String) -> Error {
        Error::At {
            file: source.path.clone(),
            line: line(source, node),
            column: 1,
            message,
        }
    }

    pub fn map(source: &Source) -> Result<Map> {
        let doc = parse(source)?;
        let root = doc.root_element();
        if root
            .attribute("orientation")
            .is_some_and(|o| o != "orthogonal")
        {
            return Err(at(
                source,
                root,
                "only orthogonal maps can be boards".into(),
            ));
        }
        if root.attribute("infinite") == Some("1") {
            return Err(at(
                source,
                root,
                "infinite maps cannot be boards: uncheck Infinite in Map Properties".into(),
            ));
        }
        let size = |k: &str| {
            root.attribute(k)
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| at(source, root, format!("the map has no `{k}`")))
        };
        let (width, height) = (size("width")?, size("height")?);
        let mut tilesets = Vec::new();
        for t in root.children().filter(|n| n.has_tag_name("tileset")) {
            let first = t
                .attribute("firstgid")
                .and_then(|n| n.parse().ok())
                .unwrap_or(1);
            let tileset = match t.attribute("source") {
                Some(file) => {
                    read_tileset_file(&source.path.parent().unwrap_or(Path::new(".")).join(file))?
                }
                None => tileset(source, t, &source.path)?,
            };
            tilesets.push((first, tileset));
        }
        tilesets.sort_by_key(|(first, _)| *first);
        let mut layers = Vec::new();
        collect_layers(source, root, &mut layers)?;
        Ok(Map {
            width,
            height,
            properties: properties(source, root)?,
            tilesets,
            layers,
        })
    }

    fn collect_layers(source: &Source, parent: Node, out: &mut Vec<Layer>) -> Result<()> {
        for node in parent.children().filter(Node::is_element) {
            match node.tag_name().name() {
                "group" => collect_layers(source, node, out)?,
                "layer" => {
                    let name = node.attribute("name").unwrap_or("").to_string();
                    let data = node
                        .children()
                        .find(|n| n.has_tag_name("data"))
                        .ok_or_else(|| at(source, node, format!("layer `{name}` has no data")))?;
                    let gids = match data.attribute("encoding") {
                        Some("csv") => data
                            .text()
                            .unwrap_or("")
                            .split(',')
                            .map(|g| g.trim().parse::<u32>())
                            .collect::<std::result::Result<Vec<_>, _>>()
                            .map_err(|e| at(source, data, format!("layer `{name}`: {e}")))?,
                        None => data
                            .children()
                            .filter(|n| n.has_tag_name("tile"))
                            .map(|t| t.attribute("gid").and_then(|g| g.parse().ok()).unwrap_or(0))
                            .collect(),
                        Some(_) => {
                            return Err(at(
                                source,
                                data,
                                format!("layer `{name}`: tile data must be saved as CSV (Map Properties → Tile Layer Format)"),
                            ))
                        }
                    };
                    out.push(Layer {
                        name,
                        line: line(source, node),
                        gids,
                    });
                }
                _ => {}
            }
        }
        Ok(())
    }

    pub fn tileset(source: &Source, t: Node, file: &Path) -> Result<Tileset> {
        let name = t.attribute("name").unwrap_or("").to_string();
        let mut tiles = BTreeMap::new();
        for tile in t.children().filter(|n| n.has_tag_name("tile")) {
            let id = tile
                .attribute("id")
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| at(source, tile, format!("tileset `{name}`: a tile has no id")))?;
            let class = tile
                .attribute("type")
                .or_else(|| tile.attribute("class"))
                .filter(|c| !c.is_empty())
                .map(str::to_string);
            tiles.insert(
                id,
                TileDef {
                    class,
                    properties: properties(source, tile)?,
                },
            );
        }
        Ok(Tileset {
            properties: properties(source, t)?,
            name,
            file: file.to_path_buf(),
            tiles,
        })
    }

    /// The `<properties>` directly inside `node`.
    fn properties(source: &Source, node: Node) -> Result<toml::Table> {
        let mut out = toml::Table::new();
        let Some(list) = node.children().find(|n| n.has_tag_name("properties")) else {
            return Ok(out);
        };
        for p in list.children().filter(|n| n.has_tag_name("property")) {
            let name = p.attribute("name").unwrap_or("").to_string();
            let value = if p.attribute("type") == Some("class") {
                toml::Value::Table(properties(source, p)?)
            } else {
                // Multi-line text is written as the element's text instead of `value`.
                let text = p.attribute("value").or_else(|| p.text()).unwrap_or("");
                property(p.attribute("type").unwrap_or("string"), text)
                    .map_err(|m| at(source, p, format!("property `{name}`: {m}")))?
            };
            out.insert(name, value);
        }
        Ok(out)
    }
}
