//! What `--help` and the man pages say beyond the options: examples for every command, the
//! environment variables and the exit statuses. One table, added to the clap definition by
//! [`decorate`], so that `rally X --help` and `rally man` say the same thing.

use super::output::{paint, HEADER};
use clap::Command;

/// Examples by command: (command line, what it does).
const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "rally",
        &[
            (
                "rally run boards/tour.toml",
                "resolve a ready-made scenario on the Factory board",
            ),
            ("rally test", "run every scenario under tests/scenarios"),
            (
                "rally new element spring_pad",
                "start a new board element, with a scenario that tests it",
            ),
            (
                "rally watch tests/scenarios/spring_pad.toml",
                "re-run a scenario on every save",
            ),
        ],
    ),
    (
        "run",
        &[
            (
                "rally run boards/tour.toml",
                "the board before and after, robots, events, expectations",
            ),
            (
                "rally run x.toml --variant ice-rink",
                "the same scenario with a variant switched on",
            ),
            (
                "rally run x.toml --json | jq '.robots[0].at'",
                "the final state as JSON",
            ),
            (
                "rally run x.toml --repeat 1000",
                "time it: median, min, spread and max of 1000 resolutions",
            ),
            (
                "rally run x.toml --record x.log.json",
                "also record a replay log",
            ),
            (
                "rally run --replay x.log.json",
                "resolve a recording again under today's rules",
            ),
            (
                "rally run x.toml --until t2r3",
                "stop after turn 2, register 3: board, robots (vars too), events so far",
            ),
            (
                "rally run x.toml --trace",
                "also every handler call: who, where, for what, what it did, its cost",
            ),
            (
                "rally run x.toml --repeat 200 --profile",
                "instructions and time per handler and per script, the costliest first",
            ),
            (
                "rally run x.toml --until t2r3s4 --json",
                "the state at register 3's 4th frame, as the replay viewer's #t2r3s4 shows it",
            ),
        ],
    ),
    (
        "watch",
        &[
            (
                "rally watch tests/scenarios/spring_pad.toml",
                "re-run on every save and show what changed",
            ),
            (
                "rally watch x.toml --poll",
                "look for changes every 100 ms (network shares, VMs)",
            ),
            (
                "rally watch x.toml --timings",
                "also print how long each reload took",
            ),
            (
                "rally watch x.toml --until t1r2",
                "stop every run after register 2 and show what changed there",
            ),
        ],
    ),
    (
        "step",
        &[
            (
                "rally step x.toml",
                "step through it: next, register, turn, back, show A, vars A, events, reload",
            ),
            (
                "printf 'next\\nnext\\nvars A\\n' | rally step x.toml",
                "the same from a pipe: each command is echoed after its prompt",
            ),
        ],
    ),
    (
        "test",
        &[
            ("rally test", "every scenario under tests/scenarios"),
            (
                "rally test tests/scenarios/belts x.toml",
                "the scenarios in a folder, and one file",
            ),
            ("rally test --json | jq '.failed'", "the results as JSON"),
            ("rally test -q", "only failures and the summary line"),
        ],
    ),
    (
        "check",
        &[
            (
                "rally check",
                "every script of the project here, and of its layers",
            ),
            (
                "rally check packs/toll",
                "a pack (or any project) by its folder",
            ),
            (
                "rally check boards/tour.toml",
                "the project a scenario belongs to",
            ),
        ],
    ),
    (
        "bench",
        &[
            (
                "rally bench",
                "time every scenario under tests/scenarios: medians, distribution, slowest",
            ),
            (
                "rally bench benches/fixtures/scaling --each",
                "a turn's cost against robots and board size (docs/performance.md)",
            ),
            (
                "rally bench tests/scenarios/expansion --profile",
                "which handlers and scripts cost the most, over every timed resolution",
            ),
            (
                "rally bench x.toml --json | jq '.scenarios[0].median_us'",
                "one scenario's times as JSON",
            ),
            (
                "rally bench --report > table.md",
                "every figure of the performance table measured again, as markdown (a release build, from the clone's top folder; about a minute)",
            ),
            (
                "rally bench --report --rounds 1 --repeat 20 --games 20",
                "a quick, rougher look at the same rows",
            ),
        ],
    ),
    (
        "render",
        &[
            ("rally render boards/factory.toml", "boards/factory.svg"),
            (
                "rally render x.toml --after -o after.png",
                "a scenario's robots after it ran, as PNG",
            ),
            (
                "rally render map.tmj -o -",
                "a Tiled map, SVG on standard output",
            ),
            (
                "rally render map.tmj --list",
                "each tile the map uses and what it became (docs/tiled.md)",
            ),
        ],
    ),
    (
        "replay",
        &[
            (
                "rally replay x.toml",
                "x.html: the scenario register by register in a browser",
            ),
            (
                "rally replay saves/game.replay.json -o game.html",
                "a whole recorded game",
            ),
        ],
    ),
    (
        "completions",
        &[
            (
                "source <(rally completions bash)",
                "bash: completion in this shell (put it in ~/.bashrc)",
            ),
            (
                "source <(rally completions zsh)",
                "zsh (put it in ~/.zshrc)",
            ),
            (
                "rally completions fish | source",
                "fish (put it in ~/.config/fish/config.fish)",
            ),
        ],
    ),
    (
        "man",
        &[
            ("rally man | man -l -", "read the manual"),
            ("rally man > rally.1", "install it"),
        ],
    ),
    (
        "elements",
        &[
            (
                "rally elements",
                "every element with its parameters, the rules and the order of play",
            ),
            ("rally elements conveyor gear", "only these elements"),
            (
                "rally elements --variant ice-rink",
                "including what a variant adds",
            ),
            ("rally elements --json | jq '.elements[].name'", "as JSON"),
        ],
    ),
    (
        "variants",
        &[
            (
                "rally variants",
                "every variant with parameters, steps and conflicts",
            ),
            ("rally variants ice-rink --json", "one variant, as JSON"),
        ],
    ),
    (
        "options",
        &[
            ("rally options", "every option card"),
            ("rally options brakes --json", "one option card, as JSON"),
        ],
    ),
    (
        "play",
        &[
            (
                "rally play games/practice.toml",
                "you against bots at this terminal",
            ),
            (
                "rally play games/practice.toml --fast",
                "no pauses between registers",
            ),
            (
                "rally play --resume saves/practice.save.json",
                "continue a saved game",
            ),
            (
                "rally play games/practice.toml --new",
                "start anew, replacing the game in saves/practice.save.json",
            ),
        ],
    ),
    (
        "sim",
        &[
            (
                "rally sim games/practice.toml --games 500",
                "500 bot games: rates and means with 95% confidence intervals",
            ),
            (
                "rally sim games/ice-rink-bots.toml --compare thaw",
                "the rink with and without ice, side by side, and the difference",
            ),
            (
                "rally sim games/ice-rink-bots.toml --sweep ice-rink.speed_damage=sum,max --report rink.html",
                "a column per setting on the same games, and a page to share",
            ),
            (
                "rally sim games/bots.toml --heatmap deaths -o deaths.svg",
                "where robots are destroyed, drawn on the board",
            ),
            (
                "rally sim games/bots.toml --games 70000 --shard 3/7 --out 3.json -q",
                "shard 3 of 7 (counting from 0) of a study, for a cluster",
            ),
            (
                "rally sim merge 0.json 1.json ... 6.json",
                "the whole study from its shards (docs/simulations.md)",
            ),
        ],
    ),
    (
        "tiled-types",
        &[
            (
                "rally tiled-types -o rally-types.json",
                "Custom Types to import in Tiled's Custom Types Editor",
            ),
            (
                "rally tiled-types --variant ice-rink -o types.json",
                "with a variant's elements too",
            ),
        ],
    ),
    (
        "types",
        &[
            (
                "rally types -o scripts/types",
                "write the API annotations for the editor",
            ),
            (
                "rally types --markdown docs/api.md",
                "regenerate the API reference",
            ),
            (
                "rally types > rally.lua",
                "the annotations on standard output",
            ),
        ],
    ),
    (
        "new",
        &[
            (
                "rally new element spring_pad",
                "scripts/elements/spring_pad.lua and a scenario for it",
            ),
            (
                "rally new variant sudden-death",
                "variants/sudden-death/ and a scenario that switches it on",
            ),
            (
                "rally new scenario belts_and_gears",
                "tests/scenarios/belts_and_gears.toml",
            ),
            (
                "rally new element magnet --dir my-game",
                "in another folder",
            ),
        ],
    ),
];

/// Environment variables: (name, meaning).
pub const ENVIRONMENT: &[(&str, &str)] = &[
    ("NO_COLOR", "when set and not empty, no colour (as --color never)"),
    ("CLICOLOR_FORCE", "when set and not 0, colour even when the output is not a terminal (as --color always)"),
    ("RALLY_LOG", "log filter, as tracing's EnvFilter reads it: `debug`, `script=info` (script `print` output), `rally=trace`; used when neither -v nor -q is given"),
    ("RUST_LOG", "the same, when RALLY_LOG is not set"),
    ("COMPLETE", "set by the completion scripts of `rally completions` to ask rally for completions"),
];

/// Exit statuses: (status, meaning).
pub const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "success: every expectation held, every scenario passed"),
    ("1", "a check failed: an expectation, a test, or a replay that no longer matches"),
    ("2", "an error: bad input (file:line:column: message), a script error, a file that cannot be read or written, a wrong command line"),
];

/// The examples of a command (`rally` for the top level), as `(command line, meaning)`.
pub fn examples(command: &str) -> &'static [(&'static str, &'static str)] {
    EXAMPLES
        .iter()
        .find(|(name, _)| *name == command)
        .map_or(&[], |(_, e)| e)
}

fn table(title: &str, rows: &[(&str, &str)]) -> String {
    let mut out = format!("{}\n", paint(HEADER, title));
    let width = rows.iter().map(|(a, _)| a.len()).max().unwrap_or(0);
    for (a, b) in rows {
        if width > 40 {
            out.push_str(&format!("  {a}\n      {b}\n"));
        } else {
            out.push_str(&format!("  {a:width$}  {b}\n"));
        }
    }
    out
}

/// Adds the examples to every command's help, and the environment and exit statuses to the
/// top level's `--help`.
pub fn decorate(cli: Command) -> Command {
    let names: Vec<String> = cli
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    let mut cli = cli;
    for name in names {
        let rows = examples(&name);
        if !rows.is_empty() {
            let text = table("Examples:", rows);
            cli = cli.mut_subcommand(name, |sub| sub.after_help(text));
        }
    }
    let examples = table("Examples:", examples("rally"));
    let long = format!(
        "{examples}\n{}\n{}",
        table("Environment:", ENVIRONMENT),
        table("Exit status:", EXIT_STATUS)
    );
    cli.after_help(examples).after_long_help(long)
}
