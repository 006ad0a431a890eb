//! A save's past turns, written once: an append-only file beside the save (`x.save.json` →
//! `x.history.jsonl`, one turn's record of JSON a line). The save itself holds only the
//! turns not yet in the journal (the turn being played) and says how much of the journal is
//! its own (`Save::journal`: turns and bytes), so saving a stage costs the same at turn 300
//! as at turn 10.
//!
//! Crash-safe with the atomic save: the journal is appended and synced before the save that
//! counts the new lines is renamed into place, and a save reads only the bytes it counts, so
//! lines a crash left after them are ignored and cut off by the next append.

use super::TurnRecord;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The part of the journal a save continues: its first `turns` lines, `bytes` long.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counted {
    /// The journal's file name, in the save's folder.
    pub file: String,
    pub turns: u64,
    pub bytes: u64,
}

/// Appends a game's finished turns to its journal.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    /// The turns and bytes the save this journal continues counted (0 for a new game).
    base: (usize, u64),
    /// The end of each line appended since, in bytes from the start of the file.
    ends: Vec<u64>,
    /// Whether the file has been cut back to what is counted (once, before the first append).
    cut: bool,
    /// Bytes appended in all (the deterministic cost a test measures).
    pub written: u64,
}

/// `saves/x.save.json` → `saves/x.history.jsonl`.
pub fn path_for(save: &Path) -> PathBuf {
    super::save::beside(save, "history.jsonl")
}

impl Journal {
    /// The journal of the save at `save`, going on from `resumed` (the save the game was
    /// resumed from, if any). Only a save read from `save` itself continues its journal; a
    /// new game, a save written before journals (every turn in the save) or one read from
    /// elsewhere start it anew, with every finished turn.
    pub fn new(save: &Path, resumed: Option<&super::save::Save>) -> Journal {
        let path = path_for(save);
        let same_file = |s: &&super::save::Save| {
            s.origin.as_ref().is_some_and(|o| {
                o.path == save
                    || std::fs::canonicalize(&o.path).ok() == std::fs::canonicalize(save).ok()
            })
        };
        let counted = resumed
            .filter(same_file)
            .and_then(|s| s.journal.as_ref())
            .filter(|c| path.file_name() == Some(std::ffi::OsStr::new(&c.file)));
        Journal {
            base: counted.map_or((0, 0), |c| (c.turns as usize, c.bytes)),
            path,
            ends: Vec::new(),
            cut: false,
            written: 0,
        }
    }

    /// How many turns it holds.
    pub fn turns(&self) -> usize {
        self.base.0 + self.ends.len()
    }

    fn end(&self, turns: usize) -> u64 {
        match turns.checked_sub(self.base.0 + 1) {
            Some(i) => self.ends[i],
            None => self.base.1,
        }
    }

    /// Appends `more` (the turns after those it holds) and syncs the file.
    pub fn append(&mut self, more: &[TurnRecord]) -> Result<()> {
        if more.is_empty() && self.cut {
            return Ok(());
        }
        let err = |e: std::io::Error| Error::File {
            file: self.path.clone(),
            message: format!("cannot write the game's journal: {e}"),
        };
        if more.is_empty() && !self.path.exists() {
            // Nothing to write and nothing to cut off.
            self.cut = true;
            return Ok(());
        }
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(err)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.path)
            .map_err(err)?;
        let end = self.end(self.turns());
        if !self.cut {
            // Lines a crash left after the last save's, or a journal of another game.
            file.set_len(end).map_err(err)?;
            self.cut = true;
        }
        let mut text = Vec::new();
        let mut ends = Vec::with_capacity(more.len());
        for record in more {
            serde_json::to_writer(&mut text, record).expect("a turn's record serializes");
            text.push(b'\n');
            ends.push(end + text.len() as u64);
        }
        use std::io::Seek as _;
        file.seek(std::io::SeekFrom::Start(end)).map_err(err)?;
        file.write_all(&text).map_err(err)?;
        file.sync_data().map_err(err)?;
        self.ends.extend(ends);
        self.written += text.len() as u64;
        Ok(())
    }

    /// Forgets the turns after the first `turns` (the table's host rewound into them): the
    /// next append writes over them. `false`, forgetting nothing: some of them came with the
    /// save this journal continues, whose line ends it does not know.
    pub fn forget(&mut self, turns: usize) -> bool {
        let Some(kept) = turns.checked_sub(self.base.0) else {
            return false;
        };
        if kept < self.ends.len() {
            self.ends.truncate(kept);
            // The next append cuts the file back to what is counted.
            self.cut = false;
        }
        true
    }

    /// What a save holding the turns after the first `turns` counts (they must be appended).
    pub fn counted(&self, turns: usize) -> Counted {
        Counted {
            file: self
                .path
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
            turns: turns as u64,
            bytes: self.end(turns),
        }
    }
}

/// The turns `counted` says the journal beside `save` holds; an error names the save's
/// `/journal` (`at` makes it) and says what is wrong.
pub fn read(
    save: &Path,
    counted: &Counted,
    at: impl Fn(String) -> Error,
) -> Result<Vec<TurnRecord>> {
    let name = Path::new(&counted.file);
    if name.file_name() != Some(name.as_os_str()) {
        return Err(at(format!(
            "the journal `{}` must be a file name in the save's folder",
            counted.file
        )));
    }
    let path = save.with_file_name(name);
    if counted.bytes == 0 && counted.turns == 0 {
        // Saved before any turn was finished: there may be no journal yet.
        return Ok(Vec::new());
    }
    let bytes = std::fs::read(&path).map_err(|e| {
        at(format!(
            "cannot read the game's journal {}: {e} (the save's past turns are kept there)",
            path.display()
        ))
    })?;
    let Some(mine) = bytes.get(..counted.bytes as usize) else {
        return Err(at(format!(
            "the journal {} has {} bytes, but the save counts {}: it was cut short",
            path.display(),
            bytes.len(),
            counted.bytes
        )));
    };
    let mut turns = Vec::new();
    for (i, line) in mine.split_inclusive(|&b| b == b'\n').enumerate() {
        let record: TurnRecord = serde_json::from_slice(line).map_err(|e| {
            at(format!(
                "{}:{}: not a turn's record: {e}",
                path.display(),
                i + 1
            ))
        })?;
        turns.push(record);
    }
    if turns.len() as u64 != counted.turns || !mine.is_empty() && !mine.ends_with(b"\n") {
        return Err(at(format!(
            "the journal {} has {} turns in the save's {} bytes, but the save counts {}",
            path.display(),
            turns.len(),
            counted.bytes,
            counted.turns
        )));
    }
    Ok(turns)
}
