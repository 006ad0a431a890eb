//! `rally replay LOG|SCENARIO|GAME_REPLAY -o FILE.html`: the replay viewer, one self-contained
//! HTML page that plays a recorded replay log (`rally run --record`) or a scenario register by
//! register, or a whole game (the replay or save of `rally play`) stage by stage.

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::formats::replay::ReplayLog;
use crate::formats::scenario::Scenario;
use crate::game::save::GameRecord;
use crate::game::Setup;
use crate::pictures::html;
use crate::script::RuleFolders;
use crate::state::State;
use std::path::{Path, PathBuf};

/// Write a self-contained HTML page that plays a replay log, a scenario or a whole game card by card and step by step
#[derive(clap::Args)]
pub struct Args {
    /// A replay log (.json, from `rally run --record`), a scenario (.toml), or a game's replay or save (.json, from `rally play`)
    file: PathBuf,
    /// The page [default: the input's name with .html]
    #[arg(short, long, value_name = "FILE.html")]
    output: Option<PathBuf>,
}

impl Args {
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        let output = self
            .output
            .clone()
            .unwrap_or_else(|| default_output(&self.file));
        replay(&self.file, &output, common).map(|()| true)
    }
}

/// Writes the page for `input` (a replay log, a scenario, a game's replay or save) to `output`.
pub fn replay(input: &Path, output: &Path, common: &RuleFolders) -> Result<()> {
    // A replay log, a game's replay or a save is JSON; anything else is a scenario.
    let log = if input.extension().is_some_and(|e| e == "json") {
        match GameRecord::read(input)? {
            Some(record) => return game(input, output, common, record),
            None => Some(ReplayLog::read(input)?),
        }
    } else {
        None
    };
    let scenario = match &log {
        Some(log) => log.scenario(input)?,
        None => Scenario::load(input)?,
    };
    let rules = common.rules(Some(&scenario.path), scenario.variants.clone())?;
    let mut engine = scenario.start(rules)?;
    let frames = html::frames(&scenario, &mut engine)?;
    if let (Some(log), Some(last)) = (&log, frames.last()) {
        // The viewer shows the game as the rules on disk resolve it now; say so if that is
        // not what was recorded (`rally run --replay LOG` shows how it differs).
        // Compared as serialized, as the log stores them (programs are not part of it).
        let as_json = |r: &[crate::state::Robot]| serde_json::to_value(r).ok();
        if as_json(&last.robots) != as_json(&log.result.robots) {
            tracing::warn!(
                "{}: the rules now resolve this game differently from when it was recorded; the page shows it as resolved now",
                input.display()
            );
        }
    }
    let title = page_title(&scenario.path, &engine);
    let page = html::page(&engine, &title, &scenario.description, &frames);
    write(output, page)
}

fn write(output: &Path, page: String) -> Result<()> {
    super::output::write_file(output, page.as_bytes())
}

/// The page for a whole game: its recorded snapshots on the game file's board.
fn game(input: &Path, output: &Path, common: &RuleFolders, record: GameRecord) -> Result<()> {
    let frames = html::game_frames(&record.turns);
    if frames.is_empty() {
        return Err(Error::File {
            file: input.to_path_buf(),
            message: "the game has no robot snapshots to show: no turn was played, or it was \
                      recorded by an older rally (play it again to view it)"
                .into(),
        });
    }
    let setup = Setup::load(&record.game)?;
    let rules = common.rules(Some(&setup.path), setup.choices(&record.variants))?;
    // Only the board and the rules are drawn from the game; the robots come from the frames.
    let engine = Engine::new(
        setup.layout.clone(),
        State::new(Vec::new(), setup.seed),
        rules,
    )?;
    let title = page_title(&setup.path, &engine);
    let end = match &record.outcome {
        Some(outcome) => outcome.text(),
        None => "The game is not over.".into(),
    };
    let description = if setup.description.is_empty() {
        end
    } else {
        format!("{} {end}", setup.description.trim_end())
    };
    write(output, html::page(&engine, &title, &description, &frames))
}

/// "FILE on BOARD", the page's heading.
fn page_title(file: &Path, engine: &Engine) -> String {
    let stem = file
        .file_stem()
        .map_or("game".into(), |s| s.to_string_lossy());
    format!("{stem} on {}", engine.board().name)
}

/// The default page name: the input's, with `.html`.
fn default_output(input: &Path) -> PathBuf {
    PathBuf::from(input.file_stem().unwrap_or_default()).with_extension("html")
}
