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
