//! `rally sim GAME --games N [--variant V ...] [--compare V,W]`: bot-only games on every core
//! with a progress bar, then the balancing table; with `--compare`, a second column for the
//! game with another set of variants.

use super::Common;
use crate::error::Result;
use crate::game::{sim, Setup};
use crate::script::Sources;
use std::io::{IsTerminal, Write};
use std::path::Path;

pub struct SimOptions {
    pub games: u32,
    /// Comma-separated variants for the second column (the game file's variants plus these).
    pub compare: Option<String>,
    /// Worker threads [default: one per core].
    pub threads: Option<usize>,
}

pub fn sim(path: &Path, opts: &SimOptions, common: &Common) -> Result<bool> {
    let setup = Setup::load(path)?;
    let (scripts, variants) = common.folders(Some(path))?;
    let threads = opts.threads.unwrap_or_else(sim::default_threads);
    let mut columns: Vec<(String, Vec<String>)> = vec![(
        column_name(&setup, &common.extra_variants),
        common.extra_variants.clone(),
    )];
    if let Some(set) = &opts.compare {
        let names: Vec<String> = set
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        columns.push((column_name(&setup, &names), names));
    }
    super::output::note(format!(
        "{}: {} bot game(s) per column on {threads} thread(s)",
        path.display(),
        opts.games
    ));
    let mut summaries = Vec::new();
    for (name, extra) in &columns {
        let sources = Sources {
            scripts: scripts.clone(),
            variants: variants.clone(),
            choices: setup.choices(extra),
        };
        let mut bar = Bar::new(name, opts.games);
        let summary = sim::run(&setup, &sources, opts.games, threads, &mut |done| {
            bar.show(done)
        })?;
        bar.finish(&summary);
        summaries.push((name.clone(), summary));
    }
    let refs: Vec<(String, &sim::Summary)> =
        summaries.iter().map(|(n, s)| (n.clone(), s)).collect();
    println!("{}", sim::table(&refs));
    Ok(true)
}

/// A column is named after its variants: `standard` when there are none.
fn column_name(setup: &Setup, extra: &[String]) -> String {
    let names: Vec<String> = setup.choices(extra).into_iter().map(|c| c.name).collect();
    if names.is_empty() {
        "standard".into()
    } else {
        names.join("+")
    }
}

/// A one-line progress bar on stderr, redrawn in place on a terminal.
struct Bar {
    label: String,
    total: u32,
    started: std::time::Instant,
    terminal: bool,
}

impl Bar {
    fn new(label: &str, total: u32) -> Bar {
        Bar {
            label: label.to_string(),
            total,
            started: std::time::Instant::now(),
            terminal: std::io::stderr().is_terminal() && !super::output::is_quiet(),
        }
    }

    fn show(&mut self, done: u32) {
        if !self.terminal {
            return;
        }
        const WIDTH: usize = 30;
        let filled = (WIDTH as u64 * done as u64 / self.total.max(1) as u64) as usize;
        let elapsed = self.started.elapsed().as_secs_f64();
        let left = if done > 0 {
            format!(
                "{:.0} s left",
                elapsed * (self.total - done) as f64 / done as f64
            )
        } else {
            String::new()
        };
        eprint!(
            "\r{} [{}{}] {done}/{} games {left}   ",
            self.label,
            "#".repeat(filled),
            "-".repeat(WIDTH - filled),
            self.total
        );
        let _ = std::io::stderr().flush();
    }

    fn finish(&mut self, summary: &sim::Summary) {
        if self.terminal {
            eprint!("\r\x1b[2K");
        }
        super::output::note(format!(
            "{}: {} games in {:.1} s ({:.0} games per minute)",
            self.label,
            summary.games,
            summary.seconds,
            summary.games_per_minute()
        ));
    }
}
