//! The sandbox and the register transaction (design.md principles 5 and 6, docs/sandbox.md),
//! attacked as a hostile or careless script would (issue 10). The attacks run the real binary
//! (`sandbox/harness.rs`) and must end within seconds, exit status 2, with an error naming the
//! script's file and line, in bounded memory, changing nothing outside the game; the tests at
//! the end drive a rule set in-process.

mod harness;

mod boards;
mod budget;
mod determinism;
mod isolation;
mod native;
mod outputs;
mod state;
mod store;
mod terminal;
use rally::formats::scenario::Scenario;
use rally::script::{RuleSet, Sources};
use std::path::{Path, PathBuf};

/// A scripts folder with the standard elements plus `extra.lua` holding `source`.
fn scripts_with(dir: &Path, source: &str) -> PathBuf {
    let scripts = dir.join("scripts");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    for sub in ["elements", "rules"] {
        std::fs::create_dir_all(scripts.join(sub)).unwrap();
        for entry in std::fs::read_dir(root.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, scripts.join(sub).join(path.file_name().unwrap())).unwrap();
        }
    }
    std::fs::write(scripts.join("elements/extra.lua"), source).unwrap();
    scripts
}

fn load(source: &str) -> (tempfile::TempDir, Result<RuleSet, rally::Error>) {
    let dir = tempfile::tempdir().unwrap();
    let scripts = scripts_with(dir.path(), source);
    let rules = RuleSet::load(&Sources {
        project: rally::script::Project::folders(scripts, dir.path().join("variants")),
        choices: Vec::new(),
    });
    (dir, rules)
}

fn load_error(source: &str) -> String {
    match load(source).1 {
        Ok(_) => panic!("loading should have failed:\n{source}"),
        Err(e) => e.to_string(),
    }
}

/// An element `trap` whose `on_card` runs `body`; robot A stands on it with one card.
fn run_trap(
    body: &str,
) -> (
    Scenario,
    Result<rally::engine::Engine, rally::Error>,
    String,
) {
    let element = format!(
        "return rally.element {{ name = 'trap', on_card = function(ctx, tile, robot, card)\n{body}\nend }}"
    );
    let (dir, rules) = load(&element);
    let scenario_path = dir.path().join("s.toml");
    std::fs::write(&scenario_path, harness::TRAP_BOARD).unwrap();
    let scenario = Scenario::load(&scenario_path).unwrap();
    let mut game = scenario.start(rules.unwrap()).unwrap();
    let result = scenario.resolve(&mut game);
    let message = result
        .as_ref()
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    (scenario, Ok(game), message)
}

#[test]
fn forbidden_libraries_are_not_there() {
    for name in [
        "io",
        "os",
        "debug",
        "package",
        "require",
        "load",
        "loadfile",
        "dofile",
        "collectgarbage",
    ] {
        let err = load_error(&format!("local x = {name}"));
        assert!(
            err.contains(&format!(
                "`{name}` is not available to scripts: the sandbox leaves out io, os, debug"
            )),
            "{name}: {err}"
        );
        assert!(
            err.contains("extra.lua:1:"),
            "{name} error names file and line: {err}"
        );
    }
}

#[test]
fn bytecode_cannot_be_made_or_loaded() {
    let err = load_error("local f = string.dump(function() end)");
    assert!(err.contains("dump"), "{err}");
    let err = load_error("local f = load('\\27Lua')");
    assert!(err.contains("`load` is not available to scripts"), "{err}");
}

#[test]
fn globals_are_strict() {
    let err = load_error("counter = 1");
    assert!(err.contains("assignment to global `counter`"), "{err}");
    let err = load_error("local x = rally.elemnt");
    assert!(err.contains("extra.lua:1:") || err.contains("nil"), "{err}");
}

#[test]
fn a_syntax_error_names_file_and_line() {
    let err = load_error("local x = 1\nreturn rally.element { name = 'x', }}");
    assert!(err.contains("extra.lua:2:"), "{err}");
}

#[test]
fn an_unknown_declaration_key_is_an_error_with_a_suggestion() {
    let err = load_error("return rally.element { name = 'x', stpes = {} }");
    assert!(
        err.contains("unknown field `stpes`") && err.contains("did you mean `steps`"),
        "{err}"
    );
    assert!(err.contains("extra.lua:1:"), "{err}");
}

#[test]
fn an_endless_loop_while_loading_is_stopped() {
    let err = load_error("while true do end");
    assert!(err.contains("instruction budget exceeded"), "{err}");
}

#[test]
fn an_endless_loop_in_a_handler_is_stopped_and_rolled_back() {
    let (_, game, err) = run_trap("while true do end");
    assert!(err.contains("instruction budget exceeded"), "{err}");
    assert!(
        err.contains("element `trap`") && err.contains("on_card") && err.contains("robot A"),
        "{err}"
    );
    assert!(err.contains("register 1"), "{err}");
    assert_eq!(
        game.unwrap().state().robots[0].at,
        rally::geometry::Pos::new(0, 0)
    );
}

#[test]
fn an_endless_loop_inside_pcall_is_still_stopped() {
    let (_, _, err) = run_trap("for i = 1, 10 do pcall(function() while true do end end) end");
    assert!(err.contains("instruction budget exceeded"), "{err}");
    let (_, _, err) = run_trap("local ok = pcall(function() while true do end end)\nreturn nil");
    assert!(err.contains("instruction budget exceeded"), "{err}");
}

#[test]
fn an_endless_loop_inside_a_coroutine_is_stopped() {
    let (_, _, err) = run_trap("local co = coroutine.wrap(function() while true do end end)\nco()");
    assert!(err.contains("instruction budget exceeded"), "{err}");
}

#[test]
fn a_memory_bomb_is_stopped() {
    let (_, _, err) = run_trap("local t = {}\nlocal s = string.rep('x', 1024 * 1024)\nfor i = 1, 1000 do t[i] = s .. i end");
    assert!(err.contains("out of memory"), "{err}");
}

#[test]
fn a_runtime_error_rolls_the_register_back() {
    // The handler moves the robot, then fails: the move must not survive.
    let (_, game, err) = run_trap("ctx:move(robot, 'E', 2, 'script')\nerror('boom')");
    assert!(err.contains("extra.lua:3: boom"), "{err}");
    let game = game.unwrap();
    let state = game.state();
    assert_eq!(state.robots[0].at, rally::geometry::Pos::new(0, 0));
    assert!(
        state.events.is_empty(),
        "events of the failed register are rolled back too"
    );
}

#[test]
fn vars_written_in_a_failed_register_are_as_they_were() {
    // The copy of the state kept for a rollback shares the vars with the game until a
    // script writes: a write must go to the game's own copy, never to the shared map.
    let run = |fail: bool| {
        let element = format!(
            "return rally.element {{ name = 'trap', on_card = function(ctx, tile, robot, card)\n\
             ctx:set_var(robot, 'n', robot.vars.n + 1)\nctx:set_game_var('g', 2)\n\
             if {fail} then error('boom') end\nend }}"
        );
        let (dir, rules) = load(&element);
        let path = dir.path().join("s.toml");
        let scenario = harness::TRAP_BOARD.replace("program =", "vars = { n = 1 }\nprogram =");
        std::fs::write(&path, scenario).unwrap();
        let scenario = Scenario::load(&path).unwrap();
        let mut game = scenario.start(rules.unwrap()).unwrap();
        let failed = scenario.resolve(&mut game).is_err();
        let state = game.state();
        (
            failed,
            state.robots[0].vars["n"].clone(),
            state.vars.get("g").cloned(),
        )
    };
    assert_eq!(run(true), (true, 1.into(), None), "rolled back");
    assert_eq!(run(false), (false, 2.into(), Some(2.into())), "kept");
}

#[test]
fn tiles_are_read_only() {
    let (_, _, err) = run_trap("tile.dir = 'N'");
    assert!(err.contains("read-only"), "{err}");
}

#[test]
fn math_random_is_the_games_seeded_rng() {
    let roll = || {
        let (_, game, err) = run_trap(
            "ctx:set_var(robot, 'r', { math.random(1000), math.random(5, 5), math.random() < 1 })",
        );
        assert!(err.is_empty(), "{err}");
        let game = game.unwrap();
        let vars = game.state().robots[0].vars.clone();
        vars["r"].clone()
    };
    let first = roll();
    assert_eq!(first, roll(), "same seed, same numbers");
    assert_eq!(first[1], 5);
    assert_eq!(first[2], true);
    let err = load_error("local x = math.random(3)");
    assert!(err.contains("not attached to a game"), "{err}");
}
