//! The bundled icons (`{ "icon", "gear" }`): the pictures of the standard elements, kept as
//! SVG files in `assets/icons/` and built into the binary. They pass through the same
//! sanitiser as a designer's pictures ([`super::image`]); parts of them drawn in
//! `currentColor` take the part's `color`.

use include_dir::{include_dir, Dir};
use std::collections::BTreeMap;
use std::sync::OnceLock;

static FILES: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/assets/icons");

fn all() -> &'static BTreeMap<&'static str, String> {
    static ICONS: OnceLock<BTreeMap<&'static str, String>> = OnceLock::new();
    ICONS.get_or_init(|| {
        FILES
            .files()
            .filter_map(|f| {
                let name = f.path().file_name()?.to_str()?.strip_suffix(".svg")?;
                let fragment = super::image::sanitise(f.contents(), &format!("icon-{name}"))
                    .unwrap_or_else(|e| panic!("bundled icon {name}.svg{e}"));
                Some((name, fragment))
            })
            .collect()
    })
}

/// The icon's SVG fragment, for a 64×64 square.
pub fn get(name: &str) -> Option<&'static str> {
    all().get(name).map(String::as_str)
}

/// Every icon's name, in order.
pub fn names() -> Vec<&'static str> {
    all().keys().copied().collect()
}
