//! Drawing an element's declared parts (`crate::script::draw`) onto the canvas. Each part is
//! drawn on a 64×64 square pointing north and turned into place; labels stay upright. Every
//! value written here was checked when the part was read (numbers, colours, names) or is
//! escaped ([`xml`]), so a script cannot put markup into the picture.

use super::{Canvas, Layer, BELT};
use crate::board::{Board, Tile};
use crate::geometry::Dir;
use crate::script::draw::{self, icons, Drawing, Entry, Kind, Part, Side, Turn};
use crate::script::RuleSet;
use crate::state::Robot;
use serde_json::Value;
use std::fmt::Write;

/// The parts of `tile`'s drawing, the made ones made (a part a function got wrong is left
/// out, with a warning).
pub fn parts(rules: &RuleSet, drawing: &Drawing, tile: &Tile) -> Vec<Part> {
    let mut out = Vec::new();
    for entry in &drawing.entries {
        match entry {
            Entry::Part(p) => out.push((**p).clone()),
            Entry::Made(f) => {
                let made = rules
                    .budgeted(|| {
                        rules
                            .tile_table(tile)
                            .and_then(|t| f.call::<mlua::Value>(t))
                    })
                    .and_then(|v| draw::made(&rules.lua, v, &drawing.images));
                match made {
                    Ok(parts) => out.extend(parts),
                    Err(e) => tracing::warn!("draw of `{}` at {}: {e}", tile.name, tile.at),
                }
            }
        }
        if out.len() > draw::MAX_PARTS {
            tracing::warn!(
                "draw of `{}`: more than {} parts",
                tile.name,
                draw::MAX_PARTS
            );
            out.truncate(draw::MAX_PARTS);
            break;
        }
    }
    out
}

/// The direction a tile's drawing is turned to: its `turn` parameter (a direction, or the
/// first of a list of sides), else north.
pub fn turned(drawing: &Drawing, tile: &Tile) -> Dir {
    let Some(param) = &drawing.turn else {
        return Dir::N;
    };
    let value = match tile.params.get(param) {
        Some(Value::Array(items)) => items.first(),
        other => other,
    };
    value
        .and_then(Value::as_str)
        .and_then(Dir::parse)
        .unwrap_or(Dir::N)
}

/// What a tile's drawing needs from the board: the board and robots its beams are traced on.
pub struct Scene<'a> {
    pub board: &'a Board,
    pub robots: &'a [Robot],
}

/// Draws `parts` of `tile` (its drawing turned to `dir`) on the canvas.
pub fn draw(
    rules: &RuleSet,
    drawing: &Drawing,
    tile: &Tile,
    parts: &[Part],
    dir: Dir,
    scene: Option<&Scene>,
    c: &mut Canvas,
) {
    // Consecutive shapes on one layer, turned alike, share one group.
    let mut run: Option<(Layer, Dir, String)> = None;
    let flush = |run: &mut Option<(Layer, Dir, String)>, c: &mut Canvas| {
        if let Some((layer, dir, body)) = run.take() {
            c.put(layer, dir, &body);
        }
    };
    for p in parts {
        let pdir = match p.turn {
            Turn::Drawing => dir,
            Turn::Fixed(d) => d,
        };
        let text = || p.text.clone().unwrap_or_default();
        match p.kind {
            Kind::Label | Kind::Number => {
                let text = match &p.text {
                    Some(t) => t.clone(),
                    None => super::render::glyph(rules, tile),
                };
                let color = p.color.as_deref().unwrap_or("#111");
                let size = p.size.unwrap_or(14.0).clamp(4.0, 64.0) as u32;
                c.label(
                    pdir,
                    p.x.unwrap_or(32.0),
                    p.y.unwrap_or(32.0),
                    size,
                    color,
                    &text,
                );
            }
            Kind::Badge => c.badge(pdir, p.x.unwrap_or(32.0), p.y.unwrap_or(50.0), &text()),
            Kind::Beam => {
                if let Some(scene) = scene {
                    super::beam(scene.board, scene.robots, tile, pdir, p.n.unwrap_or(1), c);
                }
            }
            _ => {
                let layer = match p.kind {
                    Kind::Wall => Layer::Edges,
                    _ => layer_of(p.layer.unwrap_or(drawing.layer)),
                };
                let body = shape(p, drawing, pdir);
                match &mut run {
                    Some((l, d, b)) if *l as usize == layer as usize && *d == pdir => {
                        b.push_str(&body)
                    }
                    _ => {
                        flush(&mut run, c);
                        run = Some((layer, pdir, body));
                    }
                }
            }
        }
    }
    flush(&mut run, c);
}

fn layer_of(l: draw::Layer) -> Layer {
    match l {
        draw::Layer::Ground => Layer::Ground,
        draw::Layer::Belts => Layer::Belts,
        draw::Layer::Fixtures => Layer::Fixtures,
        draw::Layer::Edges => Layer::Edges,
    }
}

/// The fill and outline settings of a part, as SVG attributes.
fn paint(p: &Part, fill: &str, stroke: Option<&str>, width: f64) -> String {
    let mut out = format!(r#" fill="{}""#, p.color.as_deref().unwrap_or(fill));
    if let Some(stroke) = p.stroke.as_deref().or(stroke) {
        let _ = write!(out, r#" stroke="{stroke}""#);
        let w = p.width.unwrap_or(width);
        if w != 1.0 {
            let _ = write!(out, r#" stroke-width="{w}""#);
        }
    }
    if let Some(dash) = &p.dash {
        let _ = write!(out, r#" stroke-dasharray="{dash}""#);
    }
    if let Some(o) = p.opacity {
        let _ = write!(out, r#" opacity="{o}""#);
    }
    out
}

/// The outline of a line drawn in the part's colour (`ring`, `arrow`, `chevrons`).
fn line(p: &Part, color: &str, width: f64) -> String {
    let mut out = format!(
        r#" fill="none" stroke="{}" stroke-width="{}""#,
        p.color.as_deref().unwrap_or(color),
        p.width.unwrap_or(width)
    );
    if let Some(dash) = &p.dash {
        let _ = write!(out, r#" stroke-dasharray="{dash}""#);
    }
    if let Some(o) = p.opacity {
        let _ = write!(out, r#" opacity="{o}""#);
    }
    out
}

/// The default fill of a shape nobody gave a colour.
const FILL: &str = "#b8a1d9";

/// A shape part's markup in the north-pointing square.
fn shape(p: &Part, drawing: &Drawing, dir: Dir) -> String {
    let (x, y) = (p.x.unwrap_or(32.0), p.y.unwrap_or(32.0));
    let body = match p.kind {
        Kind::Square => {
            let inset = p.inset.unwrap_or(4.0);
            let side = 64.0 - 2.0 * inset;
            let rx = p.round.map_or(String::new(), |r| format!(r#" rx="{r}""#));
            format!(
                r#"<rect x="{inset}" y="{inset}" width="{side}" height="{side}"{rx}{}/>"#,
                paint(p, FILL, None, 1.0)
            )
        }
        Kind::Circle => format!(
            r#"<circle cx="{x}" cy="{y}" r="{}"{}/>"#,
            p.r.unwrap_or(24.0),
            paint(p, FILL, None, 1.0)
        ),
        Kind::Ring => format!(
            r#"<circle cx="{x}" cy="{y}" r="{}"{}/>"#,
            p.r.unwrap_or(20.0),
            line(p, "#222", 3.0)
        ),
        Kind::Diamond => {
            let r = p.r.unwrap_or(24.0);
            format!(
                r#"<polygon points="{x},{} {},{y} {x},{} {},{y}"{}/>"#,
                y - r,
                x + r,
                y + r,
                x - r,
                paint(p, FILL, None, 1.0)
            )
        }
        Kind::Triangle => {
            let r = p.r.unwrap_or(24.0);
            let (dx, dy) = (r * 0.866, r / 2.0);
            format!(
                r#"<polygon points="{x},{} {:.1},{} {:.1},{}"{}/>"#,
                y - r,
                x + dx,
                y + dy,
                x - dx,
                y + dy,
                paint(p, FILL, None, 1.0)
            )
        }
        Kind::Edge => format!(
            r#"<rect x="0" y="{}" width="64" height="{}"{}/>"#,
            p.offset.unwrap_or(0.0),
            p.size.unwrap_or(9.0),
            paint(p, FILL, None, 1.0)
        ),
        Kind::Bar => {
            let rx = p.round.map_or(String::new(), |r| format!(r#" rx="{r}""#));
            format!(
                r#"<rect x="{}" y="{}" width="{}" height="{}"{rx}{}/>"#,
                p.x.unwrap_or(0.0),
                p.y.unwrap_or(0.0),
                p.w.unwrap_or(64.0),
                p.h.unwrap_or(8.0),
                paint(p, FILL, None, 1.0)
            )
        }
        Kind::Arrow => {
            // `y` is the tip; the shaft runs `size` back from it (a negative size: south).
            let tip = p.y.unwrap_or(12.0);
            let size = p.size.unwrap_or(40.0);
            let head = (size.abs() * 0.3).max(6.0);
            let back = tip + head * size.signum();
            format!(
                r#"<path d="M{x},{} L{x},{tip} M{},{back} L{x},{tip} L{},{back}"{} stroke-linejoin="round"/>"#,
                tip + size,
                x - head,
                x + head,
                line(p, "#fff", 4.0)
            )
        }
        Kind::Chevrons => chevrons(p, x, &line(p, "#fff", 5.0)),
        Kind::Icon | Kind::Image => {
            let name = p.text.as_deref().unwrap_or_default();
            let fragment = match p.kind {
                Kind::Icon => icons::get(name).unwrap_or_default(),
                _ => drawing.images.get(name).map_or("", |s| &**s),
            };
            let color = p
                .color
                .as_deref()
                .map_or(String::new(), |c| format!(r#" color="{c}""#));
            let opacity = p
                .opacity
                .map_or(String::new(), |o| format!(r#" opacity="{o}""#));
            let mirror = if p.mirror {
                r#" transform="translate(64,0) scale(-1,1)""#
            } else {
                ""
            };
            if color.is_empty() && opacity.is_empty() && mirror.is_empty() {
                fragment.to_string()
            } else {
                format!("<g{color}{opacity}{mirror}>{fragment}</g>")
            }
        }
        Kind::Belt => belt(p, dir),
        Kind::Wall => super::WALL_BAND.to_string(),
        Kind::Label | Kind::Number | Kind::Badge | Kind::Beam => unreachable!("not shapes"),
    };
    match p.rotate {
        Some(deg) if deg != 0.0 => format!(r#"<g transform="rotate({deg} 32 32)">{body}</g>"#),
        _ => body,
    }
}

/// `n` chevrons pointing north, the first's tip at `y`, `gap` apart.
fn chevrons(p: &Part, x: f64, stroke: &str) -> String {
    let n = p.n.unwrap_or(1).max(0) as usize;
    let half = p.size.unwrap_or(12.0);
    // The belts' spacings: one in the middle, two or three spread along the square.
    let (first, gap) = match n {
        1 => (18.0, 18.0),
        2 => (10.0, 18.0),
        _ => (4.0, 16.0),
    };
    let (first, gap) = (p.y.unwrap_or(first), p.gap.unwrap_or(gap));
    (0..n)
        .map(|i| {
            let y = first + gap * i as f64;
            format!(
                r#"<path d="M{},{} L{x},{y} L{},{}"{stroke} stroke-linejoin="round"/>"#,
                x - half,
                y + half,
                x + half,
                y + half
            )
        })
        .collect()
}

/// A conveyor belt: straight, a curve (`bend`: robots arrive from that side and turn north),
/// or a junction (`turns`: side arms feeding in), with `n` chevrons along it.
fn belt(p: &Part, dir: Dir) -> String {
    let color = p.color.as_deref().unwrap_or(BELT);
    // An arc arm that brings robots in through the east (right) or west (left) edge and out
    // north.
    let arm = |side: Side| {
        let d = match side {
            Side::Right => "M64,32 A32,32 0 0 1 32,0",
            Side::Left => "M0,32 A32,32 0 0 0 32,0",
        };
        format!(r#"<path d="{d}" fill="none" stroke="{color}" stroke-width="38"/>"#)
    };
    let mut body = match p.bend {
        Some(side) => arm(side),
        None => {
            let mut b = format!(r#"<rect x="13" y="0" width="38" height="64" fill="{color}"/>"#);
            for travel in &p.turns {
                // The arrival direction as seen with the belt pointing north.
                match Dir::ALL[(travel.index() + 4 - dir.index()) % 4] {
                    Dir::W => b.push_str(&arm(Side::Right)),
                    Dir::E => b.push_str(&arm(Side::Left)),
                    _ => {}
                }
            }
            b
        }
    };
    body.push_str(r##"<rect x="0" y="0" width="64" height="64" fill="none" stroke="#00000022"/>"##);
    let n = p.n.unwrap_or(1).max(0) as usize;
    match p.bend {
        // Along a curve, the chevrons follow the arc (radius 32 about the corner it turns
        // round), each turned to the way robots travel there.
        Some(side) => {
            for i in 0..n {
                let along = (i as f64 + 0.5) / n as f64;
                let (cx, theta) = match side {
                    Side::Right => (64.0, 90.0 + 90.0 * along),
                    Side::Left => (0.0, 90.0 - 90.0 * along),
                };
                let rad = f64::to_radians(theta);
                let (x, y) = (cx + 32.0 * rad.cos(), 32.0 * rad.sin());
                let heading = if side == Side::Right {
                    theta + 180.0
                } else {
                    theta
                };
                let _ = write!(
                    body,
                    r##"<path d="M-9,5 L0,-4 L9,5" transform="translate({x:.1},{y:.1}) rotate({heading:.0})" fill="none" stroke="#fff" stroke-width="4.5" stroke-linejoin="round"/>"##
                );
            }
        }
        None => {
            let mut chevron = Part::new(Kind::Chevrons);
            chevron.n = Some(n as i64);
            body.push_str(&chevrons(
                &chevron,
                32.0,
                r##" fill="none" stroke="#fff" stroke-width="5""##,
            ));
        }
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arrow_points_north_and_a_negative_size_south() {
        let mut p = Part::new(Kind::Arrow);
        p.y = Some(4.0);
        p.size = Some(16.0);
        let d = shape(&p, &empty(), Dir::N);
        assert!(d.contains("M32,20 L32,4 M26,10 L32,4 L38,10"), "{d}");
        p.y = Some(20.0);
        p.size = Some(-16.0);
        let d = shape(&p, &empty(), Dir::N);
        assert!(d.contains("M32,4 L32,20 M26,14 L32,20 L38,14"), "{d}");
    }

    fn empty() -> Drawing {
        Drawing {
            layer: draw::Layer::Fixtures,
            turn: None,
            legend: None,
            on_board: true,
            entries: Vec::new(),
            images: Default::default(),
        }
    }
}
