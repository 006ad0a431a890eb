//! Issue 24: every native function a script can reach is bounded by its input or charged for
//! the bytes it touches, and the time limit holds even while one instruction takes long (a
//! watchdog thread, not the count hook, watches the clock).

use super::harness::{Attack, PROMPT};
use std::time::Duration;

const BUDGET: &str = "instruction budget exceeded";

#[test]
fn an_empty_repetition_is_made_at_once() {
    // Lua's own `str_rep` loops `n` times to copy nothing.
    let out = Attack::on_card(
        "local s = string.rep('', math.maxinteger)\nlocal t = string.rep('', math.maxinteger, '')\nassert(s == '' and t == '')\nassert(('ab'):rep(3, ',') == 'ab,ab,ab' and ('x'):rep(0) == '' and ('x'):rep(-5, 'y') == '')",
    )
    .run(&[]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.took < PROMPT, "took {:?}", out.took);
}

#[test]
fn sorting_references_to_a_huge_string_is_charged_for_its_comparisons() {
    // Every comparison reads the whole 20 MiB: this ran 20 to 70 s.
    Attack::on_card(
        "local s = string.rep('x', 20 << 20)\nlocal t = {}\nfor i = 1, 300 do t[i] = s end\ntable.sort(t)",
    )
    .run(&[])
    .refused(5, BUDGET);
}

#[test]
fn loops_of_costly_native_calls_run_out_of_budget() {
    // Each ran from 14 s to minutes: a few instructions a call, each copying or scanning MiBs.
    for call in [
        "string.format('%q', s)",
        "string.format('%.3s', s)",
        "table.concat({ s, s })",
        "table.concat({ s, s }, '', 1, 2)",
        "utf8.len(s)",
        "utf8.offset(s, -1)",
        "s:upper()",
        "s:lower()",
        "s:reverse()",
        "s:sub(2)",
        "tonumber(s)",
        "table.sort({ s, s .. 'y', s .. 'z' })",
        "select('#', s:byte(1, 100000))",
        "select('#', table.unpack(list))",
    ] {
        Attack::on_card(&format!(
            "local s, list = string.rep('7', 1 << 20), {{}}\nfor i = 1, 100000 do list[i] = i end\nwhile true do local x = {call} end"
        ))
        // Only the budget stops them (deterministically), well before the clock would.
        .run(&["--limit", "seconds=60"])
        .refused(4, BUDGET);
    }
}

#[test]
fn the_time_limit_holds_while_single_instructions_take_long() {
    // Each comparison reads 200 MiB: the count hook comes every 256 instructions, seconds
    // apart, and a clock read only there overshot the limit by those seconds (rally 0.1
    // stopped this after 6 to 10 s, this build after 0.7 to 2 s, startup included).
    let out = Attack::on_card(
        "local a = string.rep(string.rep('x', 1024), 100 << 10)\nlocal b = a .. 'y'\nwhile a < b do end",
    )
    .run(&[
        "--limit",
        "seconds=0.5",
        "--limit",
        "memory=512M",
        "--limit",
        "instructions=100000000",
    ]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("time limit exceeded"), "{}", out.stderr);
    assert!(
        out.took < Duration::from_secs(4),
        "stopped after {:?}",
        out.took
    );
}

#[test]
fn a_substitution_cannot_build_a_result_past_the_memory_limit() {
    // The result grew in a vector of the host's, unchecked: 1.46 GiB under the 64 MiB limit.
    Attack::on_card(
        "local s, r = string.rep('x', 1 << 20), string.rep('y', 1 << 10)\nlocal t = s:gsub('.', r)",
    )
    .run(&[
        "--limit",
        "seconds=60",
        "--limit",
        "instructions=1000000000000",
    ])
    .refused(3, "out of memory");
}

#[test]
fn print_copies_nothing_unless_logging_and_then_at_most_a_value() {
    // Every argument was copied to a Rust string first: 1.09 GiB, exit 0.
    let attack = Attack::on_card(
        "local s, t = string.rep('x', 16 << 20), {}\nfor i = 1, 64 do t[i] = s end\nprint(table.unpack(t))",
    );
    for args in [&[][..], &["-v"][..]] {
        let out = attack.run(args);
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        assert!(
            out.peak_mib < super::harness::MEMORY_MIB,
            "{args:?}: {} MiB",
            out.peak_mib
        );
    }
    let out = attack.run(&["-v"]);
    assert!(
        out.stderr.contains("xxxx") && out.stderr.contains("(cut)"),
        "{}",
        &out.stderr[..out.stderr.len().min(2000)]
    );
    assert!(
        out.stderr.len() < 1 << 20,
        "{} bytes logged",
        out.stderr.len()
    );
}

#[test]
fn a_long_list_of_choices_is_counted_before_it_is_copied() {
    // The list was taken as a Vec<String>: two million copies of 200 bytes before any check.
    Attack::on_card(
        "local s, t = string.rep('x', 200), {}\nfor i = 1, 2000000 do t[i] = s end\nctx:choose(robot, 'pick', t)",
    )
    .run(&["--limit", "seconds=60", "--limit", "instructions=1000000000000"])
    .refused(4, "log limit exceeded");
}
