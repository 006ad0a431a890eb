//! Robot tokens, drawn so the square stays readable: a frame round the square in the robot's
//! colour (the tile shows through the middle: a flag, a custom element), an arrow on the side
//! it faces, its full name on a tab on the side away from the arrow, badges in the corners
//! for damage and flags touched, and on the ice its speed and spin. The page's drawing module
//! (src/pictures/html/board.js) draws the same token for each frame of a replay.

use super::{origin, PALETTE};
use crate::state::Robot;
use crate::text::xml;
use serde_json::Value;
use std::fmt::Write;

/// The robots, each a `<g class="robot">` carrying its name, square and facing as data
/// attributes, with its state as a hover title.
pub fn robots_layer(robots: &[Robot]) -> String {
    let mut out = String::new();
    for (i, r) in robots.iter().enumerate() {
        if !r.destroyed {
            out.push_str(&token(r, robot_color(i, r)));
            out.push('\n');
        }
    }
    out
}

/// The colour of robot number `index` (its place in the game), grey while powered down.
pub fn robot_color(index: usize, robot: &Robot) -> &'static str {
    if robot.powered_down {
        "#8a8a8a"
    } else {
        PALETTE[index % PALETTE.len()]
    }
}

fn token(r: &Robot, color: &str) -> String {
    let (x, y) = origin(r.at);
    let dash = if r.powered_down {
        r#" stroke-dasharray="7 4""#
    } else {
        ""
    };
    let mut out = format!(
        r##"<g class="robot" data-robot="{name}" data-x="{}" data-y="{}" data-facing="{facing}" transform="translate({x},{y})"><title>{title}</title><rect x="4" y="4" width="56" height="56" rx="10" fill="{color}" fill-opacity="0.16"/><rect x="5" y="5" width="54" height="54" rx="10" fill="none" stroke="#111" stroke-width="8"{dash}/><rect x="5" y="5" width="54" height="54" rx="10" fill="none" stroke="{color}" stroke-width="5"{dash}/><g transform="rotate({deg} 32 32)"><polygon points="32,0 44,14 20,14" fill="{color}" stroke="#111" stroke-width="2" stroke-linejoin="round"/></g>"##,
        r.at.x,
        r.at.y,
        name = xml(&r.name),
        facing = r.facing,
        title = xml(&title(r)),
        deg = r.facing.index() * 90,
    );
    // The name on the side away from the arrow, squeezed to fit when it is long.
    let top = r.facing == crate::geometry::Dir::S;
    let tab = if top { 3 } else { 46 };
    let chars = r.name.chars().count().max(1) as f64;
    let size = (52.0 / (0.62 * chars)).min(11.0);
    let squeeze = if size < 7.0 {
        r#" textLength="52" lengthAdjust="spacingAndGlyphs""#
    } else {
        ""
    };
    let _ = write!(
        out,
        r##"<rect x="4" y="{tab}" width="56" height="15" rx="5" fill="{color}" stroke="#111" stroke-width="1.5"/><text x="32" y="{}" font-size="{:.1}" font-weight="bold" fill="#fff" stroke="#111" stroke-width="2.2" paint-order="stroke" text-anchor="middle"{squeeze}>{}</text>"##,
        tab + 11,
        size.max(7.0),
        xml(&r.name)
    );
    // The initial in a disc on the side (away from the arrow, clear of the badges and of
    // the square's middle): which robot it is, without its colour.
    let side = if r.facing == crate::geometry::Dir::W {
        53
    } else {
        11
    };
    let _ = write!(
        out,
        r##"<circle cx="{side}" cy="32" r="7.5" fill="#fff" stroke="{color}" stroke-width="2.5"/><text class="initial" x="{side}" y="36" font-size="11" font-weight="bold" fill="#111" text-anchor="middle">{}</text>"##,
        xml(&initial(&r.name))
    );
    let by = if top { 54 } else { 10 };
    if r.damage > 0 {
        let _ = write!(
            out,
            r##"<circle cx="54" cy="{by}" r="8" fill="#c0102a" stroke="#fff" stroke-width="1.5"/><text x="54" y="{}" font-size="10" font-weight="bold" fill="#fff" text-anchor="middle">{}</text>"##,
            by + 4,
            r.damage
        );
    }
    if r.flags > 0 {
        let _ = write!(
            out,
            r##"<rect x="2" y="{}" width="16" height="16" rx="3" fill="#fff" stroke="#111"/><text x="10" y="{}" font-size="10" font-weight="bold" fill="#111" text-anchor="middle">{}</text>"##,
            by - 8,
            by + 4,
            r.flags
        );
    }
    out.push_str(&ice_chart(r));
    out.push_str("</g>");
    out
}

/// A robot's initial as its token shows it (`?` for an empty name).
fn initial(name: &str) -> String {
    name.chars()
        .next()
        .map_or("?".into(), |c| c.to_uppercase().collect())
}

/// What hovering a robot tells: "Alpha, facing N · 2 damage · 3 lives · 1 flags".
fn title(r: &Robot) -> String {
    let lives = if r.lives == 1 { "life" } else { "lives" };
    let mut parts = vec![
        format!("{}, facing {}", r.name, r.facing),
        format!("{} damage", r.damage),
        format!("{} {lives}", r.lives),
        format!("{} flags", r.flags),
    ];
    if r.powered_down {
        parts.push("powered down".into());
    }
    if !r.options.is_empty() {
        let names: Vec<&str> = r.options.iter().map(|o| o.name.as_str()).collect();
        parts.push(format!("options: {}", names.join(", ")));
    }
    parts.join(" · ")
}

/// The Ice Rink chart a robot on the ice carries (`vars.ice = { vx, vy, spin }`, vy north):
/// an arrow for its speed and a turning mark for its spin.
fn ice_chart(r: &Robot) -> String {
    let Some(ice) = r.vars.get("ice") else {
        return String::new();
    };
    let get = |k: &str| ice.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let (vx, vy, spin) = (get("vx"), get("vy"), get("spin"));
    let mut out = String::new();
    if vx != 0.0 || vy != 0.0 {
        let _ = write!(
            out,
            r##"<line class="ice-speed" x1="32" y1="32" x2="{}" y2="{}" stroke="#00c8ff" stroke-width="4" stroke-linecap="round"/><circle cx="{}" cy="{}" r="4" fill="#00c8ff"/>"##,
            32.0 + vx * 7.0,
            32.0 - vy * 7.0,
            32.0 + vx * 7.0,
            32.0 - vy * 7.0
        );
    }
    if spin != 0.0 {
        let mark = if spin > 0.0 { "↻" } else { "↺" };
        let _ = write!(
            out,
            r##"<text class="ice-spin" x="9" y="38" font-size="12" font-weight="bold" fill="#006d8f">{mark}{}</text>"##,
            spin.abs()
        );
    }
    out
}
