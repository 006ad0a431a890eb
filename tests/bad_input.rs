//! Bad input gets a clear message with file and line, exit status 2, and never a panic or a
//! hang (issue 2): one case per mistake a person makes in a scenario or board file.

use crate::support;
use std::process::Output;

/// Runs `rally run` on `text`.
fn run(text: &str) -> Output {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("self.toml"),
        "width = 2\nheight = 2\n[[board]]\npath = \"self.toml\"\nat = [0, 0]\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    support::finish(
        support::rally_command(support::root(), &["run"]).arg(dir.path().join("s.toml")),
    )
}

const BOARD: &str = "[board]\nwidth = 3\nheight = 3\n";

fn robot(extra: &str) -> String {
    format!("{BOARD}[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"N\"\n{extra}")
}

#[test]
fn each_mistake_gets_file_line_and_exit_2() {
    let cases: Vec<(String, &str)> = vec![
        ("[board\nwidth = 2\n".into(), "s.toml:1:"),
        (format!("{BOARD}[[board.tile]]\nat = [0, 0]\nelement = \"convyor\"\ndir = \"N\"\n"), "s.toml:4:1: unknown element `convyor` (did you mean `conveyor`?)"),
        (format!("{BOARD}[[board.tile]]\nat = [0, 0]\nelement = \"laser\"\ndir = \"N\"\nstrenth = 2\n"), "has no parameter `strenth` (did you mean `strength`?)"),
        (format!("{BOARD}[[board.tile]]\nat = [0, 0]\nelement = \"laser\"\ndir = \"N\"\nstrength = \"two\"\n"), "expected a whole number 1–3, got \"two\""),
        (format!("{BOARD}[[board.tile]]\nat = [0, 0]\nelement = \"conveyor\"\n"), "needs parameter `dir`"),
        (format!("{BOARD}[[board.tile]]\nat = [0, 0]\nelement = \"gear\"\nturn = \"sideways\"\n"), "expected a rotation"),
        (robot("program = [\"jump\"]\n"), "unknown card `jump`"),
        (format!("{BOARD}[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"Q\"\n"), "unknown direction `Q`"),
        (format!("{BOARD}[[robot]]\nname = \"A\"\nat = [7, 0]\nfacing = \"N\"\n"), "s.toml:4:1: robot `A` at [7, 0] is outside the 3×3 board"),
        (format!("{}[[robot]]\nname = \"B\"\nat = [0, 0]\nfacing = \"N\"\n", robot("")), "both stand on [0, 0]"),
        ("[board]\ngrid = \". x\"\n[board.legend]\n\".\" = \"floor\"\n".into(), "grid cell `x` at [1, 0] is not in [legend]"),
        (robot("[expect.B]\nat = [0, 0]\n"), "[expect.B]: there is no robot `B`"),
        (robot("[expect.A]\nplace = [0, 0]\n"), "unknown field `place`"),
        ("[board]\nwidth = 100000\nheight = 100000\n".into(), "at most 256 squares a side"),
        ("board = \"self.toml\"\n".into(), "is itself a course"),
        (format!("{}[[robot]]\nname = \"B\"\nat = [1, 0]\nfacing = \"N\"\ndock = 1\n", robot("")), "s.toml:4:1: robot `A` has no `dock`: give every robot a dock number, or none"),
        (format!("{}[[robot]]\nname = \"B\"\nat = [1, 0]\nfacing = \"N\"\ndock = 2\n", robot("dock = 2\n")), "robots `A` and `B` both have dock 2"),
        (robot("program = [\"move1\", \"--\"]\n"), "unknown card `--`"),
        // An answer is checked when the question is asked: the mistake is still the file's.
        (format!("turns = 1\n{}", robot("damage = 1\nprograms = [[\"move1\"]]\nchoices = { power_down = \"maybe\" }\n")), "s.toml: robot `A`'s `choices`: `maybe` is not an answer to `power_down`; expected one of no, yes"),
    ];
    for (text, wanted) in cases {
        let out = run(&text);
        let said = support::text(&out);
        assert_eq!(
            out.status.code(),
            Some(2),
            "exit status for:\n{text}\n{said}"
        );
        let stderr = support::refused(&out);
        assert!(
            stderr.contains(wanted),
            "expected `{wanted}` for:\n{text}\ngot: {stderr}"
        );
    }
}

/// `rally test` says which file failed once: a mistake in the file itself already begins
/// with the file's name, a script's error is said after it.
#[test]
fn rally_test_names_the_failing_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let option = format!(
        "{}options = [\"Nonesuch\"]\n[expect.A]\nat = [0, 0]\n",
        robot("")
    );
    std::fs::write(dir.path().join("option.toml"), option).unwrap();
    let answer = format!(
        "turns = 1\n{}",
        robot("damage = 1\nprograms = [[]]\nchoices = { power_down = \"maybe\" }\n[expect.A]\nat = [0, 0]\n")
    );
    std::fs::write(dir.path().join("answer.toml"), answer).unwrap();
    let out = support::rally(dir.path(), &["test", "."]);
    assert_eq!(out.status.code(), Some(1), "{}", support::text(&out));
    let said = support::text(&out);
    for (file, wanted) in [
        ("option.toml", "there is no option `Nonesuch`"),
        (
            "answer.toml",
            "robot `A`'s `choices`: `maybe` is not an answer",
        ),
    ] {
        let line = said
            .lines()
            .find(|l| l.contains(wanted))
            .unwrap_or_else(|| panic!("no `{wanted}` in:\n{said}"));
        assert_eq!(line.matches(file).count(), 1, "{line}");
    }
}
