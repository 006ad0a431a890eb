//! SVG pictures from files (a script's `images`, the bundled icons), made safe to put into
//! a board's picture: the picture is parsed and written out again from what is allowed, so
//! nothing of the file reaches the output unread. Shapes, groups, gradients and presentation
//! attributes are kept; scripts, event handlers (`on*`), links and references to anything
//! outside the picture (`href`, `url(...)` other than `url(#id)` inside it), embedded images,
//! styles sheets, animation and foreign content are refused with the line they are on, so a
//! designer knows what to remove. Editor metadata (Inkscape's, RDF) is dropped. A file is
//! bounded in size, nodes and depth; DTDs (entity expansion) are refused by the parser.
//!
//! Ids are prefixed (`PREFIX-id`, references too), so two pictures on one board never share
//! a gradient by accident. The result is a fragment drawn on a 64×64 square: the file's
//! `viewBox` (or width and height) is scaled onto it.

use std::fmt::Write;

/// The largest picture file, in bytes.
pub const MAX_BYTES: usize = 64 * 1024;
/// The most XML nodes a picture may have, and how deep its elements may nest.
const MAX_NODES: u32 = 4000;
const MAX_DEPTH: usize = 24;

const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// The elements kept, with their attributes.
const ELEMENTS: &[&str] = &[
    "svg",
    "g",
    "defs",
    "path",
    "rect",
    "circle",
    "ellipse",
    "line",
    "polyline",
    "polygon",
    "linearGradient",
    "radialGradient",
    "stop",
];
/// Elements left out, with what is inside them: descriptions and editor data.
const DROPPED: &[&str] = &["title", "desc", "metadata"];

/// The attributes kept (on any kept element). Anything else in the SVG namespace is refused
/// if it could run or fetch something (`on*`, `href`, `style`), and otherwise dropped.
const ATTRIBUTES: &[&str] = &[
    "id",
    "d",
    "x",
    "y",
    "x1",
    "y1",
    "x2",
    "y2",
    "cx",
    "cy",
    "r",
    "rx",
    "ry",
    "fx",
    "fy",
    "width",
    "height",
    "points",
    "transform",
    "fill",
    "fill-opacity",
    "fill-rule",
    "stroke",
    "stroke-width",
    "stroke-opacity",
    "stroke-dasharray",
    "stroke-dashoffset",
    "stroke-linecap",
    "stroke-linejoin",
    "stroke-miterlimit",
    "opacity",
    "color",
    "offset",
    "stop-color",
    "stop-opacity",
    "gradientUnits",
    "gradientTransform",
    "spreadMethod",
    "visibility",
    "display",
];

/// `bytes`, an SVG file, as a safe fragment for a 64×64 square, its ids prefixed with
/// `prefix`. An error says what is wrong and where (`:LINE: ...`).
pub fn sanitise(bytes: &[u8], prefix: &str) -> Result<String, String> {
    if bytes.len() > MAX_BYTES {
        return Err(format!(
            ": {} bytes, more than a picture may have ({MAX_BYTES})",
            bytes.len()
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|_| ": not UTF-8 text".to_string())?;
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_NODES,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(text, options)
        .map_err(|e| format!(": not an SVG picture: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "svg" || root.tag_name().namespace() != Some(SVG_NS) {
        return Err(
            ": not an SVG picture (its root is not <svg xmlns=\"http://www.w3.org/2000/svg\">)"
                .into(),
        );
    }
    let view_box = view_box(&root)?;
    let mut inner = String::new();
    for child in root.children() {
        write_node(&doc, child, prefix, 1, &mut inner)?;
    }
    Ok(if view_box == [0.0, 0.0, 64.0, 64.0] {
        inner
    } else {
        let [x, y, w, h] = view_box;
        format!(
            r#"<svg x="0" y="0" width="64" height="64" viewBox="{x} {y} {w} {h}">{inner}</svg>"#
        )
    })
}

/// Where the picture's drawing lies: its `viewBox`, else `0 0 width height`, else 64×64.
fn view_box(root: &roxmltree::Node) -> Result<[f64; 4], String> {
    let numbers = |s: &str| -> Option<Vec<f64>> {
        s.split([' ', ','])
            .filter(|p| !p.is_empty())
            .map(|p| p.parse::<f64>().ok().filter(|n| n.is_finite()))
            .collect()
    };
    if let Some(vb) = root.attribute("viewBox") {
        return match numbers(vb).as_deref() {
            Some(&[x, y, w, h]) if w > 0.0 && h > 0.0 => Ok([x, y, w, h]),
            _ => Err(format!(
                ": viewBox=\"{vb}\": expected four numbers, \"0 0 64 64\""
            )),
        };
    }
    let length = |name: &str| {
        root.attribute(name)
            .map(|v| v.trim_end_matches("px"))
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|n| n.is_finite() && *n > 0.0)
    };
    Ok(match (length("width"), length("height")) {
        (Some(w), Some(h)) => [0.0, 0.0, w, h],
        _ => [0.0, 0.0, 64.0, 64.0],
    })
}

fn write_node(
    doc: &roxmltree::Document,
    node: roxmltree::Node,
    prefix: &str,
    depth: usize,
    out: &mut String,
) -> Result<(), String> {
    if !node.is_element() {
        // Text between shapes is whitespace or a comment; text elements are refused below.
        return Ok(());
    }
    let line = doc.text_pos_at(node.range().start).row;
    let tag = node.tag_name();
    if tag.namespace() != Some(SVG_NS) {
        // An editor's own elements (sodipodi:namedview, RDF): never drawn.
        return Ok(());
    }
    let name = tag.name();
    if DROPPED.contains(&name) {
        return Ok(());
    }
    if !ELEMENTS.contains(&name) {
        return Err(format!(
            ":{line}: <{name}> is not allowed in a picture (allowed: {})",
            ELEMENTS.join(", ")
        ));
    }
    if depth > MAX_DEPTH {
        return Err(format!(":{line}: nested more than {MAX_DEPTH} deep"));
    }
    let _ = write!(out, "<{name}");
    for attr in node.attributes() {
        let key = attr.name();
        let value = attr.value();
        let lower = key.to_ascii_lowercase();
        if lower.starts_with("on") || lower == "href" || lower == "style" {
            return Err(format!(
                ":{line}: the attribute `{key}` is not allowed in a picture (no scripts, links or styles; use presentation attributes: fill=\"#c33\")"
            ));
        }
        if attr.namespace().is_some_and(|ns| ns != SVG_NS) || !ATTRIBUTES.contains(&key) {
            continue;
        }
        let value = if key == "id" {
            format!("{prefix}-{value}")
        } else {
            local_refs(value, prefix).map_err(|m| format!(":{line}: {key}=\"{value}\": {m}"))?
        };
        let _ = write!(out, r#" {key}="{}""#, crate::text::xml(&value));
    }
    let mut inner = String::new();
    for child in node.children() {
        write_node(doc, child, prefix, depth + 1, &mut inner)?;
    }
    if inner.is_empty() {
        out.push_str("/>");
    } else {
        let _ = write!(out, ">{inner}</{name}>");
    }
    Ok(())
}

/// A value whose `url(...)` references all point inside the picture (`url(#id)`), rewritten
/// to the prefixed ids.
fn local_refs(value: &str, prefix: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("url(") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 4..];
        let end = after.find(')').ok_or("an unclosed url(")?;
        let target = after[..end].trim().trim_matches(['"', '\'']);
        let id = target
            .strip_prefix('#')
            .filter(|id| {
                !id.is_empty()
                    && id
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            })
            .ok_or("only references inside the picture, url(#id), are allowed")?;
        let _ = write!(out, "url(#{prefix}-{id})");
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
