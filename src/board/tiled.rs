//! Boards drawn in the Tiled map editor: JSON maps (`.tmj`, `.json`) and XML maps (`.tmx`),
//! with embedded or external tilesets (`.tsj`/`.json`, `.tsx`), read into the same
//! [`Layout`] a TOML board gives, so the rest of rally cannot tell them apart.
//!
//! Which element a tile is comes from the tile itself: its class (Tiled's "Class", written
//! `type` or `class` in the files) is the element name and its custom properties are the
//! element's parameters. A tileset made for another game gets a mapping file ([`mapping`])
//! that picks elements by tile id, class or property, renames, translates and drops
//! properties, and says where north is, without editing anybody's tileset. Tiled's rotation
//! flags give directions: a tile rotated 90° clockwise turns its parameters' directions a
//! quarter turn, as a rotated board in a course does. Every tile layer adds its elements,
//! like several legend entries on one square.
//!
//! Why not the `tiled` crate: it reads only the XML formats, and designers mostly save JSON;
//! one reader for both keeps the mapping identical. Both formats are read into the small
//! model below (with serde_json and roxmltree) and mapped by one function. Layer data may be
//! CSV, a list of `<tile>`s, or base64 (plain, zlib, gzip or zstd), as Tiled writes them.

pub mod mapping;

use crate::board::file::{check_size, legend_entries, Placement};
use crate::board::{Layout, Origin};
use crate::error::{Error, Lines, Result};
use crate::files::Source;
use crate::geometry::Pos;
use mapping::{Mapping, North};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The most tile layers a map may have, and how deep its groups of layers may nest: a map
/// of a few KB could otherwise decode thousands of layers (each of up to 65536 cells), or
/// nest groups deep enough to overflow the stack.
const MAX_LAYERS: usize = 64;
const MAX_GROUP_DEPTH: usize = 16;

/// Whether a map with `layers` tile layers so far may read one more.
fn too_many_layers(layers: usize) -> Option<String> {
    (layers >= MAX_LAYERS)
        .then(|| format!("more than {MAX_LAYERS} tile layers: rally reads at most {MAX_LAYERS}"))
}

/// Tiled's flip flags in the high bits of a tile's gid.
const FLIP_H: u32 = 0x8000_0000;
const FLIP_V: u32 = 0x4000_0000;
const FLIP_D: u32 = 0x2000_0000;
const GID_MASK: u32 = 0x0FFF_FFFF;

/// Where mapping files are explained, for messages.
const DOCS: &str = "docs/tiled.md";

/// Is this file a Tiled map (by its extension)?
pub fn is_map(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("tmj" | "tmx" | "json")
    )
}

static COMMAND_LINE_MAPPING: OnceLock<PathBuf> = OnceLock::new();

/// The mapping file given on the command line (`--tiled-mapping`): used for every Tiled map
/// read in this run, before any mapping the maps or tilesets name.
pub fn use_mapping(path: PathBuf) {
    let _ = COMMAND_LINE_MAPPING.set(path);
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
    gids: Vec<u32>,
    /// Where each cell is written in the file (all at the data for encoded layers).
    offsets: Vec<usize>,
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

/// Reads a Tiled map into a layout, with the command-line mapping if one was given.
pub fn load(path: &Path) -> Result<Layout> {
    load_with(path, COMMAND_LINE_MAPPING.get().map(PathBuf::as_path))
}

/// A map read with the mappings of its tilesets, ready to be turned into elements.
struct Prepared {
    source: Source,
    map: Map,
    /// Per tileset (as `map.tilesets`), its mapping file and mapping.
    mappings: Vec<Option<(PathBuf, Mapping)>>,
    /// The mapping used for tilesets that name none.
    fallback: Option<(PathBuf, Mapping)>,
    north: North,
}

/// Reads a map and finds each tileset's mapping: `given`, the file the tileset's
/// `rally_mapping` property names, the one the map's names, or `rally-mapping.toml` beside
/// the map.
fn prepare(path: &Path, given: Option<&Path>) -> Result<Prepared> {
    let source = Source::read(path)?;
    let map = if path.extension().is_some_and(|e| e == "tmx") {
        xml::map(&source)?
    } else {
        json::map(&source)?
    };
    let beside = path
        .parent()
        .unwrap_or(Path::new("."))
        .join(mapping::BESIDE);
    let fallback = match given {
        Some(p) => Some(mapping::read(p)?),
        None => match named_mapping(&map.properties, path)? {
            Some(m) => Some(m),
            None if beside.is_file() => Some(mapping::read(&beside)?),
            None => None,
        },
    };
    let mut mappings = Vec::new();
    for (_, tileset) in &map.tilesets {
        let own = match given {
            Some(_) => None,
            None => named_mapping(&tileset.properties, &tileset.file)?,
        };
        mappings.push(own.or_else(|| fallback.clone()));
    }
    let north = match fallback.as_ref().and_then(|m| m.1.north) {
        Some(north) => north,
        None => match map.properties.get("rally_north") {
            None => North::Top,
            Some(value) => North::parse(value).map_err(|m| Error::File {
                file: path.to_path_buf(),
                message: format!("map property `rally_north`: {m}"),
            })?,
        },
    };
    Ok(Prepared {
        source,
        map,
        mappings,
        fallback,
        north,
    })
}

/// One tile a map uses, as `rally render --list` shows it.
pub struct Used {
    pub tileset: String,
    /// Its id inside the tileset.
    pub id: u32,
    pub class: Option<String>,
    /// Its custom properties, as `name = value` TOML text.
    pub properties: String,
    /// How many cells hold it (on all layers).
    pub cells: usize,
    /// What decided its elements (`[tiles] 10`, `[[match]] 1 (...)`, `class as is`), or why
    /// it could not be translated.
    pub how: std::result::Result<String, String>,
    /// The elements it became, as legend entries (`conveyor { dir = "N" }`); empty for none.
    pub elements: Vec<String>,
}

/// Every tile map `path` uses, in tileset and id order, with what it becomes; a tile that
/// cannot be translated is listed with the reason instead of stopping the list.
pub fn list(path: &Path) -> Result<Vec<Used>> {
    let given = COMMAND_LINE_MAPPING.get().map(PathBuf::as_path);
    let Prepared { map, mappings, .. } = prepare(path, given)?;
    let mut counts: BTreeMap<(usize, u32), usize> = BTreeMap::new();
    for gid in map.layers.iter().flat_map(|l| &l.gids) {
        let gid = gid & GID_MASK;
        if gid == 0 {
            continue;
        }
        if let Some(index) = map.tilesets.iter().rposition(|(first, _)| *first <= gid) {
            *counts
                .entry((index, gid - map.tilesets[index].0))
                .or_default() += 1;
        }
    }
    Ok(counts
        .into_iter()
        .map(|((index, id), cells)| {
            let tileset = &map.tilesets[index].1;
            let tile = tileset.tiles.get(&id);
            let mapping = mappings[index].as_ref().map(|(_, m)| m);
            let (how, elements) = match elements_of(tileset, id, mapping) {
                Ok((entries, how)) => (
                    Ok(how),
                    entries
                        .into_iter()
                        .map(|(e, p)| match p.is_empty() {
                            true => e,
                            false => format!("{e} {}", inline(&p)),
                        })
                        .collect(),
                ),
                Err(m) => (Err(m), Vec::new()),
            };
            Used {
                tileset: tileset.name.clone(),
                id,
                class: tile.and_then(|t| t.class.clone()),
                properties: tile.map_or(String::new(), |t| inline(&t.properties)),
                cells,
                how,
                elements,
            }
        })
        .collect())
}

/// A table as one line of TOML: `{ dir = "N", express = true }` (`{}` when empty).
fn inline(table: &toml::Table) -> String {
    let parts: Vec<String> = table.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    match parts.is_empty() {
        true => "{}".into(),
        false => format!("{{ {} }}", parts.join(", ")),
    }
}

/// Reads a Tiled map into a layout. A tileset's mapping is, in this order: `given`, the file
/// the tileset's `rally_mapping` property names, the one the map's names, or
/// `rally-mapping.toml` beside the map.
pub fn load_with(path: &Path, given: Option<&Path>) -> Result<Layout> {
    let Prepared {
        source,
        map,
        mappings,
        fallback,
        north,
    } = prepare(path, given)?;

    let lines = Lines::of(&source.text);
    let cells = (map.width * map.height) as usize;
    let mut placements = Vec::new();
    // Elements placed on each square so far, bounded (file::MAX_PER_SQUARE).
    let mut crowd = vec![0usize; cells];
    for layer in &map.layers {
        if layer.gids.len() != cells {
            let at = layer.offsets.first().copied().unwrap_or(0);
            return Err(source.error_at(
                at,
                format!(
                    "layer `{}` has {} tiles, the {}×{} map needs {cells}",
                    layer.name,
                    layer.gids.len(),
                    map.width,
                    map.height,
                ),
            ));
        }
        for (i, (&raw, &offset)) in layer.gids.iter().zip(&layer.offsets).enumerate() {
            let gid = raw & GID_MASK;
            if gid == 0 {
                continue;
            }
            let (column, row) = (i as i32 % map.width, i as i32 / map.width);
            let at = match north {
                North::Top => Pos::new(column, row),
                North::Bottom => Pos::new(column, map.height - 1 - row),
            };
            let (line, column) = lines.locate(offset);
            let origin = Origin {
                file: path.to_path_buf(),
                line,
                column,
            };
            let Some(index) = map.tilesets.iter().rposition(|(first, _)| *first <= gid) else {
                return Err(origin.error(format!(
                    "layer `{}`, square {at}: tile {gid} is in no tileset",
                    layer.name
                )));
            };
            let (first, tileset) = &map.tilesets[index];
            let id = gid - first;
            let tile = tileset.tiles.get(&id);
            let class = tile.and_then(|t| t.class.as_deref());
            let context = format!(
                "layer `{}`, square {at}: tile {id} of tileset `{}` ({}; how tiles become elements: {DOCS})",
                layer.name,
                tileset.name,
                class.map_or("no class".to_string(), |c| format!("class `{c}`")),
            );
            let mapping = mappings[index].as_ref().map(|(_, m)| m);
            let (entries, _) = elements_of(tileset, id, mapping)
                .map_err(|m| origin.error(format!("{context}: {m}")))?;
            crowd[i] += entries.len();
            if crowd[i] > super::file::MAX_PER_SQUARE {
                return Err(origin.error(format!("{context}: {}", super::file::crowded(crowd[i]))));
            }
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
                        "{context}: the tile is flipped; elements can be rotated but not mirrored (use Tiled's rotate, Z / Shift+Z)"
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
                    context: Some(context.clone()),
                });
            }
        }
    }
    let text = |key: &str| match map.properties.get(key) {
        Some(toml::Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    let mut files = vec![path.to_path_buf()];
    let mapping_files = mappings.iter().flatten().map(|(p, _)| p.clone());
    for file in map
        .tilesets
        .iter()
        .map(|(_, t)| t.file.clone())
        .chain(mapping_files)
        .chain(fallback.map(|(p, _)| p))
    {
        if !files.contains(&file) {
            files.push(file);
        }
    }
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

/// The elements (with parameters) tile `id` of `tileset` stands for, and what decided
/// them: the mapping's `tiles` entry for its id, else the `[[match]]` rule its class and
/// properties match, else a property's translation to `[]` (no element), else the element a
/// property names (`element`, or a translated value that sets `element`), else the
/// mapping's `classes` entry for its class, else its class. Its remaining properties
/// (renamed, translated, not dropped, not used up by the match) are the parameters of its
/// (first) element.
fn elements_of(
    tileset: &Tileset,
    id: u32,
    mapping: Option<&Mapping>,
) -> std::result::Result<(Vec<(String, toml::Table)>, String), String> {
    let tile = tileset.tiles.get(&id);
    let class = tile.and_then(|t| t.class.as_deref());
    let own = tile.map(|t| &t.properties);
    let matched = match (mapping, own) {
        (Some(m), Some(own)) => m.matching(class, own)?,
        (Some(m), None) => m.matching(class, &toml::Table::new())?,
        (None, _) => None,
    };
    let mut properties = toml::Table::new();
    let mut nothing = None;
    for (name, value) in own.into_iter().flatten() {
        if matched.as_ref().is_some_and(|(rule, _)| rule.uses(name)) {
            continue;
        }
        match mapping {
            Some(m) => {
                if m.apply(name, value, &mut properties)? == mapping::Applied::Nothing {
                    nothing.get_or_insert(format!("property `{name}` = {value}: no element"));
                }
            }
            None => {
                properties.insert(name.clone(), value.clone());
            }
        }
    }
    let named = properties.remove("element").map(|v| match v {
        toml::Value::String(s) => Ok(s),
        other => Err(format!(
            "property `element` must be an element's name, not {other}"
        )),
    });
    let by_class = mapping.and_then(|m| class.and_then(|c| m.class(c)));
    let (mut entries, how) = match (mapping.and_then(|m| m.tile(id)), matched, nothing, named) {
        (Some(entry), ..) => (legend_entries(entry)?, format!("[tiles] {id}")),
        (None, Some((rule, how)), ..) => (legend_entries(&rule.place)?, how),
        (None, None, Some(how), _) => (Vec::new(), how),
        (None, None, None, Some(name)) => {
            (vec![(name?, toml::Table::new())], "property `element`".into())
        }
        (None, None, None, None) => match (class, by_class) {
            (Some(class), Some(entry)) => (legend_entries(entry)?, format!("[classes] {class}")),
            (Some(class), None) => (
                vec![(class.to_string(), toml::Table::new())],
                "class as is".into(),
            ),
            (None, _) => {
                return Err(
                    "the tile has no class: give it the element's name as its Class in Tiled, an `element` property, or map it in a mapping file".into(),
                )
            }
        },
    };
    if let Some((_, params)) = entries.first_mut() {
        params.extend(properties);
    }
    Ok((entries, how))
}

/// The mapping file a `rally_mapping` property names (relative to the file it is set in).
fn named_mapping(properties: &toml::Table, file: &Path) -> Result<Option<(PathBuf, Mapping)>> {
    match properties.get("rally_mapping") {
        None => Ok(None),
        Some(toml::Value::String(name)) => {
            let path = file.parent().unwrap_or(Path::new(".")).join(name);
            Ok(Some(mapping::read(&path)?))
        }
        Some(_) => Err(Error::File {
            file: file.to_path_buf(),
            message: "property `rally_mapping` must be a file name".into(),
        }),
    }
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
                let table: toml::Table =
                    format!("v = {trimmed}")
                        .parse()
                        .map_err(|e: toml::de::Error| {
                            format!("`{value}`: {}", crate::error::in_words(e.message()))
                        })?;
                table
                    .get("v")
                    .cloned()
                    .ok_or_else(|| bad("a list or table"))?
            } else {
                toml::Value::String(value.to_string())
            }
        }
    })
}

/// The cells of a layer's data as Tiled encodes them: `encoding` is `csv`, `base64` or
/// none (a list, read by the caller), `compression` none, `zlib`, `gzip` or `zstd`. Never
/// more than `cells` tile ids are decoded, however the data was made.
fn decode(
    encoding: &str,
    compression: Option<&str>,
    data: &str,
    cells: usize,
) -> std::result::Result<Vec<u32>, String> {
    use base64::Engine;
    use std::io::Read;
    match encoding {
        "csv" => data
            .split(',')
            .map(|cell| {
                cell.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("`{}` is not a tile id", cell.trim()))
            })
            .collect(),
        "base64" => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(data.trim())
                .map_err(|e| format!("the base64 data does not decode: {e}"))?;
            // A layer holds 4 bytes a cell: a larger stream (a "zip bomb") is cut short.
            let limit = (cells as u64 + 1) * 4;
            let inflated = |reader: &mut dyn Read| {
                let mut raw = Vec::new();
                reader
                    .take(limit)
                    .read_to_end(&mut raw)
                    .map(|_| raw)
                    .map_err(|e| {
                        format!(
                            "the {} data does not decompress: {e}",
                            compression.unwrap_or("")
                        )
                    })
            };
            let raw = match compression.unwrap_or("") {
                "" => bytes,
                "zlib" => inflated(&mut flate2::read::ZlibDecoder::new(&bytes[..]))?,
                "gzip" => inflated(&mut flate2::read::GzDecoder::new(&bytes[..]))?,
                "zstd" => inflated(
                    &mut ruzstd::decoding::StreamingDecoder::new(&bytes[..])
                        .map_err(|e| format!("the zstd data does not decompress: {e}"))?,
                )?,
                other => {
                    return Err(format!(
                        "compression `{other}` is not one rally reads (zlib, gzip, zstd)"
                    ))
                }
            };
            if raw.len() % 4 != 0 {
                return Err(format!(
                    "the data is {} bytes, not a whole number of tile ids (4 bytes each)",
                    raw.len()
                ));
            }
            Ok(raw
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect())
        }
        other => Err(format!(
            "encoding `{other}` is not one Tiled writes (csv, base64)"
        )),
    }
}

/// Reads the tileset file `name` a map names (relative to the map); a file that cannot be
/// read is reported where the map names it (at `offset`). Only a tileset file is read (by
/// its extension), and nothing of its text is shown: a map could name any readable file
/// (`/etc/passwd`), whose lines an error's snippet would print.
fn external_tileset(map: &Source, offset: usize, name: &str) -> Result<Tileset> {
    let path = map.path.parent().unwrap_or(Path::new(".")).join(name);
    let tileset = path
        .extension()
        .is_some_and(|e| e == "tsx" || e == "tsj" || e == "json");
    if !tileset {
        return Err(map.error_at(
            offset,
            format!("tileset `{name}`: not a tileset file (.tsx, .tsj or .json)"),
        ));
    }
    read_tileset_file(&path).map_err(|e| match e {
        Error::File { message, .. } => map.error_at(
            offset,
            format!(
                "tileset `{name}` (tried {}): {message}",
                crate::files::display_path(&path)
            ),
        ),
        Error::At {
            line,
            column,
            message,
            ..
        } => map.error_at(
            offset,
            format!("tileset `{name}`, line {line}, column {column}: {message}"),
        ),
        other => other,
    })
}

fn read_tileset_file(path: &Path) -> Result<Tileset> {
    let source = Source::read(path)?;
    if path.extension().is_some_and(|e| e == "tsx") {
        let doc = xml::parse(&source)?;
        xml::tileset(&source, doc.root_element(), path)
    } else {
        let value = json::parse(&source)?;
        json::tileset(&source, &value, "", path)
    }
}

/// The JSON formats (`.tmj`/`.json` maps, `.tsj`/`.json` tilesets).
mod json {
    use super::*;

    pub fn parse(source: &Source) -> Result<Value> {
        source.parse_json("not a Tiled JSON file")
    }

    pub fn map(source: &Source) -> Result<Map> {
        let v = parse(source)?;
        let at = |pointer: &str, m: String| source.json_error_at(pointer, m);
        if v["orientation"].as_str().is_some_and(|o| o != "orthogonal") {
            return Err(at(
                "/orientation",
                "only orthogonal maps can be boards".into(),
            ));
        }
        if v["infinite"].as_bool() == Some(true) {
            return Err(at(
                "/infinite",
                "infinite maps cannot be boards: uncheck Infinite in Map Properties".into(),
            ));
        }
        let size = |k: &str| {
            v[k].as_i64().ok_or_else(|| {
                at(
                    &format!("/{k}"),
                    format!("the map has no whole-number `{k}`"),
                )
            })
        };
        let (width, height) = check_size(size("width")?, size("height")?)
            .map_err(|m| at("/width", format!("the map: {m}")))?;
        let mut tilesets = Vec::new();
        for (i, t) in v["tilesets"].as_array().into_iter().flatten().enumerate() {
            let pointer = format!("/tilesets/{i}");
            let first = match t["firstgid"].as_u64().map(u32::try_from) {
                None => 1,
                Some(Ok(first)) if first <= GID_MASK => first,
                Some(_) => {
                    return Err(at(
                        &format!("{pointer}/firstgid"),
                        "firstgid is larger than a tile id can be".into(),
                    ))
                }
            };
            let tileset = match t["source"].as_str() {
                Some(file) => {
                    let offset =
                        crate::error::json_offset(&source.text, &format!("{pointer}/source"));
                    external_tileset(source, offset.unwrap_or(0), file)?
                }
                None => tileset(source, t, &pointer, &source.path)?,
            };
            tilesets.push((first, tileset));
        }
        tilesets.sort_by_key(|(first, _)| *first);
        let mut layers = Vec::new();
        let cells = (width * height) as usize;
        collect_layers(source, &v["layers"], "/layers", cells, &mut layers)?;
        Ok(Map {
            width,
            height,
            properties: properties(&v["properties"]).map_err(|m| at("/properties", m))?,
            tilesets,
            layers,
        })
    }

    fn collect_layers(
        source: &Source,
        layers: &Value,
        pointer: &str,
        cells: usize,
        out: &mut Vec<Layer>,
    ) -> Result<()> {
        for (i, layer) in layers.as_array().into_iter().flatten().enumerate() {
            let pointer = format!("{pointer}/{i}");
            let name = layer["name"].as_str().unwrap_or("").to_string();
            let err = |key: &str, m: String| {
                source.json_error_at(&format!("{pointer}/{key}"), format!("layer `{name}`: {m}"))
            };
            match layer["type"].as_str() {
                Some("group") => collect_layers(
                    source,
                    &layer["layers"],
                    &format!("{pointer}/layers"),
                    cells,
                    out,
                )?,
                Some("tilelayer") => {
                    if let Some(m) = too_many_layers(out.len()) {
                        return Err(err("type", m));
                    }
                    let data = format!("{pointer}/data");
                    let (gids, offsets) = match &layer["data"] {
                        Value::Array(items) => {
                            let gids = items
                                .iter()
                                .enumerate()
                                .map(|(j, g)| {
                                    g.as_u64().and_then(|g| u32::try_from(g).ok()).ok_or_else(
                                        || {
                                            err(
                                                &format!("data/{j}"),
                                                format!("`{g}` is not a tile id"),
                                            )
                                        },
                                    )
                                })
                                .collect::<Result<Vec<u32>>>()?;
                            (gids, crate::error::json_items(&source.text, &data))
                        }
                        Value::String(text) => {
                            let encoding = layer["encoding"].as_str().unwrap_or("csv");
                            let gids = decode(encoding, layer["compression"].as_str(), text, cells)
                                .map_err(|m| err("data", m))?;
                            let offset =
                                crate::error::json_offset(&source.text, &data).unwrap_or(0);
                            let offsets = vec![offset; gids.len()];
                            (gids, offsets)
                        }
                        _ => return Err(err("data", "the layer has no tile data".into())),
                    };
                    out.push(Layer {
                        name,
                        gids,
                        offsets,
                    });
                }
                _ => {} // object and image layers hold no board elements
            }
        }
        Ok(())
    }

    pub fn tileset(source: &Source, t: &Value, pointer: &str, file: &Path) -> Result<Tileset> {
        let name = t["name"].as_str().unwrap_or("").to_string();
        let err = |key: &str, m: String| {
            source.json_error_at(
                &format!("{pointer}/{key}"),
                format!("tileset `{name}`: {m}"),
            )
        };
        let mut tiles = BTreeMap::new();
        for (i, tile) in t["tiles"].as_array().into_iter().flatten().enumerate() {
            let id = tile["id"]
                .as_u64()
                .and_then(|id| u32::try_from(id).ok())
                .ok_or_else(|| err(&format!("tiles/{i}"), "a tile has no id".into()))?;
            let class = tile["type"]
                .as_str()
                .or_else(|| tile["class"].as_str())
                .filter(|c| !c.is_empty())
                .map(str::to_string);
            let properties = properties(&tile["properties"])
                .map_err(|m| err(&format!("tiles/{i}"), format!("tile {id}: {m}")))?;
            tiles.insert(id, TileDef { class, properties });
        }
        Ok(Tileset {
            properties: properties(&t["properties"]).map_err(|m| err("properties", m))?,
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
                Value::Number(n) => match n.as_i64() {
                    Some(i) => Ok(toml::Value::Integer(i)),
                    None => Ok(toml::Value::Float(n.as_f64().unwrap_or(0.0))),
                },
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

    fn at(source: &Source, node: Node, message: String) -> Error {
        source.error_at(node.range().start, message)
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
                .and_then(|n| n.parse::<i64>().ok())
                .ok_or_else(|| at(source, root, format!("the map has no whole-number `{k}`")))
        };
        let (width, height) = check_size(size("width")?, size("height")?)
            .map_err(|m| at(source, root, format!("the map: {m}")))?;
        let mut tilesets = Vec::new();
        for t in root.children().filter(|n| n.has_tag_name("tileset")) {
            let first = match t.attribute("firstgid").map(str::parse::<u32>) {
                None => 1,
                Some(Ok(first)) if first <= GID_MASK => first,
                Some(_) => return Err(at(source, t, "firstgid is not a tile id".into())),
            };
            let tileset = match t.attribute("source") {
                Some(file) => external_tileset(source, t.range().start, file)?,
                None => tileset(source, t, &source.path)?,
            };
            tilesets.push((first, tileset));
        }
        tilesets.sort_by_key(|(first, _)| *first);
        let mut layers = Vec::new();
        collect_layers(source, root, (width * height) as usize, &mut layers)?;
        Ok(Map {
            width,
            height,
            properties: properties(source, root)?,
            tilesets,
            layers,
        })
    }

    fn collect_layers(
        source: &Source,
        parent: Node,
        cells: usize,
        out: &mut Vec<Layer>,
    ) -> Result<()> {
        for node in parent.children().filter(Node::is_element) {
            match node.tag_name().name() {
                // The map's root and the document's are ancestors too.
                "group" if node.ancestors().count() > MAX_GROUP_DEPTH + 2 => {
                    return Err(at(
                        source,
                        node,
                        format!("groups of layers nest more than {MAX_GROUP_DEPTH} deep"),
                    ))
                }
                "group" => collect_layers(source, node, cells, out)?,
                "layer" if too_many_layers(out.len()).is_some() => {
                    return Err(at(
                        source,
                        node,
                        too_many_layers(out.len()).unwrap_or_default(),
                    ))
                }
                "layer" => {
                    let name = node.attribute("name").unwrap_or("").to_string();
                    let data = node
                        .children()
                        .find(|n| n.has_tag_name("data"))
                        .ok_or_else(|| at(source, node, format!("layer `{name}` has no data")))?;
                    let err = |m: String| at(source, data, format!("layer `{name}`: {m}"));
                    let (gids, offsets) = match data.attribute("encoding") {
                        None => {
                            let tiles: Vec<Node> =
                                data.children().filter(|n| n.has_tag_name("tile")).collect();
                            let gids = tiles
                                .iter()
                                .map(|t| match t.attribute("gid") {
                                    None => Ok(0),
                                    Some(g) => g.parse::<u32>().map_err(|_| {
                                        at(
                                            source,
                                            *t,
                                            format!("layer `{name}`: `{g}` is not a tile id"),
                                        )
                                    }),
                                })
                                .collect::<Result<Vec<u32>>>()?;
                            (gids, tiles.iter().map(|t| t.range().start).collect())
                        }
                        Some(encoding) => {
                            let text_node = data.first_child().filter(|n| n.is_text());
                            let text = text_node.and_then(|n| n.text()).unwrap_or("");
                            let start = text_node.map_or(data.range().start, |n| n.range().start);
                            let gids = decode(encoding, data.attribute("compression"), text, cells)
                                .map_err(err)?;
                            let offsets = if encoding == "csv" {
                                csv_offsets(text, start)
                            } else {
                                vec![start; gids.len()]
                            };
                            (gids, offsets)
                        }
                    };
                    out.push(Layer {
                        name,
                        gids,
                        offsets,
                    });
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Where each cell of CSV text starting at `start` is.
    fn csv_offsets(text: &str, start: usize) -> Vec<usize> {
        let mut offsets = Vec::new();
        let mut cell = 0;
        for part in text.split(',') {
            let lead = part.len() - part.trim_start().len();
            offsets.push(start + cell + lead);
            cell += part.len() + 1;
        }
        offsets
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
