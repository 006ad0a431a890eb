//! Issue 10 §6: what reaches the terminal. Control characters a script supplies (log details,
//! `describe`, glyphs, `print`, error messages) are shown escaped, never sent raw; `--json`
//! stays exact. Text and board errors carry `file:line`.

use super::harness::Attack;

const ESC: char = '\x1b';

fn no_escapes(text: &str) {
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "raw control characters reached the terminal:\n{text:?}"
    );
}

#[test]
fn log_details_are_escaped_on_the_terminal_and_exact_in_json() {
    let attack = Attack::on_card(
        r#"ctx:log(robot, "\27[2J", { text = "\27[32mall expectations hold\r\n\u{9b}" })"#,
    );
    let out = attack.run(&[]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    no_escapes(&out.stdout);
    assert!(out.stdout.contains("\\x1b[2J"), "{}", out.stdout);
    assert!(!out
        .stdout
        .lines()
        .any(|l| l.starts_with("all expectations hold")));
    let out = attack.rally(&["run", "--json", "s.toml"]);
    let state: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let logged = state["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["what"] == format!("{ESC}[2J"))
        .expect("the event, exactly");
    assert_eq!(logged["text"], "\x1b[32mall expectations hold\r\n\u{9b}");
}

#[test]
fn describe_glyph_print_and_errors_are_escaped() {
    let attack = Attack::file(
        "rally.element { name = 'trap', describe = '\\27[2Jclean', glyph = '\\27[H', on_card = function()\n  print('\\27[31mred')\n  error('\\27[2Jboom')\nend }\n",
    );
    let out = attack.rally(&["--variant", "attack", "elements"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    no_escapes(&out.stdout);
    assert!(out.stdout.contains("\\x1b[2Jclean"), "{}", out.stdout);
    let out = attack.run(&["-v"]);
    out.refused(3, "\\x1b[2Jboom");
    no_escapes(&out.stdout);
    assert!(out.stderr.contains("\\x1b[31mred"), "{}", out.stderr);
    // tracing's own colours aside, nothing the script wrote is raw.
    assert!(!out.stderr.contains("\x1b[31mred") && !out.stderr.contains("\x1b[2J"));
}

#[test]
fn a_script_that_is_not_utf8_is_an_error_at_its_line() {
    let attack = Attack::file("");
    std::fs::write(
        attack.path("variants/attack/attack.lua"),
        b"-- fine\nlocal x = 1\nlocal s = '\xff'\n",
    )
    .unwrap();
    let out = attack.run(&[]);
    out.stopped();
    assert!(out.stderr.contains("attack.lua:3:12: "), "{}", out.stderr);
    assert!(out.stderr.contains("not UTF-8"), "{}", out.stderr);
}

#[test]
fn render_s_board_errors_carry_file_and_line() {
    let attack = Attack::file("rally.element { name = 'trap' }\n");
    std::fs::write(
        attack.path("s.toml"),
        "variants = [\"attack\"]\n[board]\ngrid = \"T . Q\"\n[board.legend]\n\".\" = \"floor\"\n\"T\" = \"trap\"\n\"Q\" = \"no_such\"\n",
    )
    .unwrap();
    let out = attack.rally(&["render", "s.toml", "-o", "-"]);
    out.stopped();
    assert!(
        out.stderr.contains("s.toml:7:7: unknown element `no_such`"),
        "{}",
        out.stderr
    );
    // A script failing while the board is built: the script's line.
    let attack =
        Attack::file("rally.element { name = 'trap', build = function(b)\n  b:wall('Q')\nend }\n");
    attack.rally(&["render", "s.toml", "-o", "-"]).refused(
        2,
        "`b:wall`: argument `side` must be a direction (\"N\", \"E\", \"S\" or \"W\"), got \"Q\"",
    );
}
