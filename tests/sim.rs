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
