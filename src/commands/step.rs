//! `rally step SCENARIO`: an interactive session that steps through a scenario one stage or
//! frame at a time and shows the state there. Every move re-runs the scenario from its start
//! to the moment, as `rally run --until` does (`Scenario::resolve_until`): going back is
//! running to an earlier moment, and `reload` is the same run under the rules on disk now.
//! A line editor with history on a terminal; plain lines otherwise (a pipe, a test).

use crate::engine::Engine;
use crate::error::Result;
use crate::formats::scenario::Scenario;
use crate::game::moment::{Moment, Move};
use crate::pictures::{diff, render, stopped};
use crate::script::RuleFolders;
use crate::state::{Resolution, State};
use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};

/// Step through a scenario interactively: next, register, turn, back, reload, show, vars
#[derive(clap::Args)]
pub struct Args {
    /// The scenario file (.toml)
    scenario: PathBuf,
}

const COMMANDS: [(&str, &str); 11] = [
    ("next", "one stage or frame on (n)"),
    (
        "register",
        "to the end of this register, else of the next (r)",
    ),
    ("turn", "to the end of this turn, else of the next (t)"),
    ("back", "back to where the last move started (b)"),
    (
        "reload",
        "the rules and scenario on disk now, run to the same moment; what changed",
    ),
    ("show", "show ROBOT: its line, program, hand and options"),
    ("vars", "vars ROBOT: its vars, one a line"),
    ("board", "the board with the robots"),
    ("events", "every event so far"),
    ("help", "this list"),
    ("quit", "end the session (q; end of input too)"),
];

impl Args {
    /// A scenario or rule set that does not load is an error (exit status 2) before the
    /// session starts; within it, errors are printed and the session goes on.
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        let mut session = Session::load(&self.scenario, common)?;
        println!(
            "Stepping through {}: {} (help lists the commands)",
            self.scenario.display(),
            session.position()
        );
        let mut input = Input::new();
        while let Some(line) = input.read(&format!("{}> ", session.name())) {
            let words: Vec<&str> = line.split_whitespace().collect();
            let Some((&command, rest)) = words.split_first() else {
                continue;
            };
            if matches!(command, "quit" | "q" | "exit") {
                break;
            }
            print!("{}", session.command(command, rest));
        }
        Ok(true)
    }
}

/// A scenario at a moment, and the moments it came through.
struct Session<'a> {
    path: PathBuf,
    common: &'a RuleFolders,
    scenario: Scenario,
    engine: Engine,
    /// The game as the scenario starts it, to run again from.
    start: State,
    /// `None`: the starting position, nothing resolved yet.
    at: Option<Moment>,
    /// Where each move started, the latest last (`back`).
    trail: Vec<Option<Moment>>,
}

/// How running to a moment went.
enum Outcome {
    Reached,
    /// The scenario ends before it: why, in words.
    Unreached(String),
    /// A script error: the state at the failure and the error, ready to print.
    Failed(String),
}

impl<'a> Session<'a> {
    fn load(path: &Path, common: &'a RuleFolders) -> Result<Session<'a>> {
        let scenario = Scenario::load(path)?;
        let rules = common.rules(Some(path), scenario.variants.clone())?;
        let engine = scenario.start(rules)?;
        let start = engine.state().clone();
        Ok(Session {
            path: path.to_path_buf(),
            common,
            scenario,
            engine,
            start,
            at: None,
            trail: Vec::new(),
        })
    }

    fn name(&self) -> String {
        self.at
            .map_or_else(|| "start".to_string(), |m| m.to_string())
    }

    fn position(&self) -> String {
        match self.at {
            Some(m) => format!("at {m} ({})", m.words()),
            None => "at the start, nothing resolved yet".to_string(),
        }
    }

    /// Runs one command and returns what it prints.
    fn command(&mut self, command: &str, rest: &[&str]) -> String {
        let robot = |s: &Session, f: fn(&crate::state::Robot) -> String| match rest {
            [name] => s.robot(name, f),
            _ => format!("{command} takes a robot's name: {command} ROBOT\n"),
        };
        match command {
            "next" | "n" => self.go(Move::Next),
            "register" | "r" => self.go(Move::Register),
            "turn" | "t" => self.go(Move::Turn),
            "back" | "b" => self.back(),
            "reload" => self.reload(),
            "show" | "s" => robot(self, show),
            "vars" | "v" => robot(self, vars),
            "board" => self.board(),
            "events" | "e" => self.events(0),
            "help" | "h" | "?" => help(),
            other => format!(
                "unknown command `{}`{}; the commands are {}\n",
                other.escape_debug(),
                crate::error::suggest(other, COMMANDS.iter().map(|(c, _)| *c)),
                COMMANDS.map(|(c, _)| c).join(", ")
            ),
        }
    }

    /// Runs the scenario from its start to `at`.
    fn reach(&mut self, at: Option<Moment>) -> Outcome {
        self.scenario.rewind(&mut self.engine, self.start.clone());
        let Some(m) = at else {
            return Outcome::Reached;
        };
        match self.scenario.resolve_until(&mut self.engine, Some(m)) {
            Ok(_) => Outcome::Reached,
            Err(e) => match self.engine.take_rolled_back() {
                None if matches!(e, crate::error::Error::Other(_)) => {
                    Outcome::Unreached(e.to_string())
                }
                rolled => {
                    let clock =
                        render::Clock::of_run(self.scenario.turns, &self.engine.state().events);
                    let picture = stopped::failure(&self.engine, rolled.as_ref(), clock);
                    Outcome::Failed(format!("{picture}error: {e}\n"))
                }
            },
        }
    }

    /// Moves to the nearest moment of `step` that the scenario reaches.
    fn go(&mut self, step: Move) -> String {
        let seen = self.engine.state().events.len();
        for m in Moment::candidates(self.at, step) {
            match self.reach(Some(m)) {
                Outcome::Reached => {
                    self.trail.push(self.at);
                    self.at = Some(m);
                    return self.arrived(seen);
                }
                Outcome::Unreached(_) => continue,
                Outcome::Failed(failure) => {
                    let _ = self.reach(self.at);
                    return format!("{failure}still {}\n", self.position());
                }
            }
        }
        let _ = self.reach(self.at);
        format!(
            "the scenario ends {}: nothing comes after it (back goes back)\n",
            self.position()
        )
    }

    fn back(&mut self) -> String {
        let Some(previous) = self.trail.pop() else {
            return format!("{}: there is nothing to go back to\n", self.position());
        };
        match self.reach(previous) {
            Outcome::Reached => {
                self.at = previous;
                self.arrived(usize::MAX)
            }
            // The rules changed (`reload`) since it was reached.
            Outcome::Unreached(why) | Outcome::Failed(why) => {
                let _ = self.reach(self.at);
                format!("{why}still {}\n", self.position())
            }
        }
    }

    /// Where the session stands now: the moment, the events since `seen` (none when it went
    /// back), the robots.
    fn arrived(&self, seen: usize) -> String {
        let mut out = format!("{}\n", self.position());
        out.push_str(&self.events(seen));
        out.push_str(&render::robots(&self.engine.state()));
        out
    }

    /// The rules and scenario as saved now, run to the same moment: what changed there.
    fn reload(&mut self) -> String {
        let before = Resolution::of(&self.engine.state());
        let fresh = match Session::load(&self.path, self.common) {
            Ok(s) => s,
            Err(e) => return format!("error: {e}\nthe rules and scenario loaded before stay\n"),
        };
        let (at, trail) = (self.at, std::mem::take(&mut self.trail));
        *self = Session { at, trail, ..fresh };
        match self.reach(at) {
            Outcome::Reached => {
                let after = Resolution::of(&self.engine.state());
                let changes = diff::compare(&before, &after);
                let what = match changes.is_empty() {
                    true => "nothing changed here\n".to_string(),
                    false => changes.to_string(),
                };
                format!("reloaded, {}\n{what}", self.position())
            }
            // The new rules stay, and the moment: a fix and another reload run to it again.
            Outcome::Unreached(why) => format!("reloaded; {why}\nstill aiming {}\n", self.position()),
            Outcome::Failed(failure) => format!(
                "reloaded; the run to {} failed (board, show and vars show the failure):\n{failure}",
                self.name()
            ),
        }
    }

    fn board(&self) -> String {
        let board = self.engine.board();
        let glyphs = render::glyphs(self.engine.rules(), &board);
        render::board(&board, &glyphs, &self.engine.state())
    }

    /// The events from the `from`th on, in words (none when `from` is past them).
    fn events(&self, from: usize) -> String {
        let state = self.engine.state();
        let clock = render::Clock::of_run(self.scenario.turns, &state.events);
        let sentences = &self.engine.rules().sentences;
        let mut out = String::new();
        for e in state.events.iter().skip(from) {
            let _ = writeln!(out, "  {}", render::told(e, sentences, clock));
        }
        if from == 0 && out.is_empty() {
            out.push_str("  (no events yet)\n");
        }
        out
    }

    fn robot(&self, name: &str, what: fn(&crate::state::Robot) -> String) -> String {
        let state = self.engine.state();
        match state
            .robots
            .iter()
            .find(|r| r.name.eq_ignore_ascii_case(name))
        {
            Some(r) => what(r),
            None => format!(
                "there is no robot `{}`{}; the robots are {}\n",
                name.escape_debug(),
                crate::error::suggest(name, state.robots.iter().map(|r| &*r.name)),
                state
                    .robots
                    .iter()
                    .map(|r| &*r.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// `show ROBOT`: its line, then its program, hand and options.
fn show(r: &crate::state::Robot) -> String {
    let mut out = render::robot(r);
    let cards = |cards: &mut dyn Iterator<Item = String>| {
        let list: Vec<String> = cards.collect();
        match list.is_empty() {
            true => "none".to_string(),
            false => list.join(", "),
        }
    };
    let program = cards(&mut r.program.iter().map(|c| match c {
        Some(c) => c.to_string(),
        None => "-".to_string(),
    }));
    let hand = cards(&mut r.hand.iter().map(|c| c.to_string()));
    let options = cards(&mut r.options.iter().map(|o| match o.uses_left {
        Some(n) => format!("{} ({n} left)", o.name),
        None => o.name.clone(),
    }));
    let _ = writeln!(
        out,
        "  program  {program}\n  hand     {hand}\n  options  {options}"
    );
    crate::text::clean(&out).into_owned()
}

/// `vars ROBOT`: one var a line, as JSON.
fn vars(r: &crate::state::Robot) -> String {
    if r.vars.is_empty() {
        return format!("  {} has no vars\n", r.name);
    }
    let mut out = String::new();
    for (key, value) in r.vars.iter() {
        let _ = writeln!(out, "  {key} = {value}");
    }
    crate::text::clean(&out).into_owned()
}

fn help() -> String {
    let mut out = String::new();
    for (command, what) in COMMANDS {
        let _ = writeln!(out, "  {command:<9} {what}");
    }
    out
}

/// Lines typed at a terminal (a line editor with history) or read from a pipe; a piped line
/// is echoed after the prompt so the transcript reads as a session.
enum Input {
    Editor(Box<rustyline::DefaultEditor>),
    Lines(std::io::StdinLock<'static>),
}

impl Input {
    fn new() -> Input {
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            if let Ok(editor) = rustyline::DefaultEditor::new() {
                return Input::Editor(Box::new(editor));
            }
        }
        Input::Lines(stdin.lock())
    }

    /// The next line; `None` at the end of input.
    fn read(&mut self, prompt: &str) -> Option<String> {
        match self {
            Input::Editor(editor) => loop {
                match editor.readline(prompt) {
                    Ok(line) => {
                        let _ = editor.add_history_entry(line.as_str());
                        return Some(line);
                    }
                    // Ctrl-C drops the line, as a shell does.
                    Err(rustyline::error::ReadlineError::Interrupted) => continue,
                    Err(_) => return None,
                }
            },
            Input::Lines(lines) => {
                let mut line = String::new();
                match lines.read_line(&mut line) {
                    Ok(0) | Err(_) => None,
                    Ok(_) => {
                        let line = line.trim_end().to_string();
                        println!("{prompt}{line}");
                        Some(line)
                    }
                }
            }
        }
    }
}
