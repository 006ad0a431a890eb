//! Issue 24: the same game gives the same bytes on every run. Lua seeds its string hash from
//! the clock and addresses unless built with a fixed `luai_makeseed` (.cargo/config.toml),
//! and the order `pairs` visits string keys in follows the hash.

use super::harness::Attack;

#[test]
fn pairs_visits_string_keys_in_the_same_order_in_every_process() {
    // Six runs gave six orders: the var below, and the output, differed from run to run.
    let attack = Attack::on_card(
        "local t = {}\nfor i = 1, 500 do t['key' .. i] = i end\nlocal order = {}\nfor k in pairs(t) do order[#order + 1] = k end\nctx:set_var(robot, 'order', table.concat(order, ','))",
    );
    let first = attack.rally(&["run", "s.toml", "--json"]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    assert!(first.stdout.contains("key1"), "{}", first.stdout);
    for run in 2..=20 {
        let out = attack.rally(&["run", "s.toml", "--json"]);
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        assert!(
            out.stdout == first.stdout,
            "run {run} printed other bytes than the first"
        );
    }
}

#[test]
fn math_random_draws_from_the_whole_integer_range() {
    // `(hi - lo) as u64 + 1` wrapped to 0: always `mininteger` (a debug build panicked).
    let out = Attack::on_card(
        "local seen = {}\nfor i = 1, 20 do seen[math.random(math.mininteger, math.maxinteger)] = true end\nlocal n = 0\nfor _ in pairs(seen) do n = n + 1 end\nassert(n > 10, n)\nassert(math.random(math.maxinteger, math.maxinteger) == math.maxinteger)\nlocal x = math.random(-3, 3)\nassert(x >= -3 and x <= 3)",
    )
    .run(&[]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
}
