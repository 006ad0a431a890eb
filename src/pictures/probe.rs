//! `--trace` and `--profile` in words (docs/debugging.md): every handler call in order, with
//! who it was, for what, what it logged and queued, its instructions and time; and the calls
//! added up per handler and per script, the costliest first.

use crate::engine::HandlerCall;
use crate::pictures::render::Clock;
use crate::pictures::words;
use crate::text::sentence::Sentences;
use std::collections::HashMap;
use std::fmt::Write;
use std::time::Duration;

/// Every call, in the order they began; a call made inside another is indented under it.
pub fn trace(calls: &[HandlerCall], sentences: &Sentences, clock: Clock) -> String {
    let mut out = format!("Trace: {} handler call(s)\n", calls.len());
    for c in calls {
        let indent = "  ".repeat(c.depth as usize + 1);
        let when = clock.label(c.turn, c.register);
        let mut did = Vec::new();
        let names = [
            ("belt move", "belt moves"),
            ("push", "pushes"),
            ("hit", "hits"),
        ];
        for (&n, (one, many)) in c.queued.iter().zip(names) {
            match n {
                0 => {}
                1 => did.push(format!("queued 1 {one}")),
                n => did.push(format!("queued {n} {many}")),
            }
        }
        if !c.events.is_empty() {
            did.push(format!("logged {}", c.events.len()));
        }
        let did = match did.is_empty() {
            true => String::new(),
            false => format!(": {}", did.join(", ")),
        };
        let _ = writeln!(
            out,
            "{indent}{when} {}{did}; {} instructions, {}",
            crate::text::clean_line(&c.context.to_string()),
            c.instructions,
            micros(c.time)
        );
        for e in &c.events {
            let _ = writeln!(out, "{indent}    {}", words::describe(e, sentences));
        }
    }
    out
}

/// Calls added up by handler (who, its script, the hook or step), for `--profile`.
#[derive(Default)]
pub struct Profile {
    handlers: HashMap<(String, String, String), Cost>,
    /// Resolutions the calls came from.
    pub runs: u32,
}

#[derive(Clone, Copy, Default)]
struct Cost {
    calls: u64,
    instructions: i64,
    time: Duration,
}

impl Cost {
    fn add(&mut self, other: Cost) {
        self.calls += other.calls;
        self.instructions += other.instructions;
        self.time += other.time;
    }
}

impl Profile {
    /// Adds the calls of one resolution.
    pub fn add(&mut self, calls: &[HandlerCall]) {
        self.runs += 1;
        for c in calls {
            let key = (
                c.context.who.clone(),
                c.context.file.clone(),
                c.context.hook.clone(),
            );
            self.handlers.entry(key).or_default().add(Cost {
                calls: 1,
                instructions: c.instructions,
                time: c.time,
            });
        }
    }
}

/// The costliest first: by instructions, then by time (the count is in steps of 256).
fn sorted<K: Ord>(costs: HashMap<K, Cost>) -> Vec<(K, Cost)> {
    let mut rows: Vec<(K, Cost)> = costs.into_iter().collect();
    rows.sort_by(|a, b| {
        b.1.instructions
            .cmp(&a.1.instructions)
            .then(b.1.time.cmp(&a.1.time))
            .then(a.0.cmp(&b.0))
    });
    rows
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut total = Cost::default();
        let mut scripts: HashMap<String, Cost> = HashMap::new();
        for ((_, file, _), cost) in &self.handlers {
            total.add(*cost);
            scripts.entry(file.clone()).or_default().add(*cost);
        }
        writeln!(
            f,
            "Profile: {} handler call(s) in {} resolution(s), {} instructions, {} in handlers",
            total.calls,
            self.runs,
            total.instructions,
            micros(total.time)
        )?;
        let share = |cost: &Cost| match total.instructions {
            0 => 0.0,
            all => cost.instructions as f64 * 100.0 / all as f64,
        };
        let header = |f: &mut std::fmt::Formatter<'_>, what: &str| {
            writeln!(
                f,
                "  {:>12}  {:>6}  {:>12}  {:>8}  {what}",
                "instructions", "share", "time", "calls"
            )
        };
        let row = |f: &mut std::fmt::Formatter<'_>, cost: &Cost, name: &str| {
            writeln!(
                f,
                "  {:>12}  {:>5.1}%  {:>12}  {:>8}  {}",
                cost.instructions,
                share(cost),
                micros(cost.time),
                cost.calls,
                crate::text::clean_line(name)
            )
        };
        writeln!(f, "By handler:")?;
        header(f, "handler")?;
        let handlers: HashMap<String, Cost> = self
            .handlers
            .iter()
            .map(|((who, file, hook), c)| (format!("{who} ({file}), {hook}"), *c))
            .collect();
        for (name, cost) in sorted(handlers) {
            row(f, &cost, &name)?;
        }
        writeln!(f, "By script:")?;
        header(f, "script")?;
        for (file, cost) in sorted(scripts) {
            row(f, &cost, &file)?;
        }
        Ok(())
    }
}

fn micros(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}
