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
