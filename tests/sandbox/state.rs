//! Issue 10 §4: no hidden state. A script keeps nothing between calls outside vars, so
//! rollbacks, saves and `rally sim --threads` cannot see any: a function assigning a local of
//! its file is refused at load, and what a script keeps from loading time is read-only.

use super::harness::Attack;

#[test]
fn a_handler_counting_in_a_file_local_is_refused_at_load() {
    Attack::file(
        "local calls = 0\nrally.element { name = 'trap', on_card = function()\n  calls = calls + 1\nend }\n",
    )
    .run(&[])
    .refused(3, "assigns `calls`, a local of the file");
}

#[test]
fn a_handler_counting_in_a_kept_table_is_stopped_at_its_line() {
    Attack::file(
        "local seen = { n = 0 }\nrally.element { name = 'trap', on_card = function()\n  seen.n = seen.n + 1\nend }\n",
    )
    .run(&[])
    .refused(3, "keep state with ctx:set_var");
}

#[test]
fn coroutines_and_iterators_cannot_carry_state_between_calls() {
    Attack::file(
        "local gen = coroutine.wrap(function() while true do coroutine.yield(1) end end)\nrally.element { name = 'trap', on_card = function() gen() end }\n",
    )
    .run(&[])
    .refused(1, "coroutines are made inside handlers");
    Attack::file(
        "local it = ('abc'):gmatch('.')\nrally.element { name = 'trap', on_card = function()\n  it()\nend }\n",
    )
    .run(&[])
    .refused(3, "a gmatch iterator cannot be kept");
}

#[test]
fn declarations_happen_while_loading_only() {
    Attack::on_card("rally.rule { name = 'late' }")
        .run(&[])
        .refused(2, "declares while the scripts load");
}

/// A game whose robots play on a board full of `counter` squares, from the attack's script.
fn sim(attack: &Attack, threads: &str) -> (Option<i32>, String, String) {
    let board = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("boards/factory.toml");
    std::fs::write(
        attack.path("g.toml"),
        format!(
            "board = {:?}\nseed = 3\nturn_limit = 3\nvariants = [\"attack\"]\n[[robot]]\nname = \"A\"\n[[robot]]\nname = \"B\"\n",
            board.display().to_string()
        ),
    )
    .unwrap();
    let out = attack.rally(&["sim", "g.toml", "--games", "4", "--threads", threads, "-q"]);
    (out.code, out.stdout, out.stderr)
}

#[test]
fn rally_sim_gives_the_same_result_whatever_the_threads() {
    // A rule that would count calls in a table it keeps: refused the same way at any thread
    // count, instead of results that depend on which games shared a rule set.
    let attack = Attack::file(
        "local calls = {}\nrally.rule { name = 'counter', steps = { fire = function(ctx)\n  calls[#calls + 1] = true\n  if #calls % 7 == 0 then ctx:damage(ctx:robots()[1], 1) end\nend } }\n",
    );
    let error = |out: &(Option<i32>, String, String)| {
        assert_eq!(out.0, Some(2), "{}", out.2);
        out.2
            .lines()
            .find(|l| l.starts_with("error:"))
            .unwrap_or_default()
            .to_string()
    };
    let one = error(&sim(&attack, "1"));
    assert!(
        one.contains("attack.lua:3: ") && one.contains("ctx:set_game_var"),
        "{one}"
    );
    assert_eq!(one, error(&sim(&attack, "2")));
    // The same rule keeping its count in a game var plays, and identically on 1 and 2 threads.
    let attack = Attack::file(
        "rally.rule { name = 'counter', steps = { fire = function(ctx)\n  local n = (ctx:game_var('calls') or 0) + 1\n  ctx:set_game_var('calls', n)\n  if n % 7 == 0 then ctx:damage(ctx:robots()[1], 1) end\nend } }\n",
    );
    let summary = |out: (Option<i32>, String, String)| {
        assert_eq!(out.0, Some(0), "{}", out.2);
        let lines = out.1.lines().filter(|l| !l.starts_with("games per minute"));
        lines.collect::<Vec<_>>().join("\n")
    };
    let one = summary(sim(&attack, "1"));
    assert!(one.contains("script"), "the rule dealt its damage:\n{one}");
    assert_eq!(one, summary(sim(&attack, "2")));
}

#[test]
fn a_primitive_checks_what_the_save_checks() {
    // Issue 24: an archive off the board was accepted, and rally's own save then refused.
    Attack::on_card("ctx:set_archive(robot, { x = 9, y = 9 })")
        .run(&[])
        .refused(2, "ctx:set_archive: [9, 9] is off the 4×1 board");
    let out = Attack::on_card(
        "ctx:set_archive(robot, { x = 3, y = 0 })\nassert(not ctx:touch_flag(robot, 1))",
    )
    .run(&[]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
}
