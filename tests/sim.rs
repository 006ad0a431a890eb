//! `rally sim` past one machine (docs/simulations.md): shards run as separate processes and
//! merged give the unsharded summary byte for byte; `rally sim merge` refuses what does not
//! belong together or was damaged; the outputs (`--json`, `--csv`, `-q`); the recipes in
//! deploy/ use flags that exist, and the shell ones work.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const GAME: &str = "tests/games/shards.toml";
const GAMES: &str = "21";

/// `rally ARGS` in the project's folder, where [`GAME`] is.
fn rally(args: &[&str]) -> Command {
    support::rally_command(support::root(), args)
}

/// `rally sim` on the fixture, two columns, plus `extra`.
fn study(extra: &[&str]) -> Command {
    study_of(GAMES, extra)
}

fn study_of(games: &str, extra: &[&str]) -> Command {
    let mut command = rally(&[
        "sim",
        GAME,
        "--games",
        games,
        "--compare",
        "no-robot-lasers",
    ]);
    command.args(extra);
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}

/// Plays the M shards of the study at once, as separate processes, into `dir/K.json`.
fn shards(dir: &Path, m: u32, extra: &[&str]) -> Vec<PathBuf> {
    let children: Vec<_> = (0..m)
        .map(|k| {
            let file = dir.join(format!("{k}.json"));
            let mut command = study(&["--shard", &format!("{k}/{m}"), "--threads", "1", "-q"]);
            command.arg("--out").arg(&file).args(extra);
            (file, command.stdout(Stdio::null()).spawn().unwrap())
        })
        .collect();
    children
        .into_iter()
        .map(|(file, child)| {
            ok(child.wait_with_output().unwrap());
            file
        })
        .collect()
}

fn merge(files: &[PathBuf], extra: &[&str]) -> Output {
    let mut command = rally(&["sim", "merge"]);
    command.args(files).args(extra);
    support::finish(&mut command)
}

#[test]
fn shards_played_apart_merge_to_the_unsharded_summary() {
    let whole = ok(support::finish(&mut study(&["--threads", "2", "-q"])));
    let whole_json = ok(support::finish(&mut study(&[
        "--threads",
        "2",
        "-q",
        "--json",
    ])));
    assert!(text(&whole.stdout).contains("finish rate"));
    for m in [1, 3, 7] {
        let dir = tempfile::tempdir().unwrap();
        let files = shards(dir.path(), m, &[]);
        let merged = ok(merge(&files, &[]));
        assert_eq!(
            text(&merged.stdout),
            text(&whole.stdout),
            "{m} shards merged"
        );
        let merged_json = ok(merge(&files, &["--json"]));
        assert_eq!(
            text(&merged_json.stdout),
            text(&whole_json.stdout),
            "{m} shards merged, as JSON"
        );
    }
}

/// One study in three shards, for the refusals.
fn three_shards() -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let files = shards(dir.path(), 3, &[]);
    (dir, files)
}

/// `rally sim merge` fails with exit 2, and its message names `file` and says `why`.
fn refused(out: Output, file: &Path, why: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&file.display().to_string()),
        "names the file: {err}"
    );
    assert!(err.contains(why), "says why ({why}): {err}");
}

#[test]
fn merge_refuses_truncated_and_edited_shards() {
    let (_dir, files) = three_shards();
    let original = std::fs::read_to_string(&files[1]).unwrap();

    std::fs::write(&files[1], &original[..original.len() / 2]).unwrap();
    refused(
        merge(&files, &[]),
        &files[1],
        "not a complete rally sim tally",
    );

    // One more game won, as a hand would edit it.
    let at = original.find("\"won\": ").unwrap() + "\"won\": ".len();
    let digits = original[at..].find(|c: char| !c.is_ascii_digit()).unwrap();
    let won: u64 = original[at..at + digits].parse().unwrap();
    let edited = format!("{}{}{}", &original[..at], won + 1, &original[at + digits..]);
    std::fs::write(&files[1], edited).unwrap();
    refused(merge(&files, &[]), &files[1], "checksum does not match");

    std::fs::write(&files[1], "").unwrap();
    refused(
        merge(&files, &[]),
        &files[1],
        "not a complete rally sim tally",
    );
}

#[test]
fn merge_refuses_missing_and_repeated_shards() {
    let (_dir, files) = three_shards();
    let out = merge(&[files[0].clone(), files[2].clone()], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .contains("games 7..14 of 21 are in none of the files: a shard is missing"),
        "{}",
        text(&out.stderr)
    );
    let twice = [
        files[0].clone(),
        files[1].clone(),
        files[1].clone(),
        files[2].clone(),
    ];
    refused(merge(&twice, &[]), &files[1], "overlap");
}

#[test]
fn merge_refuses_a_shard_from_a_changed_script_or_game_file() {
    let dir = tempfile::tempdir().unwrap();
    // Shard 1 of 2 with a copy of the scripts in which one line changed.
    let scripts = dir.path().join("scripts");
    support::copy_dir(Path::new("scripts"), &scripts);
    let pit = scripts.join("elements/pit.lua");
    let changed = std::fs::read_to_string(&pit).unwrap() + "\n-- a designer's edit\n";
    std::fs::write(&pit, changed).unwrap();
    let first = dir.path().join("0.json");
    let second = dir.path().join("1.json");
    ok(support::finish(
        study(&["--shard", "0/2", "-q"]).arg("--out").arg(&first),
    ));
    ok(support::finish(
        study(&["--shard", "1/2", "-q"])
            .arg("--scripts")
            .arg(&scripts)
            .arg("--out")
            .arg(&second),
    ));
    refused(
        merge(&[first.clone(), second.clone()], &[]),
        &second,
        "played with other rules than",
    );
    assert!(text(&merge(&[first.clone(), second], &[]).stderr)
        .contains("scripts/elements/pit.lua changed"));

    // Shard 1 of 2 from a game file with another seed.
    let game = dir.path().join("shards.toml");
    let seeded = std::fs::read_to_string(GAME)
        .unwrap()
        .replace("seed = 5", "seed = 6");
    std::fs::write(&game, seeded).unwrap();
    let other = dir.path().join("other.json");
    let mut command = rally(&["sim"]);
    command.arg(&game).args([
        "--games",
        GAMES,
        "--compare",
        "no-robot-lasers",
        "--shard",
        "1/2",
        "-q",
        "--scripts",
        "scripts",
        "--variants",
        "variants",
    ]);
    ok(support::finish(command.arg("--out").arg(&other)));
    refused(
        merge(&[first, other.clone()], &[]),
        &other,
        "another game file",
    );
}

#[test]
fn json_and_csv_outputs() {
    let out = ok(support::finish(&mut study_of("4", &["-q", "--json"])));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["format"], "rally sim");
    assert_eq!(json["version"], 1);
    assert_eq!(json["range"], serde_json::json!([0, 4]));
    assert_eq!(json["columns"][1]["name"], "no-robot-lasers");
    assert_eq!(json["columns"][0]["tally"]["games"], 4);
    assert!(json["rules"]["files"]["scripts/elements/pit.lua"].is_string());
    let finish = &json["summary"][1];
    assert_eq!(finish["key"], "finish_rate");
    assert!(finish["columns"][0]["low"].is_number());
    assert!(finish["difference"]["high"].is_number());

    let out = ok(support::finish(&mut study_of("4", &["-q", "--csv"])));
    let csv = text(&out.stdout);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("metric,column,value,low,high"));
    assert!(
        lines.any(|l| l.starts_with("finish_rate,difference,")),
        "{csv}"
    );
    assert!(csv.contains("games,standard,4,,\n"), "{csv}");
}

#[test]
fn quiet_and_piped_output_is_only_results() {
    let out = ok(support::finish(&mut study_of("2", &[])));
    let err = text(&out.stderr);
    assert!(err.contains("games per minute"), "chatter on stderr: {err}");
    assert!(
        !err.contains('\r') && !err.contains('\x1b'),
        "no progress bar when stderr is not a terminal: {err:?}"
    );
    assert!(
        text(&out.stdout).starts_with(' '),
        "the table, and nothing else"
    );
    let quiet = ok(support::finish(&mut study_of("2", &["-q"])));
    assert_eq!(text(&quiet.stderr), "", "-q: nothing on stderr");
    assert_eq!(quiet.stdout, out.stdout);
}

#[test]
fn sim_command_line_mistakes() {
    let out = support::finish(&mut study(&["--shard", "3/3"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("shards count from 0, so the last of 3 is 2/3"));
    let out = support::finish(&mut study(&["--json", "--csv"]));
    assert_eq!(out.status.code(), Some(2));
    let out = support::finish(&mut study(&["--strength", "A=brilliant"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr)
        .contains("expected NAME=weak, NAME=medium or NAME=strong, NAME one of A, B, C"));
    let out = support::finish(&mut rally(&["sim", "merge", "no-such-shard.json"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no-such-shard.json"));
}

/// Each `rally sim ...` command in a recipe: from `rally sim` to the end of the line, with
/// lines ending in `\` joined.
fn commands_in(recipe: &str) -> Vec<String> {
    let joined = recipe.replace("\\\n", " ");
    joined
        .lines()
        .filter_map(|line| line.find("rally sim").map(|at| line[at..].to_string()))
        .collect()
}

#[test]
fn the_recipes_use_flags_that_exist() {
    let sim_help = text(&ok(support::finish(&mut rally(&["sim", "--help"]))).stdout);
    let merge_help = text(&ok(support::finish(&mut rally(&["sim", "merge", "--help"]))).stdout);
    for recipe in [
        "deploy/slurm.sh",
        "deploy/k8s-job.yaml",
        "deploy/parallel.sh",
    ] {
        let source = std::fs::read_to_string(recipe).unwrap();
        let commands = commands_in(&source);
        assert!(
            commands
                .iter()
                .any(|c| c.contains("--shard") && c.contains("--out")),
            "{recipe} plays shards into tally files: {commands:?}"
        );
        assert!(
            commands.iter().any(|c| c.starts_with("rally sim merge")),
            "{recipe} says how to merge"
        );
        for command in &commands {
            let help = if command.starts_with("rally sim merge") {
                &merge_help
            } else {
                &sim_help
            };
            for word in command.split([' ', '"', '\'']) {
                let flag = word.split('=').next().unwrap();
                let is_flag = flag.starts_with("--") && flag.len() > 2
                    || flag.len() == 2 && flag.starts_with('-') && flag != "--";
                if is_flag {
                    assert!(
                        help.contains(&format!("{flag} ")) || help.contains(&format!("{flag},")),
                        "{recipe}: `{command}` uses {flag}, which `rally sim` does not know"
                    );
                }
            }
        }
    }
    // The Indexed Job: K is the pod's index, M the number of completions.
    let job = std::fs::read_to_string("deploy/k8s-job.yaml").unwrap();
    assert!(job.contains("completionMode: Indexed"));
    let completions = job
        .lines()
        .find_map(|l| l.trim().strip_prefix("completions: "))
        .unwrap();
    assert!(
        job.contains(&format!("--shard \"$JOB_COMPLETION_INDEX/{completions}\"")),
        "--shard $JOB_COMPLETION_INDEX/{completions}"
    );
}

/// The shell recipes run here, with `rally` on the PATH, and merge to the unsharded summary.
#[test]
fn the_shell_recipes_work() {
    let whole = ok(support::finish(&mut study(&["-q"])));
    let bin = Path::new(env!("CARGO_BIN_EXE_rally")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("slurm");
    // A job array submitted as --array=1-3: tasks 1, 2, 3.
    for task in 1..=3 {
        ok(Command::new("bash")
            .args([
                "deploy/slurm.sh",
                GAME,
                GAMES,
                "--compare",
                "no-robot-lasers",
            ])
            .env("PATH", &path)
            .env("SLURM_ARRAY_TASK_ID", task.to_string())
            .env("SLURM_ARRAY_TASK_MIN", "1")
            .env("SLURM_ARRAY_TASK_COUNT", "3")
            .env("RALLY_SHARDS", &out)
            .output()
            .unwrap());
    }
    let files: Vec<PathBuf> = (0..3).map(|k| out.join(format!("{k}.json"))).collect();
    assert_eq!(text(&ok(merge(&files, &[])).stdout), text(&whole.stdout));

    if Command::new("parallel").arg("--version").output().is_err() {
        println!("SKIPPED deploy/parallel.sh: GNU parallel is not installed (.ci/run installs it)");
        return;
    }
    let merged = ok(Command::new("bash")
        .args([
            "deploy/parallel.sh",
            GAME,
            GAMES,
            "3",
            "--compare",
            "no-robot-lasers",
        ])
        .env("PATH", &path)
        .env("RALLY_SHARDS", dir.path().join("parallel"))
        .env_remove("HOSTS")
        .output()
        .unwrap());
    assert_eq!(text(&merged.stdout), text(&whole.stdout));
}

/// A designer's project: the sticky floor (robots with `threshold` damage move one square
/// less, logging `stuck`), set to threshold 0 in the game file without switching it on.
const STICKY: &str = "tests/games/sticky/game.toml";

/// `rally sim STICKY ARGS -q`, which must succeed.
fn sticky(args: &[&str]) -> Output {
    let mut all = vec!["sim", STICKY, "-q", "--threads", "2"];
    all.extend_from_slice(args);
    ok(support::finish(&mut rally(&all)))
}

fn json_of(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap()
}

fn sum(v: &serde_json::Value) -> u64 {
    v.as_object()
        .map_or(0, |m| m.values().map(|n| n.as_u64().unwrap()).sum())
}

#[test]
fn columns_switch_variants_on_and_off_with_settings() {
    let json = json_of(&sticky(&[
        "--games",
        "6",
        "--compare",
        "sticky-floor",
        "--compare",
        "sticky-floor.threshold=9",
        "--json",
    ]));
    let names: Vec<&str> = (0..3)
        .map(|c| json["columns"][c]["name"].as_str().unwrap())
        .collect();
    // The file's parked setting (0), then the column's own (9): the headers tell them apart.
    assert_eq!(
        names,
        [
            "standard",
            "sticky-floor(threshold=0)",
            "sticky-floor(threshold=9)"
        ]
    );
    assert_eq!(
        json["columns"][2]["settings"]["sticky-floor"]["threshold"],
        9
    );
    assert!(json["columns"][0].get("settings").is_none());
    // Threshold 0: every move of every robot sticks, and the rule says so each time.
    let stuck = &json["columns"][1]["tally"]["events"]["stuck"];
    assert!(stuck["sum"].as_u64().unwrap() > 6, "{stuck}");
    let by_robot: u64 = ["A", "B", "C"]
        .iter()
        .map(|r| {
            json["columns"][1]["tally"]["events_by"]["stuck"][r]["sum"]
                .as_u64()
                .unwrap()
        })
        .sum();
    assert_eq!(by_robot, stuck["sum"].as_u64().unwrap());
    assert!(
        json["columns"][0]["tally"]["events"].is_null(),
        "no sticky floor, no `stuck`"
    );
    // Each column is compared with the first.
    let finish = json["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "finish_rate")
        .unwrap();
    assert_eq!(finish["differences"].as_array().unwrap().len(), 2);

    // -NAME switches off a variant the file (here --variant) has on.
    let out = sticky(&[
        "--games",
        "2",
        "--variant",
        "sticky-floor",
        "--compare",
        "-sticky-floor",
    ]);
    let table = text(&out.stdout);
    assert!(
        table.contains("standard − sticky-floor(threshold=0)"),
        "{table}"
    );
    // The scripts' events are rows, named by their declaration's sentence; by robot only
    // when asked for with --metric.
    assert!(
        table.contains("\nstuck per game: a robot sticks to the floor with … damage "),
        "{table}"
    );
    assert!(!table.contains("\n  A "), "{table}");
    let out = sticky(&[
        "--games",
        "2",
        "--variant",
        "sticky-floor",
        "--metric",
        "stuck",
    ]);
    let table = text(&out.stdout);
    assert!(table.contains("\n  A "), "{table}");
    assert!(table.contains("wins: B (dock 2)"), "{table}");
    assert!(table.contains("seats differ: χ² test p"), "{table}");
}

#[test]
fn column_and_sweep_mistakes_are_refused_before_any_game() {
    let refused = |args: &[&str], why: &str| {
        let mut all = vec!["sim", STICKY, "--games", "1000000"];
        all.extend_from_slice(args);
        let out = support::finish(&mut rally(&all));
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?} says {why}: {err}");
    };
    refused(
        &["--compare", "sticky-floor:threshold=5"],
        "a setting is NAME.PARAM=VALUE (sticky-floor.threshold=5)",
    );
    refused(
        &["--compare", "-thaw"],
        "-thaw: the game does not switch `thaw` on (it switches on: none)",
    );
    refused(
        &["--compare", "sticky-floor.thresold=5"],
        "did you mean `threshold`",
    );
    refused(&["--compare", "sticky-floor.threshold=99"], "threshold");
    refused(
        &["--compare", "stiky-floor"],
        "unknown variant `stiky-floor`",
    );
    refused(
        &["--compare", "sticky floor"],
        "expected NAME, -NAME or NAME.PARAM=VALUE",
    );
    refused(&["--sweep", "sticky-floor.threshold=6..2"], "6 is above 2");
    refused(&["--sweep", "sticky-floor.threshold=1..1000"], "at most 50");
    refused(
        &["--sweep", "sticky-floor.threshold=1..3", "--compare", "x"],
        "cannot be used with",
    );
    refused(&["--heatmap", "deaths"], "--picture");
    refused(
        &["--heatmap", "bogus", "-o", "x.svg"],
        "[possible values: deaths, damage, visits, ends, flags]",
    );
    // A parked setting that no column uses is a warning, not silence.
    let out = ok(support::finish(&mut rally(&[
        "sim", STICKY, "--games", "1",
    ])));
    assert!(
        text(&out.stderr).contains("game.toml:8:10: [variant.sticky-floor] sets parameters, but nothing switches `sticky-floor` on"),
        "{}",
        text(&out.stderr)
    );
    // `rally play` says so too; switched on with --variant, the setting is used, and nothing is said.
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("game.save.json");
    let play = |extra: &[&str]| {
        let mut all = vec![
            "play",
            STICKY,
            "--fast",
            "--new",
            "--save",
            save.to_str().unwrap(),
        ];
        all.extend_from_slice(extra);
        let out = ok(support::finish(rally(&all).stdin(Stdio::null())));
        text(&out.stderr)
    };
    assert!(play(&[]).contains("[variant.sticky-floor] sets parameters, but nothing switches"));
    assert!(!play(&["--variant", "sticky-floor"]).contains("[variant.sticky-floor]"));
}

#[test]
fn a_sweep_plays_one_column_per_value_on_the_same_games() {
    let dir = tempfile::tempdir().unwrap();
    let trend = dir.path().join("trend.svg");
    let out = sticky(&[
        "--games",
        "4",
        "--sweep",
        "sticky-floor.threshold=1..3",
        "--json",
        "--trend",
        trend.to_str().unwrap(),
    ]);
    let sweep = json_of(&out);
    let columns = sweep["columns"].as_array().unwrap();
    assert_eq!(columns.len(), 3);
    assert_eq!(columns[2]["name"], "sticky-floor(threshold=3)");
    // The column of threshold 2 is the very games a --compare column of it plays.
    let compared = json_of(&sticky(&[
        "--games",
        "4",
        "--compare",
        "sticky-floor.threshold=2",
        "--json",
    ]));
    // (Their pairs differ: each is paired with its own study's first column.)
    let games = |tally: &serde_json::Value| {
        let mut tally = tally.clone();
        tally.as_object_mut().unwrap().remove("paired");
        tally
    };
    assert_eq!(
        games(&columns[1]["tally"]),
        games(&compared["columns"][1]["tally"])
    );
    // The trend: finish rate and turns per game, and the events, a point per value.
    let svg = std::fs::read_to_string(&trend).unwrap();
    assert!(
        svg.contains("finish rate") && svg.contains("stuck per game"),
        "{svg}"
    );
    assert_eq!(svg.matches("<circle").count(), 9, "3 charts of 3 points");
    assert!(
        svg.contains("<title>2: "),
        "the axis shows the values: {svg}"
    );
    let table = text(&sticky(&["--games", "2", "--sweep", "sticky-floor.threshold=1,3"]).stdout);
    assert!(
        table.contains("sticky-floor(threshold=3) − sticky-floor(threshold=1)"),
        "{table}"
    );
}

#[test]
fn heatmaps_put_every_death_and_every_point_of_damage_on_a_square() {
    let dir = tempfile::tempdir().unwrap();
    let picture = dir.path().join("deaths.svg");
    let json = json_of(&sticky(&[
        "--games",
        "6",
        "--compare",
        "sticky-floor",
        "--json",
        "--heatmap",
        "deaths",
        "-o",
        picture.to_str().unwrap(),
    ]));
    for column in json["columns"].as_array().unwrap() {
        let t = &column["tally"];
        assert!(t["deaths"]["sum"].as_u64().unwrap() > 0, "{t}");
        assert_eq!(
            sum(&t["squares"]["deaths"]),
            t["deaths"]["sum"].as_u64().unwrap()
        );
        assert_eq!(
            sum(&t["squares"]["damage"]),
            t["damage"]["sum"].as_u64().unwrap()
        );
        // Each robot ends each turn it is on the board somewhere.
        assert!(sum(&t["squares"]["ends"]) > 0);
        assert!(t["flags"]["1"]["times"].as_u64().unwrap() > 0, "{t}");
    }
    // Two columns: the picture is their difference, on the board, with a legend.
    let svg = std::fs::read_to_string(&picture).unwrap();
    assert!(
        svg.contains("deaths: sticky-floor(threshold=0) − standard"),
        "{svg}"
    );
    assert!(svg.contains("robots destroyed here per game (difference)"));
    assert!(svg.contains(r#"<g id="board">"#) && svg.contains(r#"<g id="legend">"#));
    let png = dir.path().join("flags.png");
    sticky(&[
        "--games",
        "4",
        "--heatmap",
        "flags",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
}

#[test]
fn shards_carry_their_settings_and_a_report_is_one_page() {
    let dir = tempfile::tempdir().unwrap();
    let shard = |k: &str, setting: &str| {
        let file = dir.path().join(format!("{k}-{setting}.json"));
        sticky(&[
            "--games",
            "4",
            "--compare",
            setting,
            "--shard",
            k,
            "--out",
            file.to_str().unwrap(),
        ]);
        file
    };
    let (a, b) = (
        shard("0/2", "sticky-floor.threshold=2"),
        shard("1/2", "sticky-floor.threshold=2"),
    );
    let other = shard("1/2", "sticky-floor.threshold=3");
    let out = merge(&[a.clone(), other.clone()], &[]);
    refused(out, &other, "is a shard of another study");
    let report = dir.path().join("study.html");
    let merged = ok(merge(
        &[a, b],
        &[
            "--json",
            "--metric",
            "stuck",
            "--report",
            report.to_str().unwrap(),
        ],
    ));
    let whole = sticky(&[
        "--games",
        "4",
        "--compare",
        "sticky-floor.threshold=2",
        "--json",
    ]);
    assert_eq!(
        merged.stdout, whole.stdout,
        "settings and tallies merge exactly"
    );
    let page = std::fs::read_to_string(&report).unwrap();
    let sha = json_of(&whole)["game"]["sha256"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains(&sha), "the game's hash");
    assert!(page.contains("rally sim merge"), "the command");
    for section in [
        "Summary",
        "Seats: win rate per starting dock",
        "Turns per game",
        "Heatmaps",
    ] {
        assert!(page.contains(section), "{section}");
    }
    assert!(page.contains("&#160;&#160;A"), "--metric stuck: by robot");
    assert!(
        page.contains("stuck per game: a robot sticks to the floor with … damage"),
        "the event's row is named by its sentence"
    );
    assert!(page.matches("<svg").count() > 10);
    // Self-contained: nothing is fetched (the only address is SVG's namespace).
    let addresses = page.matches("http").count();
    assert_eq!(
        addresses,
        page.matches("http://www.w3.org/2000/svg").count()
    );
    assert!(!page.contains("<script"));
}

#[test]
fn the_report_opens_in_a_browser_with_every_picture_drawn_and_nothing_fetched() {
    let Some(browser) = support::browser::session(
        "the_report_opens_in_a_browser_with_every_picture_drawn_and_nothing_fetched",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("study.html");
    sticky(&[
        "--games",
        "3",
        "--sweep",
        "sticky-floor.threshold=0..2",
        "--report",
        report.to_str().unwrap(),
    ]);
    browser.open(&format!("file://{}", report.display()));
    let seen = browser.run(
        r#"return {
            svgs: [...document.querySelectorAll('figure > svg')].map(s => s.getBoundingClientRect().width),
            rows: document.querySelectorAll('table tr').length,
            fetched: performance.getEntriesByType('resource').length,
            sections: [...document.querySelectorAll('h2')].map(h => h.id),
        };"#,
    );
    browser.screenshot("sim-report");
    let widths = seen["svgs"].as_array().unwrap();
    assert!(widths.len() > 10, "{seen}");
    assert!(
        widths.iter().all(|w| w.as_f64().unwrap() > 100.0),
        "every picture drawn: {seen}"
    );
    assert!(seen["rows"].as_u64().unwrap() > 20, "{seen}");
    assert_eq!(
        seen["fetched"], 0,
        "nothing from the network or the disk: {seen}"
    );
    assert_eq!(
        seen["sections"],
        serde_json::json!(["summary", "trends", "seats", "turns", "heatmaps"])
    );
    assert_eq!(browser.errors(), Vec::<String>::new());
}
