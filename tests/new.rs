//! `rally new element|variant|scenario`: every generated stub runs as it is, its scenario
//! passes `rally test` and the catalogue lists it; a fresh folder is set up as a project
//! layered on the standard rules (a `rally.toml`, the API annotations and `.luarc.json`, no
//! copy of the standard scripts); nothing is ever overwritten and a bad name is a clear error.

use crate::support::rally;
use std::path::Path;

use crate::support::rally_ok as ok;

/// Exit status 2 and the stderr that says why.
fn refused(dir: &Path, args: &[&str]) -> String {
    let out = rally(dir, args);
    assert_eq!(out.status.code(), Some(2), "rally {args:?} should fail");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn each_generated_project_runs_and_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["new", "element", "spring_pad"]);
    ok(d, &["new", "variant", "sudden-death"]);
    ok(d, &["new", "scenario", "first_steps"]);
    for file in [
        "scripts/elements/spring_pad.lua",
        "tests/scenarios/spring_pad.toml",
        "variants/sudden-death/variant.toml",
        "variants/sudden-death/sudden_death.lua",
        "tests/scenarios/sudden-death.toml",
        "tests/scenarios/first_steps.toml",
        ".luarc.json",
        "rally.toml",
    ] {
        assert!(d.join(file).is_file(), "no {file}");
    }
    // Layered on the standard rules, not a fork of them.
    let copied = |dir: &str| std::fs::read_dir(d.join(dir)).unwrap().count();
    assert_eq!(copied("scripts/elements"), 1, "only the new element");
    assert!(!d.join("scripts/rules").exists() && !d.join("scripts/options").exists());
    assert_eq!(copied("variants"), 1, "only the new variant");
    let manifest = std::fs::read_to_string(d.join("rally.toml")).unwrap();
    assert!(
        manifest.contains(&format!(
            "rally_version = \"{}\"",
            env!("CARGO_PKG_VERSION")
        )),
        "{manifest}"
    );
    // The editor sees the same annotations the binary carries (`rally types`).
    assert_eq!(
        std::fs::read_to_string(d.join("scripts/types/rally.lua")).unwrap(),
        rally::script::reference::ANNOTATIONS
    );
    let test = ok(d, &["test"]);
    assert!(test.contains("3 passed, 0 failed"), "{test}");
    // The stub draws itself (its `draw` block), not as the fallback square.
    ok(
        d,
        &["render", "tests/scenarios/spring_pad.toml", "-o", "pad.svg"],
    );
    let svg = std::fs::read_to_string(d.join("pad.svg")).unwrap();
    assert!(
        svg.contains("#8fb3d9") && !svg.contains("fallback"),
        "{svg}"
    );
    assert!(ok(d, &["elements"]).contains("spring_pad"));
    assert!(
        ok(d, &["elements"]).contains("conveyor"),
        "the standard elements stay"
    );
    let variants = ok(d, &["variants"]);
    assert!(
        variants.contains("sudden-death") && variants.contains("ice-rink"),
        "{variants}"
    );
}

#[test]
fn the_element_stub_is_really_exercised_by_its_scenario() {
    // Break the stub's push: its own scenario must notice.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["new", "element", "pad"]);
    let file = d.join("scripts/elements/pad.lua");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace("ctx:queue_push(robot, tile.dir, \"the pad\")", ""),
    )
    .unwrap();
    let out = rally(d, &["test"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 passed, 1 failed"));
}

#[test]
fn another_folder_and_an_existing_project() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["new", "element", "magnet", "--dir", "game"]);
    assert!(d.join("game/scripts/elements/magnet.lua").is_file());
    assert!(ok(&d.join("game"), &["test"]).contains("1 passed, 0 failed"));
    // A project that has scripts/ keeps its own editor configuration.
    std::fs::write(d.join("game/.luarc.json"), "{}").unwrap();
    ok(d, &["new", "element", "toll_gate", "--dir", "game"]);
    assert_eq!(
        std::fs::read_to_string(d.join("game/.luarc.json")).unwrap(),
        "{}"
    );
    assert!(ok(&d.join("game"), &["test"]).contains("2 passed, 0 failed"));
}

#[test]
fn nothing_is_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["new", "element", "pad"]);
    let file = d.join("scripts/elements/pad.lua");
    std::fs::write(&file, "-- mine").unwrap();
    let err = refused(d, &["new", "element", "pad"]);
    assert!(
        err.contains("scripts/elements/pad.lua") && err.contains("already exists"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "-- mine");
    // The scenario alone existing is refused too, before anything is written.
    std::fs::write(d.join("tests/scenarios/gate.toml"), "# mine").unwrap();
    let err = refused(d, &["new", "element", "gate"]);
    assert!(err.contains("tests/scenarios/gate.toml"), "{err}");
    assert!(!d.join("scripts/elements/gate.lua").exists());
    let err = refused(d, &["new", "scenario", "gate"]);
    assert!(err.contains("gate.toml"), "{err}");
}

#[test]
fn names_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (kind, name, says) in [
        ("element", "spring-pad", "e.g. `spring_pad`"),
        ("element", "2fast", "not starting with a digit"),
        ("element", "end", "Lua keyword"),
        ("element", "", "not a valid element name"),
        ("variant", "../up", "not a valid variant name"),
        ("scenario", "a/b", "not a valid scenario name"),
    ] {
        let err = refused(d, &["new", kind, name]);
        assert!(err.contains(says), "{kind} {name:?}: {err}");
    }
    // Names the project already uses.
    let err = refused(d, &["new", "element", "gear"]);
    assert!(err.contains("already") && err.contains("gear"), "{err}");
    let err = refused(d, &["new", "variant", "ice-rink"]);
    assert!(err.contains("already a variant `ice-rink`"), "{err}");
    assert!(
        !d.join("scripts").exists(),
        "a refused name leaves the folder as it was"
    );
}

/// `.luarc.json` (written by `rally new`) tells the editor exactly which libraries are
/// missing: each one it disables is one the sandbox does not provide, and the other way round.
#[test]
fn the_editor_setup_disables_only_what_the_sandbox_lacks() {
    let luarc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".luarc.json"))
            .unwrap(),
    )
    .unwrap();
    let builtin = luarc["runtime.builtin"].as_object().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["-q", "new", "element", "probe"]);
    for name in [
        "coroutine",
        "debug",
        "io",
        "os",
        "package",
        "string",
        "table",
        "math",
        "utf8",
    ] {
        let disabled = builtin.get(name).and_then(|v| v.as_str()) == Some("disable");
        std::fs::write(
            d.join("scripts/elements/zz_check.lua"),
            format!(
                "assert(pcall(function() return {name} end) == {}, '{name}')\nreturn rally.element {{ name = 'zz_check' }}\n",
                !disabled
            ),
        )
        .unwrap();
        let out = rally(d, &["elements", "zz_check"]);
        assert!(
            out.status.success(),
            "{name}: .luarc.json says {}, the sandbox disagrees: {}",
            if disabled { "disabled" } else { "available" },
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
