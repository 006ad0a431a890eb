//! `rally bench`: times every scenario of a folder and summarises the medians; board parts
//! beside the scenarios are skipped, a scenario that fails is named and makes the exit
//! status 1, a missing path is an error (exit 2). `rally run --repeat` times the same way.
//! `rally bench --report` measures every row of the performance table and prints it.

use crate::support;

use crate::support::{rally, rally_ok};
use std::path::Path;

/// A folder of two scenarios (one robot; two robots on belts), a board part that is no
/// scenario, and, when `broken`, a scenario whose element does not exist.
fn folder(broken: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("scenarios");
    std::fs::create_dir_all(d.join("parts")).unwrap();
    std::fs::write(
        d.join("one.toml"),
        "[board]\nwidth = 3\nheight = 3\n[[robot]]\nname = \"A\"\nat = [1, 2]\nfacing = \"N\"\nprogram = [\"move1\"]\n",
    )
    .unwrap();
    let belts = format!(
        "{}\n[[robot]]\nname = \"A\"\nat = [1, 0]\nfacing = \"E\"\nprogram = [\"right\", \"left\"]\n[[robot]]\nname = \"B\"\nat = [0, 2]\nfacing = \"N\"\nprogram = [\"move1\"]\n",
        support::BELT_ONTO_GEAR
    );
    std::fs::write(d.join("belts.toml"), belts).unwrap();
    std::fs::write(d.join("parts/floor.toml"), "width = 2\nheight = 2\n").unwrap();
    if broken {
        std::fs::write(
            d.join("broken.toml"),
            "[board]\ngrid = \"g\"\n[board.legend]\n\"g\" = \"gaer\"\n",
        )
        .unwrap();
    }
    dir
}

#[test]
fn times_every_scenario_and_prints_the_distribution() {
    let dir = folder(false);
    let out = rally(dir.path(), &["bench", "scenarios", "--repeat", "20"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.starts_with("2 scenario(s), 20 timed resolution(s) each"),
        "{stdout}"
    );
    for part in [
        "min ",
        "10% ",
        "median ",
        "90% ",
        "max ",
        "distribution",
        "slowest",
    ] {
        assert!(stdout.contains(part), "no {part:?} in {stdout}");
    }
    assert!(stdout.contains("belts.toml: median"), "{stdout}");
    assert!(
        !stdout.contains("floor.toml"),
        "a board part is no scenario"
    );
    let each = rally(
        dir.path(),
        &["bench", "scenarios", "--repeat", "5", "--each"],
    );
    let each = String::from_utf8_lossy(&each.stdout);
    let one = each
        .find("one.toml: median")
        .expect("every scenario with --each");
    assert!(
        each.find("belts.toml: median").unwrap() < one,
        "in file order: {each}"
    );
    // Progress goes to a terminal only: none in a pipe.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn json_lists_each_scenario_with_its_times() {
    let dir = folder(true);
    let out = rally(
        dir.path(),
        &["bench", "scenarios", "--repeat", "10", "--json"],
    );
    assert_eq!(out.status.code(), Some(1), "a scenario could not be timed");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["version"], 1);
    assert_eq!(report["repeat"], 10);
    let scenarios = report["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 2);
    for s in scenarios {
        assert_eq!(s["runs"], 10);
        let (min, median, max) = (
            s["min_us"].as_f64().unwrap(),
            s["median_us"].as_f64().unwrap(),
            s["max_us"].as_f64().unwrap(),
        );
        assert!(0.0 < min && min <= median && median <= max, "{s}");
        assert!(s["spread_us"].as_f64().unwrap() >= 0.0);
    }
    let errors = report["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert!(errors[0]["file"].as_str().unwrap().ends_with("broken.toml"));
    assert!(
        errors[0]["error"].as_str().unwrap().contains("gaer"),
        "{}",
        errors[0]
    );
    let medians = &report["medians_us"];
    assert!(medians["min"].as_f64() <= medians["median"].as_f64());
    assert!(medians["median"].as_f64() <= medians["max"].as_f64());
    let counted: u64 = report["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, 2, "every median falls in one bucket");
}

#[test]
fn a_failing_scenario_is_named_and_a_missing_path_is_an_error() {
    let dir = folder(true);
    let out = rally(dir.path(), &["bench", "scenarios", "--repeat", "5"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("ERROR") && stdout.contains("broken.toml"),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 scenario(s) could not be timed"),
        "{stdout}"
    );

    let out = rally(dir.path(), &["bench", "nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nowhere: no such file or folder"));
}

#[test]
fn run_repeat_reports_median_min_spread_and_max() {
    let dir = folder(false);
    let stdout = rally_ok(dir.path(), &["run", "scenarios/one.toml", "--repeat", "50"]);
    assert!(stdout.contains("50 resolutions, median "), "{stdout}");
    for part in ["(min ", ", spread ", ", max "] {
        assert!(stdout.contains(part), "no {part:?} in {stdout}");
    }
}

#[test]
fn each_resolution_gets_the_files_answers_again() {
    // Its scripted answers would run out after the first resolution if they were not given
    // again, and the program would no longer match the hand.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    rally_ok(
        root,
        &[
            "bench",
            "tests/scenarios/options/recompile/every_turn.toml",
            "--repeat",
            "3",
        ],
    );
}

/// The commands the report's rows name, one per row, in the table's order (`--repeat 2
/// --games 2` as the test asks).
const REPORT_ROWS: [&str; 11] = [
    "`rally run benches/fixtures/standard_turn.toml --repeat 2`",
    "`rally run benches/fixtures/expansion_turn.toml --repeat 2`",
    "`rally bench benches/fixtures/crowded --repeat 2`",
    "`rally bench tests/scenarios --repeat 2`",
    "`rally run benches/fixtures/tiny.toml --repeat 2`",
    "`rally run benches/fixtures/tiny_end_of_turn.toml --repeat 2`",
    "`cargo bench --bench turn -- rules/load`",
    "`rally sim games/factory.toml --games 2`",
    "`rally sim games/factory.toml --games 2 --threads 1`",
    "`rally sim games/bots.toml --games 2`",
    "`rally sim games/options.toml --games 2`",
];

/// The number a cell of the report starts with (`26.8 µs`, `2.76 ms a game (...)`).
fn figure(cell: &str) -> f64 {
    let number = cell.trim().split(' ').next().unwrap_or_default();
    number
        .parse()
        .unwrap_or_else(|_| panic!("no figure in {cell:?}"))
}

#[test]
fn the_report_measures_every_row_and_prints_a_dated_table() {
    // A copy of what it measures, with one small folder of tests/scenarios, so that even
    // the debug build makes the report in seconds.
    let dir = support::copy_of(&[
        "benches/fixtures",
        "boards",
        "games",
        "tests/scenarios/gears",
    ]);
    let args = [
        "bench", "--report", "--rounds", "2", "--repeat", "2", "--games", "2",
    ];
    let out = rally(dir.path(), &args);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}{stderr}");
    let header = stdout.lines().next().unwrap();
    assert!(
        header.starts_with("Measured 20")
            && header.contains(" UTC by `rally bench --report --rounds 2 --repeat 2 --games 2`"),
        "{header}"
    );
    for part in [
        " build",
        " cores (",
        "load average (1, 5, 15 minutes) ",
        " before, ",
        " after.",
    ] {
        assert!(header.contains(part), "no {part:?} in {header}");
    }
    let table: Vec<&str> = stdout.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(table[0], "| what | min | median | how |", "{stdout}");
    assert_eq!(table.len(), 2 + REPORT_ROWS.len(), "{stdout}");
    for (line, how) in table[2..].iter().zip(REPORT_ROWS) {
        let cells: Vec<&str> = line.split(" | ").collect();
        assert_eq!(cells.len(), 4, "{line}");
        assert!(cells[3].starts_with(how), "{line}: not measured by {how}");
        let (min, median) = (figure(cells[1]), figure(cells[2]));
        assert!(0.0 < min && min <= median, "{line}");
    }
    assert!(stdout.contains("Not in the report"), "{stdout}");
    assert!(
        stdout.contains("cargo bench --bench turn -- bot/"),
        "{stdout}"
    );
    for round in ["round 1/2: ", "round 2/2: "] {
        assert!(stderr.contains(round), "no progress {round:?} in {stderr}");
    }
    // The binary is built as this test is: a debug build is said to be one, loudly.
    assert_eq!(
        stderr.contains("warning: this is a debug build"),
        cfg!(debug_assertions),
        "{stderr}"
    );
    assert_eq!(
        header.contains("debug build"),
        cfg!(debug_assertions),
        "{header}"
    );
}

#[test]
fn the_report_is_refused_with_flags_it_does_not_take_and_outside_a_clone() {
    let dir = tempfile::tempdir().unwrap();
    for (args, said) in [
        (&["bench", "--report", "--json"][..], "--json"),
        (&["bench", "--report", "--each"], "--each"),
        (&["bench", "--report", "--profile"], "--profile"),
        (&["bench", "--report", "tests/scenarios"], "PATHS"),
        (&["bench", "--rounds", "2"], "--report"),
        (&["bench", "--games", "20"], "--report"),
        (&["bench", "--report", "--rounds", "0"], "--rounds"),
    ] {
        let stderr = support::rally_refused(dir.path(), args);
        assert!(stderr.contains(said), "rally {args:?}: {stderr}");
    }
    // Nothing to measure here: the first file it misses is named, before any measuring.
    let stderr = support::rally_refused(dir.path(), &["bench", "--report"]);
    assert!(
        stderr.contains("benches/fixtures/standard_turn.toml: no such file or folder")
            && stderr.contains("top folder"),
        "{stderr}"
    );
    assert!(!stderr.contains("round 1/"), "{stderr}");
}
