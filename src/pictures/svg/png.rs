//! PNG output (resvg), with the fonts built into rally (assets/fonts/: DejaVu Sans and DejaVu
//! Sans Bold, cut down to Latin), so labels are drawn the same on every machine, with or
//! without fonts installed.

use resvg::{tiny_skia, usvg};

const FONTS: [&[u8]; 2] = [
    include_bytes!("../../../assets/fonts/DejaVuSans.ttf"),
    include_bytes!("../../../assets/fonts/DejaVuSans-Bold.ttf"),
];

/// The largest picture drawn, in pixels a side (a 64-square board at scale 8 is ~33,000).
const MAX_SIDE: f32 = 16_384.0;

/// Renders an SVG document to PNG, `scale` pixels per SVG unit (2: twice as many pixels a
/// side, for printing). Text uses only the built-in fonts.
pub fn to_png(svg: &str, scale: f32) -> Result<Vec<u8>, String> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err(format!("the scale must be a number above 0, not {scale}"));
    }
    let mut opts = usvg::Options::default();
    for font in FONTS {
        opts.fontdb_mut().load_font_data(font.to_vec());
    }
    let tree = usvg::Tree::from_str(svg, &opts).map_err(|e| format!("bad SVG: {e}"))?;
    let size = tree.size();
    let (w, h) = (size.width() * scale, size.height() * scale);
    if w.max(h) > MAX_SIDE {
        return Err(format!(
            "at scale {scale} the picture would be {w:.0}×{h:.0} pixels; the most is {MAX_SIDE} a side"
        ));
    }
    let mut pixmap = tiny_skia::Pixmap::new(w.ceil() as u32, h.ceil() as u32)
        .ok_or_else(|| "the picture has no size".to_string())?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().map_err(|e| e.to_string())
}
