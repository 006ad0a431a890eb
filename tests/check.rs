//! `rally check [PATH]` (issue 23 §5): every script of a project's layers is read without
//! running a game, and each mistake is reported with its file, line and the nearest known
//! name, exit status 1; `rally test` runs the same check before any scenario.

use crate::support::{rally, rally_ok, text};
use std::path::Path;

/// A project whose only script is `scripts/elements/probe.lua` with `text`, and a scenario
/// `s.toml` with robot A on a probe tile and an expectation that holds.
fn project(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "scripts/elements/probe.lua", text);
    write(
        dir.path(),
        "s.toml",
        "registers = 1\n[board]\ngrid = \"P P\"\n[board.legend]\n\"P\" = { element = \"probe\" }\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"E\"\n[expect.A]\nat = [0, 0]\n",
    );
    dir
}

fn write(dir: &Path, file: &str, text: &str) {
    let path = dir.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// An element whose `fire` step runs `body` (line 4) only when a robot's damage is 99, which
/// no scenario reaches: only a static check can find its mistakes.
fn never_run(body: &str) -> String {
    format!("return rally.element {{\n  name = \"probe\",\n  steps = {{ fire = function(ctx, tile, robot)\n    if robot.damage == 99 then {body} end\n  end }},\n}}\n")
}

/// `rally check` in `dir`: exit status 1, and the error lines it printed.
fn problems(dir: &Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["check"];
    all.extend(args);
    let out = rally(dir, &all);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .map(String::from)
        .collect()
}

#[test]
fn a_clean_project_passes_and_says_what_it_read() {
    let dir = project(&never_run("ctx:move(robot, \"N\")"));
    let out = rally_ok(dir.path(), &["check"]);
    assert!(out.contains("scripts checked, no problems"), "{out}");
    assert!(out.contains("built-in, project (scripts)"), "{out}");
    // The same from a file of the project, and from its folder.
    let again = rally_ok(dir.path(), &["check", "s.toml"]);
    assert_eq!(again, out);
    let outside = rally_ok(
        dir.path().parent().unwrap(),
        &["check", &dir.path().to_string_lossy()],
    );
    assert!(outside.contains("no problems"), "{outside}");
}

#[test]
fn a_typo_on_a_path_no_robot_takes_is_found_with_its_line_and_a_suggestion() {
    let dir = project(&never_run("ctx:mvoe(robot, \"N\")"));
    // The game itself never meets it.
    assert_eq!(rally(dir.path(), &["run", "s.toml"]).status.code(), Some(0));
    assert_eq!(
        problems(dir.path(), &[]),
        ["error: scripts/elements/probe.lua:4: `ctx:mvoe` does not exist (did you mean `ctx:move`?)"]
    );
}

#[test]
fn every_problem_of_every_file_is_reported_in_one_run() {
    let dir = project(&never_run(
        "local p = rally.stpe(robot.at, \"N\"); local n = ctx.regster; local t = os.time(); tota = 1; print(undefined_thing)",
    ));
    write(dir.path(), "scripts/rules/house.lua", "return rally.rule {\n  name = \"house\",\n  steps = { fire = function(ctx) ctx:dmage() end },\n}\n");
    let found = problems(dir.path(), &[]);
    let at = "error: scripts/elements/probe.lua:4: ";
    assert_eq!(
        found,
        [
            "error: scripts/rules/house.lua:3: `ctx:dmage` does not exist (did you mean `ctx:damage`?)".to_string(),
            format!("{at}`rally.stpe` does not exist (did you mean `rally.step`?)"),
            format!("{at}`ctx.regster` does not exist (did you mean `ctx.register`?)"),
            format!("{at}`os` is not available to scripts: the sandbox leaves out io, os, debug, package, require, load, loadfile, dofile, loadstring, collectgarbage, unpack, setfenv, getfenv, module (a script sees the game's turn and register in `ctx.turn`, `ctx.register`, and draws chance from `ctx:random`) (docs/sandbox.md)"),
            format!("{at}assigns the global `tota`: scripts keep no globals (declare it with `local`; state lives in vars: ctx:set_var, ctx:set_game_var)"),
            format!("{at}undeclared global `undefined_thing` (declare it with `local`, or check the spelling)"),
        ]
    );
}

#[test]
fn a_variant_s_scripts_are_checked_and_see_their_params() {
    let dir = project(&never_run("ctx:move(robot, \"N\")"));
    write(dir.path(), "variants/house/variant.toml", "name = \"house\"\ndescription = \"a house rule\"\nfiles = [\"rule.lua\"]\n[params.n]\nkind = \"int\"\ndefault = 1\n");
    write(dir.path(), "variants/house/rule.lua", "return rally.rule {\n  name = \"house\",\n  steps = { fire = function(ctx)\n    if params.n > 1 then ctx:damge() end\n  end },\n}\n");
    assert_eq!(
        problems(dir.path(), &[]),
        ["error: variants/house/rule.lua:4: `ctx:damge` does not exist (did you mean `ctx:damage`?)"]
    );
}

#[test]
fn a_pack_s_scripts_are_checked_as_the_project_s_are() {
    let dir = project(&never_run("ctx:move(robot, \"N\")"));
    write(dir.path(), "rally.toml", "packs = [\"packs/toll\"]\n");
    write(
        dir.path(),
        "packs/toll/scripts/elements/gate.lua",
        "return rally.element {\n  name = \"gate\",\n  on_enter = function(ctx, tile, robot, info)\n    if info.how == \"belt\" then ctx:plcae(robot, tile.at) end\n  end,\n}\n",
    );
    assert_eq!(
        problems(dir.path(), &[]),
        ["error: packs/toll/scripts/elements/gate.lua:4: `ctx:plcae` does not exist (did you mean `ctx:place`?)"]
    );
    // Named by its own folder, the pack is a project of its own.
    assert_eq!(
        problems(dir.path(), &["packs/toll"]),
        ["error: packs/toll/scripts/elements/gate.lua:4: `ctx:plcae` does not exist (did you mean `ctx:place`?)"]
    );
}

#[test]
fn handlers_are_checked_against_what_they_are_called_with() {
    let dir = project("return rally.element {\n  name = \"probe\",\n  steps = { fire = function(ctx, robot) end },\n  on_enter = function(ctx, tile, robot, info, extra) end,\n}\n");
    let mut found = problems(dir.path(), &[]);
    found.sort();
    assert_eq!(
        found,
        [
            "error: scripts/elements/probe.lua:3: parameter 2 of `steps.fire` is named `robot`, but it is given the tile; `robot` comes third: function(ctx, tile, robot)",
            "error: scripts/elements/probe.lua:4: `on_enter` takes 5 parameters (ctx, tile, robot, info, extra), but it is called with 4: function(ctx, tile, robot, info)",
        ]
    );
    // An option's handlers get the held card last; a rule's steps only ctx.
    let dir = project(&never_run("ctx:move(robot, \"N\")"));
    write(dir.path(), "scripts/options/o.lua", "return rally.option {\n  name = \"o\",\n  on_push = function(ctx, robot, option) end,\n}\n");
    assert_eq!(
        problems(dir.path(), &[]),
        ["error: scripts/options/o.lua:3: parameter 3 of `on_push` is named `option`, but it is given the other; `option` comes fifth: function(ctx, robot, other, info, option)"]
    );
}

#[test]
fn a_declaration_s_unknown_key_is_reported_with_the_key_s_line() {
    let dir = project("return rally.element {\n  name = \"probe\",\n  stpes = {},\n}\n");
    let found = problems(dir.path(), &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("error: scripts/elements/probe.lua:3:3: element `probe`: unknown field `stpes` (did you mean `steps`?)"),
        "{found:?}"
    );
}

#[test]
fn every_unknown_key_of_a_file_is_reported_each_at_its_key() {
    // Declaration keys, a nested table's key, and `rally.param.*` options: all of them in
    // one run, each with its own line and column (not the call's), in the file's order.
    let dir = project("return rally.element {\n  name = \"probe\",\n  stpes = {},\n  params = { n = rally.param.int { deflt = 3, mx = 4 },\n    m = rally.param.dir { defualt = \"N\" } },\n  glpyh = \"x\",\n  blocks = { lasrs = true },\n}\n");
    let found = problems(dir.path(), &[]);
    let at: Vec<&str> = found
        .iter()
        .map(|l| l.split(": ").nth(1).unwrap_or(""))
        .collect();
    assert_eq!(
        at,
        [
            "scripts/elements/probe.lua:3:3",
            "scripts/elements/probe.lua:4:36",
            "scripts/elements/probe.lua:4:47",
            "scripts/elements/probe.lua:5:27",
            "scripts/elements/probe.lua:6:3",
            "scripts/elements/probe.lua:7:14",
        ],
        "{found:?}"
    );
    assert!(
        found[0].contains("unknown field `stpes` (did you mean `steps`?)"),
        "{found:?}"
    );
    assert!(
        found[1].contains("rally.param.int: unknown field `deflt` (did you mean `default`?)"),
        "{found:?}"
    );
    assert!(found[2].contains("unknown field `mx`"), "{found:?}");
    assert!(
        found[3].contains("rally.param.dir: unknown field `defualt`"),
        "{found:?}"
    );
    assert!(
        found[4].contains("unknown field `glpyh` (did you mean `glyph`?)"),
        "{found:?}"
    );
    assert!(
        found[5].contains("blocks: unknown field `lasrs` (did you mean `lasers`?)"),
        "{found:?}"
    );
    let out = rally(dir.path(), &["check"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("6 problems in"), "{stderr}");
    // Each is shown with its source line and a caret under the key.
    assert!(
        stderr.contains(" --> scripts/elements/probe.lua:5:27"),
        "{stderr}"
    );
    // A game refuses the file with the same problems (exit 2).
    let out = rally(dir.path(), &["run", "s.toml"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("probe.lua:4:47: rally.param.int: unknown field `mx`"),
        "{stderr}"
    );
}

#[test]
fn a_param_s_unknown_key_points_at_the_key_not_the_call() {
    let dir = project("return rally.element {\n  name = \"probe\",\n  params = {\n    n = rally.param.int {\n      min = 1,\n      deflt = 3,\n    },\n  },\n}\n");
    let found = problems(dir.path(), &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("error: scripts/elements/probe.lua:6:7: rally.param.int: unknown field `deflt` (did you mean `default`?)"),
        "{found:?}"
    );
}

#[test]
fn a_syntax_error_is_a_problem() {
    let dir = project("return rally.element {\n  name = \"probe\",\n  steps = {\n}\n");
    let found = problems(dir.path(), &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("error: scripts/elements/probe.lua:5:"),
        "{found:?}"
    );
}

#[test]
fn rally_test_checks_the_scripts_before_running_any_scenario() {
    let dir = project(&never_run("ctx:mvoe(robot, \"N\")"));
    let out = rally(dir.path(), &["test", "s.toml"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let all = text(&out);
    assert!(
        all.contains("probe.lua:4: `ctx:mvoe` does not exist"),
        "{all}"
    );
    assert!(all.contains("no scenario was run"), "{all}");
    assert!(!all.contains("passed"), "{all}");
    // Fixed, the scenario runs.
    write(
        dir.path(),
        "scripts/elements/probe.lua",
        &never_run("ctx:move(robot, \"N\")"),
    );
    let out = rally_ok(dir.path(), &["test", "s.toml"]);
    assert!(out.contains("1 passed, 0 failed"), "{out}");
}

#[test]
fn a_path_that_does_not_exist_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let stderr = crate::support::rally_refused(dir.path(), &["check", "nowhere"]);
    assert!(
        stderr.starts_with("error: nowhere: does not exist"),
        "{stderr}"
    );
}

/// A script in a subfolder of `scripts/elements` (or rules, options) would never be loaded
/// nor watched: the folder is refused by every command that reads the rules, naming it.
#[test]
fn a_subfolder_of_a_scripts_folder_is_refused_naming_it() {
    for sub in ["elements", "rules", "options"] {
        let dir = project(&never_run("ctx:move(robot, \"N\")"));
        write(
            dir.path(),
            &format!("scripts/{sub}/more/beacon.lua"),
            "return rally.element { name = \"beacon\" }\n",
        );
        for args in [
            &["run", "s.toml"][..],
            &["check"],
            &["render", "s.toml", "-o", "-"],
        ] {
            let out = rally(dir.path(), args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{sub} {args:?}: {stderr}");
            assert!(
                stderr.contains(&format!("error: scripts/{sub}/more: is a folder: scripts are not read from subfolders of {sub}/")),
                "{sub} {args:?}: {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
        // `rally test` fails the scenario with the same words.
        let out = rally(dir.path(), &["test", "s.toml"]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        assert!(
            text(&out).contains(&format!("scripts/{sub}/more: is a folder")),
            "{}",
            text(&out)
        );
    }
}
