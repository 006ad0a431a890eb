//! Keeps scripts/types/rally.lua (the LuaLS annotations editors use for completion and type
//! checks) in step with the scripting API: every `ctx` method and field, robot field, `build`
//! builder method, `rally.*` and `rally.param.*` member, declaration key and step of the order
//! of play must be annotated, and nothing annotated may be missing from the API.
//!
//! The API side is read from the running host where it can be (the `rally` table a rule set
//! builds, the keys `rally.element{}` and `rally.rule{}` and variant.toml accept, the order
//! of play), and from the method registrations in src/script/ for the native userdata. The
//! annotations are read as the API reference (docs/api.md) reads them: src/script/reference.rs.

use crate::support;

use rally::script::reference::{self, Api, Section};
use rally::script::{RuleSet, Sources};
use std::collections::BTreeSet;
use std::path::Path;

type Names = BTreeSet<String>;

/// The annotations as the API reference reads them (src/script/reference.rs).
fn annotations() -> Api {
    let text = std::fs::read_to_string(reference::ANNOTATIONS_PATH).unwrap();
    reference::parse(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// The functions (or the fields and values) of a class, or of the table a class is bound to.
fn members(section: Option<&Section>, what: &str, functions: bool) -> Names {
    section
        .unwrap_or_else(|| panic!("{} has no {what}", reference::ANNOTATIONS_PATH))
        .names(functions)
        .into_iter()
        .collect()
}

fn fields(api: &Api, class: &str) -> Names {
    members(api.class(class), &format!("---@class {class}"), false)
}

fn methods(api: &Api, var: &str) -> Names {
    members(api.bound(var), &format!("`local {var} = {{}}`"), true)
}

/// The first string literal after each `call` in `source` (method registrations, whose name
/// may be on the next line).
fn registered(source: &str, call: &str) -> Names {
    source
        .match_indices(call)
        .filter_map(|(i, _)| {
            let rest = &source[i + call.len()..];
            let open = rest.find('"')?;
            let close = rest[open + 1..].find('"')?;
            Some(rest[open + 1..open + 1 + close].to_string())
        })
        .collect()
}

/// The part of `source` from `from` up to `to` (or the end).
fn section<'a>(source: &'a str, from: &str, to: Option<&str>) -> &'a str {
    let start = source.find(from).unwrap_or_else(|| panic!("no `{from}`"));
    let rest = &source[start..];
    match to.and_then(|t| rest.find(t)) {
        Some(end) => &rest[..end],
        None => rest,
    }
}

fn same(what: &str, api: Names, annotated: Names) {
    let missing: Vec<_> = api.difference(&annotated).collect();
    let stale: Vec<_> = annotated.difference(&api).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "{what}: not annotated in {}: {missing:?}; annotated but not in the API: {stale:?}",
        reference::ANNOTATIONS_PATH
    );
}

fn rules_from(scripts: &Path) -> rally::Result<RuleSet> {
    RuleSet::load(&Sources {
        project: rally::script::Project::folders(scripts, "variants"),
        choices: Vec::new(),
    })
}

#[test]
fn ctx_methods_and_fields() {
    let ctx = std::fs::read_to_string("src/engine/ctx.rs").unwrap();
    let api = annotations();
    let ctx_impl = section(&ctx, "impl UserData for Ctx", Some("\nimpl "));
    same(
        "ctx methods",
        registered(ctx_impl, "add_method("),
        methods(&api, "Ctx"),
    );
    // Fields are read natively (src/engine/native.rs), from these lists.
    same(
        "ctx fields",
        rally::engine::CTX_FIELDS
            .iter()
            .map(|f| f.to_string())
            .collect(),
        fields(&api, "rally.Ctx"),
    );
    same(
        "robot fields",
        rally::engine::ROBOT_FIELDS
            .iter()
            .map(|(f, _)| f.to_string())
            .collect(),
        fields(&api, "rally.Robot"),
    );
}

#[test]
fn builder_methods() {
    let host = std::fs::read_to_string("src/script/mod.rs").unwrap();
    same(
        "build(b, tile) methods",
        registered(&host, "reg.add_method("),
        methods(&annotations(), "Builder"),
    );
}

#[test]
fn rally_table() {
    let rules = rules_from(Path::new("scripts")).unwrap();
    let rally: mlua::Table = rules.lua.globals().get("rally").unwrap();
    // Scripts see `rally` read-only: its fields are behind the view.
    let keys = |t: &mlua::Table| -> Names {
        rally::script::views::open(&rules.lua, t)
            .unwrap()
            .pairs::<String, mlua::Value>()
            .map(|p| p.unwrap().0)
            .collect()
    };
    let api = annotations();
    // The members of `rally`: its functions and values, and the tables bound to `rally.X`.
    let mut annotated = members(api.bound("rally"), "`rally = {}`", true);
    annotated.extend(members(api.bound("rally"), "`rally = {}`", false));
    annotated.extend(
        api.sections
            .iter()
            .filter_map(|s| s.var.as_deref()?.strip_prefix("rally."))
            .map(String::from),
    );
    same("rally.*", keys(&rally), annotated);
    let param: mlua::Table = rally.get("param").unwrap();
    same("rally.param.*", keys(&param), methods(&api, "rally.param"));
}

/// The keys a declaration accepts, read from the error a wrong key gets.
fn accepted_keys(declaration: &str) -> Names {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("elements")).unwrap();
    std::fs::write(dir.path().join("elements/probe.lua"), declaration).unwrap();
    let message = rules_from(dir.path()).err().unwrap().to_string();
    let list = message
        .split("expected one of ")
        .nth(1)
        .unwrap_or_else(|| panic!("no key list in: {message}"));
    list.split(',').map(|k| k.trim().to_string()).collect()
}

#[test]
fn declaration_keys() {
    let api = annotations();
    same(
        "rally.element { ... } keys",
        accepted_keys(r#"rally.element { name = "probe", probe_key = 1 }"#),
        fields(&api, "rally.ElementDecl"),
    );
    same(
        "rally.rule { ... } keys",
        accepted_keys(r#"rally.rule { name = "probe", probe_key = 1 }"#),
        fields(&api, "rally.RuleDecl"),
    );
    same(
        "rally.option { ... } keys",
        accepted_keys(r#"rally.option { name = "probe", probe_key = 1 }"#),
        fields(&api, "rally.OptionDecl"),
    );
    same(
        "draw = { ... } keys",
        accepted_keys(r#"rally.element { name = "probe", draw = { probe_key = 1 } }"#),
        fields(&api, "rally.Draw"),
    );
}

/// The keys a variant.toml table accepts, read from the error an unknown key gets.
fn variant_keys(toml: &str) -> Names {
    let dir = tempfile::tempdir().unwrap();
    let variant = dir.path().join("probe");
    std::fs::create_dir_all(&variant).unwrap();
    std::fs::write(variant.join("variant.toml"), toml).unwrap();
    let message = rally::script::variant::Variant::load(&variant)
        .err()
        .unwrap()
        .to_string();
    let list = message
        .split("expected one of ")
        .nth(1)
        .unwrap_or_else(|| panic!("no key list in: {message}"));
    let list = list.lines().next().unwrap_or_default();
    list.split(',')
        .map(|k| k.trim().trim_matches('`').to_string())
        .collect()
}

#[test]
fn variant_toml_keys() {
    let api = annotations();
    let head = "name = \"probe\"\ndescription = \"probe\"\n";
    same(
        "variant.toml keys",
        variant_keys(&format!("{head}probe_key = 1\n")),
        fields(&api, "rally.VariantToml"),
    );
    same(
        "variant.toml [params.NAME] keys",
        variant_keys(&format!(
            "{head}[params.p]\nkind = \"int\"\ndefault = 1\nprobe_key = 1\n"
        )),
        fields(&api, "rally.VariantParamToml"),
    );
    same(
        "variant.toml [[step]] keys",
        variant_keys(&format!("{head}[[step]]\nname = \"s\"\nprobe_key = 1\n")),
        fields(&api, "rally.VariantStepToml"),
    );
}

#[test]
fn steps_of_the_order_of_play() {
    same(
        "steps",
        rally::order::standard()
            .into_iter()
            .map(|s| s.name)
            .collect(),
        fields(&annotations(), "rally.Steps"),
    );
}

#[test]
fn the_editor_config_points_at_the_annotations() {
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(".luarc.json").unwrap()).unwrap();
    let library = config["workspace.library"].as_array().unwrap();
    assert!(library
        .iter()
        .any(|l| Path::new(l.as_str().unwrap()).join("rally.lua").is_file()));
    assert_eq!(config["runtime.version"], "Lua 5.4");
}

#[test]
fn only_with_names_elements_that_exist() {
    let load = |rule: &str| {
        let dir = tempfile::tempdir().unwrap();
        support::copy_dir(Path::new("scripts/elements"), &dir.path().join("elements"));
        std::fs::create_dir_all(dir.path().join("rules")).unwrap();
        std::fs::write(dir.path().join("rules/probe.lua"), rule).unwrap();
        rules_from(dir.path()).err().map(|e| e.to_string())
    };
    let typo = load(r#"rally.rule { name = "probe", only_with = { "gaer" } }"#).unwrap();
    assert!(
        typo.contains("rule `probe`: `only_with` names `gaer`, which no script defines (did you mean `gear`?)"),
        "{typo}"
    );
    let wrong = load(r#"rally.rule { name = "probe", only_with = 3 }"#).unwrap();
    assert!(
        wrong.contains("`only_with` must be a list of element names"),
        "{wrong}"
    );
    assert_eq!(
        load(r#"rally.rule { name = "probe", only_with = { "gear" } }"#),
        None
    );
}

/// Each hook a declaration accepts is annotated with the arguments and result the table of
/// hooks (`src/hooks.rs`) gives its kind of listener (names may differ: a rule's `on_push`
/// calls its robots `pusher` and `pushed`).
#[test]
fn hooks_are_annotated_as_the_table_says() {
    use rally::hooks::{Hook, Listener};
    let api = annotations();
    let types = |signature: &str| -> String {
        // `fun(ctx: rally.Ctx, robot: rally.Robot): R` without the parameters' names.
        let (params, returns) = signature.split_once(')').expect("fun(...)");
        let params: Vec<&str> = params
            .trim_start_matches("fun(")
            .split(", ")
            .map(|p| p.split_once(": ").map_or(p, |(_, t)| t))
            .collect();
        format!("({}){returns}", params.join(", "))
    };
    for (class, listener) in [
        ("rally.ElementDecl", Listener::Square),
        ("rally.RuleDecl", Listener::Rules),
        ("rally.OptionDecl", Listener::Options),
    ] {
        let section = api.class(class).expect(class);
        for spec in Hook::heard_by(listener) {
            let entry = section
                .entries
                .iter()
                .find(|e| e.name == spec.key)
                .unwrap_or_else(|| panic!("{class} has no field {}", spec.key));
            let reference::EntryKind::Field { ty, .. } = &entry.kind else {
                panic!("{class}.{} is not a field", spec.key);
            };
            assert_eq!(
                types(ty),
                types(&spec.signature(listener)),
                "{class}.{} (scripts/types/rally.lua:{})",
                spec.key,
                entry.line
            );
        }
    }
}
