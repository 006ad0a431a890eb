//! Issue 12 §1–§2: every mistake a designer makes in a script or a file is an error that
//! names the script's file and line (and what it was doing), never silently lost, with the
//! offending line shown under it. Each test drives the real binary on a temporary project
//! and checks the whole first line of the error (which tests and editors read) and that the
//! snippet below it shows the right source line.

use crate::support::{rally, rally_refused};
use std::path::Path;

/// A project with one element, `probe`, whose `fire` handler runs `body` (at line 5), and a
/// scenario with robot A standing on it for one register.
fn handler(body: &str) -> tempfile::TempDir {
    element(&format!(
        "return rally.element {{\n  name = \"probe\",\n  steps = {{\n    fire = function(ctx, tile, robot)\n      {body}\n    end,\n  }},\n}}\n"
    ))
}

/// A project whose only script is `scripts/elements/probe.lua` with `text`, and a scenario
/// `s.toml` with robot A on a probe tile.
fn element(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scripts/elements")).unwrap();
    std::fs::write(dir.path().join("scripts/elements/probe.lua"), text).unwrap();
    scenario(dir.path(), "");
    dir
}

fn scenario(dir: &Path, head: &str) {
    std::fs::write(
        dir.join("s.toml"),
        format!(
            "registers = 1\n{head}[board]\ngrid = \"P P\"\n[board.legend]\n\"P\" = {{ element = \"probe\" }}\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"E\"\n"
        ),
    )
    .unwrap();
}

/// Checks the first line of `stderr` and that the snippet under it shows `line` (its
/// number and text).
fn says(stderr: &str, first: &str, line: usize, text: &str) {
    let mut lines = stderr.lines();
    assert_eq!(lines.next(), Some(first), "{stderr}");
    let rest: Vec<&str> = lines.collect();
    let number = format!("{line} |");
    assert!(
        rest.iter()
            .any(|l| l.trim_start().starts_with(&number) && l.trim_end().ends_with(text)),
        "the snippet should show line {line}, `{text}`:\n{stderr}"
    );
    assert!(rest.iter().any(|l| l.contains('^')), "no caret:\n{stderr}");
    assert!(
        !stderr.contains('\x1b'),
        "escape codes in a pipe:\n{stderr}"
    );
}

const IN_FIRE: &str =
    "error: element `probe` at [0, 0] (scripts/elements/probe.lua), step `fire`, robot A, register 1: scripts/elements/probe.lua:5: ";

fn handler_says(body: &str, message: &str) {
    let dir = handler(body);
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    says(&stderr, &format!("{IN_FIRE}{message}"), 5, body);
}

#[test]
fn writing_a_robots_vars_is_refused() {
    handler_says(
        "robot.vars.tolls = 1",
        "robots are read-only: use ctx:set_var(robot, 'tolls', n)",
    );
}

#[test]
fn a_table_read_from_a_robots_vars_is_read_only_too() {
    // Before: the write went to a copy and was silently lost.
    handler_says(
        "ctx:set_var(robot, 'tolls', { paid = 1 }); robot.vars.tolls.paid = 2",
        "cannot set `paid`: a table read from robot.vars is read-only, like the robot (a change there would be lost); store a changed copy with ctx:set_var(robot, name, copy)",
    );
    // Reading it, and storing a changed copy, works.
    let dir = handler("ctx:set_var(robot, 'tolls', { paid = 1 }); local copy = { paid = robot.vars.tolls.paid + 1 }; ctx:set_var(robot, 'tolls', copy); error('paid ' .. robot.vars.tolls.paid)");
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    assert!(stderr.contains("probe.lua:5: paid 2"), "{stderr}");
}

#[test]
fn a_misspelt_rally_name_gets_a_suggestion() {
    handler_says(
        "local p = rally.stpe(robot.at, 'N')",
        "`rally.stpe` does not exist (did you mean `rally.step`?)",
    );
}

#[test]
fn the_argument_of_the_wrong_type_is_blamed_and_numbers_are_shown_as_numbers() {
    // A number given for the direction: mlua made "2" of it and blamed `squares`.
    handler_says(
        "local distance = 2; ctx:move(robot, distance, 'N')",
        "`ctx:move`: argument `dir` must be a direction (\"N\", \"E\", \"S\" or \"W\"), got the number 2",
    );
    handler_says(
        "ctx:rotate(robot, 3)",
        "`ctx:rotate`: argument `rotation` must be a rotation (\"left\", \"right\" or \"uturn\"), got the number 3",
    );
    handler_says(
        "ctx:push(robot, 2.5)",
        "`ctx:push`: argument `dir` must be a direction (\"N\", \"E\", \"S\" or \"W\"), got the number 2.5",
    );
    handler_says(
        "ctx:move(robot, 'N', 1, true)",
        "`ctx:move`: argument `how` must be a way of moving (\"card\", \"push\", \"belt\", \"jump\" or \"script\") or nil, got `true`",
    );
}

#[test]
fn a_table_raised_as_an_error_shows_its_fields_and_the_line() {
    handler_says(
        "error({ code = 42, why = 'toll' })",
        "error raised with a table: { code = 42, why = \"toll\" }",
    );
    // A protected call still gets the table itself.
    handler_says(
        "local ok, e = pcall(error, { code = 42 }); error('caught ' .. e.code)",
        "caught 42",
    );
}

#[test]
fn a_library_the_sandbox_leaves_out_is_named_as_such() {
    handler_says(
        "local now = os.time()",
        "`os` is not available to scripts: the sandbox leaves out io, os, debug, package, require, load, loadfile, dofile, loadstring, collectgarbage, unpack, setfenv, getfenv, module (a script sees the game's turn and register in `ctx.turn`, `ctx.register`, and draws chance from `ctx:random`) (docs/sandbox.md)",
    );
    handler_says(
        "local x = ipars",
        "undeclared global `ipars` (did you mean `ipairs`?) (declare it with `local`, or check the spelling)",
    );
}

#[test]
fn the_caret_points_at_a_misspelt_declaration_key() {
    let dir = element("return rally.element {\n  name = \"probe\",\n  describe = \"steps = 1\",\n  params = {},\n    stpes = {},\n}\n");
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    says(
        &stderr,
        "error: scripts/elements/probe.lua:5:5: element `probe`: unknown field `stpes` (did you mean `steps`?), expected one of name, describe, params, glyph, draw, build, new_steps, steps, tile_steps, replace, blocks, events, public_vars, on_reveal, on_card, on_cross, on_enter, on_card_end, on_conveyed, on_deal, on_program",
        5,
        "stpes = {},",
    );
    assert!(
        stderr.contains("\n  |     ^\n") || stderr.ends_with("  |     ^\n"),
        "{stderr}"
    );
    // A nested key: the caret at it, past the same word elsewhere.
    let dir = element(
        "return rally.element {\n  name = \"probe\",\n  draw = { colour = \"#fff\" },\n}\n",
    );
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    assert!(
        stderr.starts_with(
            "error: scripts/elements/probe.lua:3:12: element `probe`, draw: unknown field `colour`"
        ),
        "{stderr}"
    );
}

#[test]
fn a_printed_board_can_be_pasted_back_as_a_grid() {
    // Walls on every kind of edge: between cells, at the west and east edges, on south sides.
    let dir = tempfile::tempdir().unwrap();
    let board = "registers = 1\n[board]\ngrid = \"\"\"\n. . W .\n. S . E\n\"\"\"\n[board.legend]\n\".\" = \"floor\"\n\"W\" = { element = \"wall\", side = \"W\" }\n\"S\" = [\"floor\", { element = \"wall\", side = \"S\" }]\n\"E\" = { element = \"wall\", side = \"E\" }\n";
    std::fs::write(dir.path().join("b.toml"), board).unwrap();
    let printed = |file: &str| -> Vec<String> {
        let out = crate::support::rally_ok(dir.path(), &["run", file]);
        out.lines()
            .skip_while(|l| !l.starts_with("Before"))
            .skip(2)
            .take_while(|l| !l.starts_with("key:"))
            .map(String::from)
            .collect()
    };
    let first = printed("b.toml");
    assert!(
        first.iter().any(|l| l.contains('|')) && first.iter().any(|l| l.contains("--")),
        "{first:?}"
    );
    // The rows as printed, without the row numbers, pasted into a grid of floor.
    let rows: Vec<String> = first.iter().map(|l| l[4..].to_string()).collect();
    let pasted = format!(
        "registers = 1\n[board]\ngrid = \"\"\"\n{}\n\"\"\"\n[board.legend]\n\".\" = \"floor\"\n",
        rows.join("\n")
    );
    std::fs::write(dir.path().join("p.toml"), pasted).unwrap();
    assert_eq!(printed("p.toml"), first);
}

#[test]
fn a_misspelled_robot_field_is_named_with_a_suggestion() {
    handler_says(
        "local x = robot.facin",
        "a robot has no field `facin` (did you mean `facing`?); it has name, at, x, y, facing, damage, lives, flags, archive, destroyed, powered_down, options, vars",
    );
}

#[test]
fn writing_a_robot_field_says_what_to_use() {
    handler_says(
        "robot.damage = 1",
        "robots are read-only: use ctx:damage(robot, n) or ctx:repair(robot, n)",
    );
}

#[test]
fn a_misspelled_ctx_method_gets_a_suggestion() {
    handler_says(
        "ctx:damge(robot, 1)",
        "ctx has no method or field `damge` (did you mean `damage`?) (the whole list: docs/api.md)",
    );
}

#[test]
fn a_tile_given_for_a_robot_names_the_method_and_argument() {
    handler_says(
        "ctx:damage(tile, 1)",
        "`ctx:damage`: argument `robot` must be a robot, got a table (a tile or a square? a robot is a handler's `robot`, or comes from ctx:robot_at(square) or ctx:robots())",
    );
}

#[test]
fn a_number_out_of_range_names_the_method_and_argument() {
    handler_says(
        "ctx:damage(robot, 1e20)",
        "`ctx:damage`: argument `amount` must be a whole number, got the number 100000000000000000000, out of range (a whole number from -2147483648 to 2147483647)",
    );
    // What was given and what fits, for an integer too, and a fraction named as such.
    handler_says(
        "ctx:set_lives(robot, 1 << 40)",
        "`ctx:set_lives`: argument `lives` must be a whole number, got the number 1099511627776, out of range (a whole number from -2147483648 to 2147483647)",
    );
    handler_says(
        "ctx:repair(robot, 2.5)",
        "`ctx:repair`: argument `amount` must be a whole number or nil, got the number 2.5, which has a fraction",
    );
    handler_says(
        "ctx:random(-1)",
        "`ctx:random`: argument `n` must be a whole number, got the number -1, out of range (a whole number from 0 to 18446744073709551615)",
    );
}

#[test]
fn a_bad_value_of_the_right_type_names_the_method_and_argument() {
    handler_says(
        "ctx:move(robot, \"up\", 1)",
        "`ctx:move`: argument `dir` must be a direction (\"N\", \"E\", \"S\" or \"W\"), got \"up\"",
    );
}

#[test]
fn a_logged_detail_named_as_an_events_own_field_is_refused() {
    // A detail `register` would collide with the event's own in every save and replay.
    for detail in [
        "{ register = 4 }",
        "{ why = \"x\", what = \"y\" }",
        "{ robot = { 1 } }",
    ] {
        let key = ["register", "what", "robot"]
            .into_iter()
            .find(|k| detail.contains(&format!("{k} =")))
            .unwrap();
        handler_says(
            &format!("ctx:log(robot, \"probe\", {detail})"),
            &format!("ctx:log: details: `{key}` is one of the event's own fields (turn, register, segment, robot, what): name the detail otherwise"),
        );
    }
}

#[test]
fn negative_amounts_are_errors() {
    handler_says(
        "ctx:damage(robot, -1)",
        "`ctx:damage`: argument `amount` must be 0 or more, got -1",
    );
    handler_says(
        "ctx:repair(robot, -2)",
        "`ctx:repair`: argument `amount` must be 0 or more, got -2",
    );
    handler_says(
        "ctx:move(robot, \"E\", -1)",
        "`ctx:move`: argument `squares` must be 0 or more, got -1",
    );
}

/// The element `probe` with `hook` (an `on_card`-like hook, at line 3) returning `value`,
/// and robot A playing a card on it: the error names the hook's line.
fn hook_says(hook: &str, value: &str, message: &str) {
    let dir = element(&format!(
        "return rally.element {{\n  name = \"probe\",\n  {hook} = function(ctx, tile, robot, card)\n    return {value}\n  end,\n}}\n"
    ));
    let text = std::fs::read_to_string(dir.path().join("s.toml")).unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        format!("{text}program = [\"move1\"]\n"),
    )
    .unwrap();
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    says(
        &stderr,
        &format!("error: element `probe` at [0, 0] (scripts/elements/probe.lua), {hook}, robot A, register 1: scripts/elements/probe.lua:3: {message}"),
        3,
        &format!("{hook} = function(ctx, tile, robot, card)"),
    );
}

#[test]
fn a_wrong_on_card_result_names_the_element_robot_register_and_line() {
    hook_says(
        "on_card",
        "42",
        "on_card returned 42, an integer; it must return nil, rally.HANDLED or { distance = n, dir = \"N\", rotate = \"left\" } (any of the keys)",
    );
    hook_says(
        "on_card",
        "{ distance = -1 }",
        "on_card returned distance = -1: a distance is a whole number of squares, 0 or more",
    );
}

#[test]
fn a_wrong_on_reveal_result_names_the_element_robot_register_and_line() {
    hook_says(
        "on_reveal",
        "\"jump\"",
        "on_reveal returned unknown card `jump`, expected one of move1, move2, move3, back, left, right, uturn; it must return nil (keep the card) or a card (\"move2@700\" or a card table)",
    );
}

/// An element declaring `param` (line 3), loaded by `rally run`.
fn param_says(param: &str, message: &str) {
    let dir = element(&format!(
        "return rally.element {{\n  name = \"probe\",\n  params = {{ n = {param} }},\n}}\n"
    ));
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    says(
        &stderr,
        &format!("error: scripts/elements/probe.lua:3: {message}"),
        3,
        &format!("params = {{ n = {param} }},"),
    );
}

#[test]
fn parameter_defaults_are_checked_when_the_script_loads() {
    param_says(
        "rally.param.int { min = 1, max = 3, default = 5 }",
        "rally.param.int: `default`: expected a whole number 1–3, got 5",
    );
    param_says(
        "rally.param.int { min = 3, max = 1 }",
        "rally.param.int: min = 3 is more than max = 1",
    );
    param_says(
        "rally.param.string { choices = { \"a\", \"b\" }, default = \"c\" }",
        "rally.param.string: `default`: expected one of a/b, got \"c\"",
    );
    param_says(
        "rally.param.dir { default = \"up\" }",
        "rally.param.dir: `default`: expected a direction (N/E/S/W), got \"up\"",
    );
    // An unknown key is placed at the key itself (line 3, column 36), not at the call.
    let dir = element("return rally.element {\n  name = \"probe\",\n  params = { n = rally.param.int { maxx = 1 } },\n}\n");
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    says(
        &stderr,
        "error: scripts/elements/probe.lua:3:36: rally.param.int: unknown field `maxx` (did you mean `max`?), expected one of kind, default, optional, describe, min, max",
        3,
        "params = { n = rally.param.int { maxx = 1 } },",
    );
}

#[test]
fn a_script_that_returns_no_declaration_is_an_error_at_that_script() {
    let dir = element("local probe = rally.element { name = \"probe\" }\nreturn 42\n");
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    says(
        &stderr,
        "error: scripts/elements/probe.lua:2: returns 42, an integer: a script declares what it adds, `return rally.element { ... }` (or rally.rule, rally.option)",
        2,
        "return 42",
    );
}

/// A project with the element `probe` and a variant `v` (parameter `strength`) whose rule
/// runs `body` at line 1 of `v.lua`.
fn variant(body: &str) -> tempfile::TempDir {
    let dir = element("return rally.element { name = \"probe\" }\n");
    let root = dir.path().join("variants/v");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("variant.toml"),
        "name = \"v\"\ndescription = \"a test\"\nfiles = [\"v.lua\"]\n[params.strength]\nkind = \"int\"\ndefault = 1\nmin = 0\nmax = 3\n",
    )
    .unwrap();
    std::fs::write(
        root.join("v.lua"),
        format!("{body}\nreturn rally.rule {{ name = \"v\" }}\n"),
    )
    .unwrap();
    dir
}

#[test]
fn a_variant_reads_its_parameters_strictly() {
    let dir = variant("local s = params.strenght");
    scenario(dir.path(), "variants = [\"v\"]\n");
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    says(
        &stderr,
        "error: variants/v/v.lua:1: variant `v` has no parameter `strenght` (did you mean `strength`?); it has strength",
        1,
        "local s = params.strenght",
    );
}

#[test]
fn a_misspelled_variant_parameter_names_the_scenario_line() {
    let dir = variant("local s = params.strength");
    scenario(
        dir.path(),
        "variants = [\"v\"]\n[variant.v]\nstrenght = 2\n",
    );
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    says(
        &stderr,
        "error: s.toml:4:1: variant `v` has no parameter `strenght` (did you mean `strength`?); expected one of strength",
        4,
        "strenght = 2",
    );
    scenario(
        dir.path(),
        "variants = [\"v\"]\n[variant.v]\nstrength = 7\n",
    );
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    says(
        &stderr,
        "error: s.toml:4:1: variant `v`, parameter `strength`: expected a whole number 0–3, got 7",
        4,
        "strength = 7",
    );
}

#[test]
fn an_unknown_variant_names_the_game_line() {
    let dir = variant("local s = params.strength");
    // The standard scripts (built in): a game needs docks.
    std::fs::remove_dir_all(dir.path().join("scripts")).unwrap();
    std::fs::write(
        dir.path().join("g.toml"),
        "variants = [\"w\"]\n[board]\ngrid = \"S .\"\n[board.legend]\n\".\" = \"floor\"\n\"S\" = { element = \"start\", number = 1 }\n[[robot]]\nname = \"A\"\n",
    )
    .unwrap();
    let stderr = rally_refused(dir.path(), &["-q", "sim", "g.toml", "--games", "1"]);
    let first = stderr.lines().next().unwrap();
    assert!(
        first.starts_with("error: g.toml:1:13: unknown variant `w` (variants of the layers built-in, project (variants): gold-belts, ")
            && first.ends_with(", thaw, v)"),
        "{stderr}"
    );
    assert!(stderr.contains("1 | variants = [\"w\"]"), "{stderr}");
}

#[test]
fn the_budget_and_memory_errors_name_the_line_at_load_time() {
    let dir = element(
        "local n = 0\nwhile true do n = n + 1 end\nreturn rally.element { name = \"probe\" }\n",
    );
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    says(
        &stderr,
        "error: scripts/elements/probe.lua:2: instruction budget exceeded: the script ran more than 5000000 instructions in one call (an endless loop?); raise it with --limit instructions=N",
        2,
        "while true do n = n + 1 end",
    );
    let dir = element(
        "local big = string.rep(\"x\", 1 << 30)\nreturn rally.element { name = \"probe\" }\n",
    );
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    says(
        &stderr,
        "error: scripts/elements/probe.lua:1: out of memory: the scripts hold more than 64 MiB; raise it with --limit memory=SIZE",
        1,
        "local big = string.rep(\"x\", 1 << 30)",
    );
}

#[test]
fn the_budget_error_in_a_handler_names_the_line() {
    handler_says(
        "while true do end",
        "instruction budget exceeded: the script ran more than 5000000 instructions in one call (an endless loop?); raise it with --limit instructions=N",
    );
}

#[test]
fn a_file_error_shows_a_caret_under_the_column() {
    let dir = element("return rally.element { name = \"probe\" }\n");
    std::fs::write(
        dir.path().join("s.toml"),
        "[board]\ngrid = \"P Q\"\n[board.legend]\n\"P\" = { element = \"probe\" }\n\"Q\" = { element = \"prob\" }\n",
    )
    .unwrap();
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    let mut lines = stderr.lines();
    assert_eq!(
        lines.next(),
        Some("error: s.toml:5:7: unknown element `prob` (did you mean `probe`?); searched the layers built-in, project (scripts); no variant switched on"),
        "{stderr}"
    );
    let rest: Vec<&str> = lines.collect();
    assert_eq!(rest[0].trim(), "--> s.toml:5:7", "{stderr}");
    let (i, shown) = rest
        .iter()
        .enumerate()
        .find(|(_, l)| l.contains("5 | \"Q\" = { element = \"prob\" }"))
        .expect(&stderr);
    // The caret stands under column 7, where the line's text begins after `5 | `.
    let text_starts = shown.find('"').unwrap();
    assert_eq!(rest[i + 1].find('^'), Some(text_starts + 6), "{stderr}");
}

#[test]
fn the_snippet_is_coloured_only_when_asked() {
    let dir = handler("robot.damage = 1");
    let out = rally(dir.path(), &["--color", "always", "run", "s.toml"]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    let snippet: Vec<&str> = stderr.lines().skip(1).collect();
    assert!(snippet.iter().any(|l| l.contains('\x1b')), "{stderr}");
}

#[test]
fn a_variant_parameter_default_is_checked_at_its_line() {
    let dir = variant("local s = params.strength");
    let toml = dir.path().join("variants/v/variant.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, text.replace("default = 1", "default = 5")).unwrap();
    scenario(dir.path(), "variants = [\"v\"]\n");
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    says(
        &stderr,
        "error: variants/v/variant.toml:6:11: parameter `strength`: default: expected a whole number 0–3, got 5",
        6,
        "default = 5",
    );
    std::fs::write(&toml, text.replace("min = 0", "min = 4")).unwrap();
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    assert!(
        stderr.starts_with("error: variants/v/variant.toml:4:1: parameter `strength`: min = 4 is more than max = 3\n"),
        "{stderr}"
    );
}

#[test]
fn a_misspelled_tile_field_is_named_and_a_declared_absent_one_is_nil() {
    let dir = element(
        "return rally.element {\n  name = \"probe\",\n  params = { turn = rally.param.rotation { optional = true } },\n  steps = {\n    fire = function(ctx, tile, robot)\n      assert(tile.turn == nil)\n      local t = tile.trun\n    end,\n  },\n}\n",
    );
    let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
    says(
        &stderr,
        "error: element `probe` at [0, 0] (scripts/elements/probe.lua), step `fire`, robot A, register 1: scripts/elements/probe.lua:7: a `probe` tile has no field `trun` (did you mean `turn`?); it has turn, at, x, y, element",
        7,
        "local t = tile.trun",
    );
}

#[test]
fn the_native_belt_and_pusher_methods_say_what_is_wrong_as_the_others_do() {
    // `ctx:convey` and `ctx:queue_push` are done natively when called right (native.rs);
    // a wrong call goes to mlua's method, which must still name itself and the argument.
    handler_says(
        "ctx:convey(robot, \"up\")",
        "`ctx:convey`: argument `dir` must be a direction (\"N\", \"E\", \"S\" or \"W\"), got \"up\"",
    );
    handler_says(
        "ctx:queue_push(tile, \"N\")",
        "`ctx:queue_push`: argument `robot` must be a robot, got a table (a tile or a square? a robot is a handler's `robot`, or comes from ctx:robot_at(square) or ctx:robots())",
    );
    handler_says(
        "ctx.convey(robot, \"N\")",
        "`ctx:convey` is a method: call it with a colon, `ctx:convey(...)`",
    );
}

#[test]
fn the_native_repair_says_what_is_wrong_as_the_others_do() {
    // `ctx:repair` is done natively when called right (native.rs); a wrong call goes to
    // mlua's method.
    handler_says(
        "ctx:repair(robot, -1)",
        "`ctx:repair`: argument `amount` must be 0 or more, got -1",
    );
    handler_says(
        "ctx:repair(robot, 1.5)",
        "`ctx:repair`: argument `amount` must be a whole number or nil, got the number 1.5, which has a fraction",
    );
    handler_says(
        "ctx:repair(tile)",
        "`ctx:repair`: argument `robot` must be a robot, got a table (a tile or a square? a robot is a handler's `robot`, or comes from ctx:robot_at(square) or ctx:robots())",
    );
}

#[test]
fn the_native_beam_says_what_is_wrong_as_the_others_do() {
    // In the laser step `ctx:fire_beam` is done natively when called right (native.rs); a
    // wrong call goes to mlua's method.
    handler_says(
        "ctx:fire_beam(tile.at, \"up\")",
        "`ctx:fire_beam`: argument `dir` must be a direction (\"N\", \"E\", \"S\" or \"W\"), got \"up\"",
    );
    handler_says(
        "ctx:fire_beam(tile.at, \"E\", -1)",
        "`ctx:fire_beam`: argument `strength` must be 0 or more, got -1",
    );
    handler_says(
        "ctx:fire_beam(42, \"E\")",
        "`ctx:fire_beam`: argument `from` must be a square ({ x = .., y = .. } or { x, y }) or a robot, got an integer",
    );
}

/// rules.md §4.16: the rules do not say how three portals of a colour pair up, so a colour
/// must be used by exactly two; a lone portal or a third one is an error at the portal
/// script's line, naming the colour, when a robot enters it.
#[test]
fn a_portal_colour_needs_exactly_two_portals() {
    for (grid, message) in [
        (". O . . .", "the portal at 1,0 has no twin of colour `red`"),
        (
            ". O . O O",
            "portal colour `red` is used by more than two portals; pair them by colour",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("s.toml"),
            format!(
                "registers = 1\n[board]\ngrid = \"{grid}\"\n[board.legend]\n\".\" = \"floor\"\n\"O\" = {{ element = \"portal\", color = \"red\" }}\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"E\"\nprogram = [\"move1\"]\n"
            ),
        )
        .unwrap();
        let stderr = rally_refused(dir.path(), &["run", "s.toml"]);
        let first = stderr.lines().next().unwrap_or_default();
        assert!(
            first.contains("scripts/elements/portal.lua:") && first.ends_with(message),
            "{stderr}"
        );
    }
}
