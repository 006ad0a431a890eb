//! Issue 10 §2: what the host copies out of Lua is bounded, and stored exactly or refused.
//! A failed register leaves the game as it was.

use super::harness::Attack;

#[test]
fn one_huge_var_is_refused() {
    Attack::on_card("local s = ('x'):rep(8 * 2^20)\nctx:set_var(robot, 'big', s)")
        .run(&[])
        .refused(3, "larger than the 65536 bytes a stored value may hold");
}

#[test]
fn many_large_vars_are_refused_and_the_register_rolls_back() {
    let attack = Attack::on_card(
        "local s = ('x'):rep(60000)\nfor i = 1, 200 do\n  ctx:set_game_var('k' .. i, s)\nend",
    );
    attack.run(&[]).refused(4, "vars limit exceeded");
}

#[test]
fn a_log_bomb_is_refused() {
    Attack::on_card(
        "local s = ('x'):rep(60000)\nfor i = 1, 200 do\n  ctx:log(robot, 'bomb', { s = s })\nend",
    )
    .run(&[])
    .refused(4, "log limit exceeded");
    Attack::on_card("for i = 1, 1e6 do\n  ctx:log(robot, 'tick')\nend")
        .run(&["--limit", "events=2000"])
        .refused(3, "more than 2000 events in one register");
    Attack::on_card("ctx:damage(robot, 0, ('x'):rep(2^20))")
        .run(&[])
        .refused(2, "the cause is 1048576 bytes long");
}

#[test]
fn values_that_cannot_be_stored_faithfully_are_errors() {
    for (value, what) in [
        ("0/0", "NaN (0/0) cannot be stored"),
        ("math.huge", "an infinite number cannot be stored"),
        ("{ 1, 2, x = 3 }", "mixes list items with named keys (`x`)"),
        ("{ 1, nil, 3 }", "a list with a hole (no item 2)"),
        ("{ [2] = 'b' }", "a list with a hole (no item 1)"),
        ("{ [1.5] = true }", "the key 1.5 cannot be stored"),
        ("{ f = print }", "a function cannot be stored"),
        ("{ r = robot }", "a robot, tile or other object"),
        ("('\\255')", "not valid UTF-8"),
    ] {
        Attack::on_card(&format!("ctx:set_var(robot, 'v', {value})"))
            .run(&[])
            .refused(2, what);
    }
    Attack::on_card("local t = {}\nt.me = t\nctx:set_var(robot, 'v', t)")
        .run(&[])
        .refused(4, "a table that contains itself");
    Attack::on_card("ctx:log(robot, 'odd', { n = 0/0 })")
        .run(&[])
        .refused(2, "NaN (0/0) cannot be stored");
}

#[test]
fn stored_values_read_back_exactly() {
    let attack = Attack::on_card(
        "ctx:set_var(robot, 'v', { list = { 1, 2.5, 'three' }, empty = {}, flag = false, deep = { a = { b = 1 } } })\nlocal back = robot.vars.v\nctx:set_var(robot, 'again', back)",
    );
    let out = attack.rally(&["run", "--json", "s.toml"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let state: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let vars = &state["robots"][0]["vars"];
    assert_eq!(vars["v"], vars["again"], "{vars}");
    assert_eq!(
        vars["v"],
        serde_json::json!({ "list": [1, 2.5, "three"], "empty": {}, "flag": false, "deep": { "a": { "b": 1 } } })
    );
}

#[test]
fn flat_details_are_logged_alike_by_the_native_and_the_mlua_method() {
    // Flat details take the native `ctx:log`; a metatable, a float or a ninth field mlua's.
    let out = Attack::on_card(
        "local flat = { b = 'x', a = 1, c = true }\n\
         ctx:log(robot, 'native', flat)\n\
         ctx:log(robot, 'mlua', setmetatable({ b = 'x', a = 1, c = true }, {}))\n\
         ctx:log(nil, 'floats', { a = 2.0 })\n\
         ctx:log(robot, 'nine', { a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9 })",
    )
    .run(&[]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    for line in [
        "native a=1 b=x c=true",
        "mlua a=1 b=x c=true",
        "floats a=2.0",
        "nine a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 i=9",
    ] {
        assert!(out.stdout.contains(line), "{line}\n{}", out.stdout);
    }
}

#[test]
fn native_robot_at_and_rotate_answer_as_the_mlua_methods() {
    // A plain `{ x =, y = }` and a tile's `at` take the native path; a list and a float mlua's.
    let out = Attack::on_card(
        "local function at(s) local r = ctx:robot_at(s) return r and r.name or 'nobody' end\n\
         ctx:log(nil, 'at', { xy = at({ x = 0, y = 0 }), tile = at(tile.at), list = at({ 0, 0 }),\n\
           float = at({ x = 0.0, y = 0 }), empty = at({ x = 1, y = 0 }) })\n\
         ctx:rotate(robot, 'left')\n\
         ctx:rotate(robot, 'R', 'me')\n\
         ctx:log(robot, 'facing', { now = robot.facing })",
    )
    .run(&[]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    for line in ["at empty=nobody float=A list=A tile=A xy=A", "facing now=E"] {
        assert!(out.stdout.contains(line), "{line}\n{}", out.stdout);
    }
    Attack::on_card("ctx:rotate(robot, 'sideways')")
        .run(&[])
        .refused(2, "argument `rotation` must be a rotation");
    Attack::on_card("ctx:rotate(robot, 'left', {})")
        .run(&[])
        .refused(2, "ctx:rotate");
}
