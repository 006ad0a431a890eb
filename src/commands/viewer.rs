//! `rally replay LOG|SCENARIO -o FILE.html`: the replay viewer, one self-contained HTML page
//! that plays a recorded replay log (`rally run --record`) or a scenario register by register.

use super::Common;
use crate::error::{Error, Result};
use crate::html;
use crate::replay::ReplayLog;
use crate::scenario::Scenario;
use std::path::{Path, PathBuf};

pub fn replay(input: &Path, output: &Path, common: &Common) -> Result<()> {
    // A replay log is JSON; anything else is a scenario.
    let log = if input.extension().is_some_and(|e| e == "json") {
        Some(ReplayLog::read(input)?)
    } else {
        None
    };
    let scenario = match &log {
        Some(log) => log.scenario(input)?,
        None => Scenario::load(input)?,
    };
    let rules = common.rules(Some(&scenario.path), scenario.variants.clone())?;
    let mut game = scenario.start(rules)?;
    let frames = html::frames(&scenario, &mut game)?;
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
    let title = format!(
        "{} on {}",
        scenario
            .path
            .file_stem()
            .map_or("game".into(), |s| s.to_string_lossy()),
        game.board().name
    );
    let page = html::page(&game, &title, &scenario.description, &frames);
    std::fs::write(output, page).map_err(|e| Error::File {
        file: output.to_path_buf(),
        message: e.to_string(),
    })
}

/// The default page name: the input's, with `.html`.
pub fn default_output(input: &Path) -> PathBuf {
    PathBuf::from(input.file_stem().unwrap_or_default()).with_extension("html")
}
