//! How commands talk to the person at the terminal, the same way everywhere (ripgrep and
//! cargo are the model):
//! - **Colour** is decided once, by `--color auto|always|never` (anstream's global choice):
//!   `auto` colours only a terminal and honours `NO_COLOR` and `CLICOLOR_FORCE`. Text is
//!   styled with anstyle and printed through anstream, which strips the codes wherever
//!   colour is off, so no command writes an escape code by hand.
//! - **Chatter** (what a command is doing, notes, where it wrote a file) goes to stderr
//!   through [`note`], which `-q` silences; results and errors are never chatter.
//! - **Files** a command makes go through [`write_file`]: never over one of its inputs,
//!   whole or not at all, and said so.

use crate::error::Result;
use anstyle::{AnsiColor, Style};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// `--color` as given, looked for before parsing so that `--help` and usage errors obey it.
pub fn color_arg() -> clap::ColorChoice {
    let args: Vec<String> = std::env::args().collect();
    let value = args
        .iter()
        .enumerate()
        .find_map(|(i, a)| match a.strip_prefix("--color=") {
            Some(v) => Some(v.to_string()),
            None if a == "--color" => args.get(i + 1).cloned(),
            None => None,
        });
    match value.as_deref() {
        Some("always") => clap::ColorChoice::Always,
        Some("never") => clap::ColorChoice::Never,
        _ => clap::ColorChoice::Auto,
    }
}

/// `--color`: whether anything rally prints is coloured.
pub fn set_color(choice: clap::ColorChoice) {
    match choice {
        clap::ColorChoice::Always => anstream::ColorChoice::Always,
        clap::ColorChoice::Never => anstream::ColorChoice::Never,
        clap::ColorChoice::Auto => anstream::ColorChoice::Auto,
    }
    .write_global();
}

/// `-q`: no chatter from any command.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

pub fn is_quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Chatter on stderr, unless `-q`.
pub fn note(text: impl std::fmt::Display) {
    if !is_quiet() {
        anstream::eprintln!("{text}");
    }
}

/// Chatter said once per process however often it comes up (what a layer replaces, said
/// by every load of the rules), unless `-q`.
pub fn note_once(text: &str) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !said.iter().any(|s| s == text) {
        said.push(text.to_string());
        note(format!("note: {text}"));
    }
}

/// Writes a file the command made (a picture, a page, a log, a tally): refused if it would
/// replace one of the command's inputs (`files::check_output`), written whole
/// (`files::write_atomic`), then `wrote FILE` unless `-q`.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::files::check_output(path)?;
    crate::files::write_atomic(path, bytes)?;
    note(format!("wrote {}", path.display()));
    Ok(())
}

/// Whether text printed to standard output is coloured (the `--color` choice applied to
/// it), for output that is built differently in colour, such as `rally play`'s board.
pub fn stdout_colour() -> bool {
    anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
}

/// Whether standard error is coloured (log lines).
pub fn stderr_colour() -> bool {
    anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never
}

pub const PASS: Style = AnsiColor::Green.on_default().bold();
pub const FAIL: Style = AnsiColor::Red.on_default().bold();
pub const WARN: Style = AnsiColor::Yellow.on_default().bold();
pub const HEADER: Style = Style::new().bold().underline();

/// `text` in `style`, for printing through anstream (which strips it when colour is off).
pub fn paint(style: Style, text: impl std::fmt::Display) -> String {
    format!("{}{text}{}", style.render(), style.render_reset())
}

/// A progress bar on stderr, counting `unit`, only when stderr is a terminal and not `-q`.
pub fn progress_bar(label: &str, total: u64, unit: &str) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::io::IsTerminal;
    if is_quiet() || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    let template = format!("{{prefix}} [{{bar:30}}] {{pos}}/{{len}} {unit}, {{eta}} left");
    bar.set_style(
        ProgressStyle::with_template(&template)
            .expect("the template is valid")
            .progress_chars("#>-"),
    );
    bar.set_prefix(label.to_string());
    bar
}

/// The `version` key of every `--json` output (docs/formats.md): raised when a format changes
/// in a way a reader would notice (a key removed or its meaning changed); new keys keep it.
pub const JSON_VERSION: u32 = 1;

/// Prints an error to stderr with the source line it points at (`crate::snippet`).
pub fn print_error(e: &crate::error::Error) {
    // Messages quote scripts and files: their control characters are shown, not sent.
    anstream::eprintln!(
        "{} {}",
        paint(FAIL, "error:"),
        crate::text::clean(&e.to_string())
    );
    if let Some(snippet) = crate::snippet::of(e, true) {
        anstream::eprintln!("{snippet}");
    }
}
