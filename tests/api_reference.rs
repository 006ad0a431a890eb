//! docs/api.md is generated from scripts/types/rally.lua (src/script/reference.rs) and must not go
//! stale; every entry of the annotations must be described, with an example where the
//! reference gives it a heading. (tests/lua_api.rs checks the annotations against the host.)

use crate::support;

use rally::script::reference;
use std::path::Path;

const REFERENCE: &str = "docs/api.md";

fn annotations() -> reference::Api {
    let text = std::fs::read_to_string(reference::ANNOTATIONS_PATH).unwrap();
    reference::parse(&text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_entry_is_described_with_an_example() {
    let missing = annotations().undocumented();
    assert!(
        missing.is_empty(),
        "the API reference needs these in {}:\n{}",
        reference::ANNOTATIONS_PATH,
        missing.join("\n")
    );
}

/// Regenerate with `cargo run -- types --markdown docs/api.md` (or run this test with
/// RALLY_UPDATE_DOCS=1).
#[test]
fn docs_api_md_is_generated_from_the_annotations() {
    let fresh = reference::markdown(&annotations());
    if std::env::var_os("RALLY_UPDATE_DOCS").is_some() {
        std::fs::write(REFERENCE, &fresh).unwrap();
    }
    let written = std::fs::read_to_string(REFERENCE).unwrap_or_default();
    assert!(
        written == fresh,
        "{REFERENCE} is stale: regenerate it with `cargo run -- types --markdown {REFERENCE}` \
         (or RALLY_UPDATE_DOCS=1 cargo test --test tests api_reference)"
    );
}

#[test]
fn the_binary_carries_the_annotations_on_disk() {
    let on_disk = std::fs::read_to_string(reference::ANNOTATIONS_PATH).unwrap();
    assert_eq!(
        on_disk,
        reference::ANNOTATIONS,
        "rebuild: the embedded copy is stale"
    );
    assert_eq!(support::rally_ok(Path::new("."), &["types"]), on_disk);
}

#[test]
fn rally_types_writes_the_annotations_and_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let types = dir.path().join("types");
    let md = dir.path().join("api.md");
    for args in [
        vec!["types", "-o", types.to_str().unwrap()],
        vec!["types", "--markdown", md.to_str().unwrap()],
    ] {
        support::rally_ok(dir.path(), &args);
    }
    assert_eq!(
        std::fs::read_to_string(types.join("rally.lua")).unwrap(),
        reference::ANNOTATIONS
    );
    assert_eq!(
        std::fs::read_to_string(&md).unwrap(),
        std::fs::read_to_string(Path::new(REFERENCE)).unwrap()
    );
}
