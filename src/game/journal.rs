//! A save's past turns, written once: an append-only file beside the save (`x.save.json` →
//! `x.history.jsonl`, one turn's record of JSON a line). The save itself holds only the
//! turns not yet in the journal (the turn being played) and says how much of the journal is
//! its own (`Save::journal`: turns and bytes), so saving a stage costs the same at turn 300
//! as at turn 10.
//!
//! Crash-safe with the atomic save: the journal is appended and synced before the save that
//! counts the new lines is renamed into place, and a save reads only the bytes it counts, so
//! lines a crash left after them are ignored and cut off by the next append.
//!
//! The same append-only file of JSON lines keeps what else a save would otherwise copy in
//! whole at every stage: the table's turn log (`table::thread`, `x.log.jsonl`).

use super::TurnRecord;
use crate::error::{Error, Result};
use serde::de::DeserializeOwned;
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

/// Appends records (a game's finished turns, a table's log) to a journal, a line each.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    /// The lines and bytes the save this journal continues counted (0 for a new game).
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
        let counted = resumed
            .filter(|s| continues(save, s))
            .and_then(|s| s.journal.as_ref())
            .filter(|c| path.file_name() == Some(std::ffi::OsStr::new(&c.file)));
        Journal::at(path, counted.map(|c| (c.turns as usize, c.bytes)))
    }

    /// The journal at `path`, going on after the first `lines` lines, `bytes` long, that a
    /// save counted (`None`: a new one).
    pub fn at(path: PathBuf, counted: Option<(usize, u64)>) -> Journal {
        Journal {
            base: counted.unwrap_or((0, 0)),
            path,
            ends: Vec::new(),
            cut: false,
            written: 0,
        }
    }

    /// Its file's name, as a save names it (in the save's folder).
    pub fn file_name(&self) -> String {
        self.path
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned())
    }

    /// How many lines (turns) it holds.
    pub fn turns(&self) -> usize {
        self.base.0 + self.ends.len()
    }

    /// The bytes its first `lines` lines take.
    pub fn end(&self, lines: usize) -> u64 {
        match lines.checked_sub(self.base.0 + 1) {
            Some(i) => self.ends[i],
            None => self.base.1,
        }
    }

    /// Appends `more` (the records after those it holds), a line each, and syncs the file.
    pub fn append<T: Serialize>(&mut self, more: &[T]) -> Result<()> {
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
            serde_json::to_writer(&mut text, record).expect("a journal's record serializes");
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
            file: self.file_name(),
            turns: turns as u64,
            bytes: self.end(turns),
        }
    }
}

/// Whether a game saved at `save` goes on from `resumed`: only a save read from that same
/// file continues its journals (one read from elsewhere starts them anew, whole).
pub fn continues(save: &Path, resumed: &super::save::Save) -> bool {
    resumed.origin.as_ref().is_some_and(|o| {
        o.path == save || std::fs::canonicalize(&o.path).ok() == std::fs::canonicalize(save).ok()
    })
}

/// The turns `counted` says the journal beside `save` holds; an error names the save's
/// `/journal` (`at` makes it) and says what is wrong.
pub fn read(
    save: &Path,
    counted: &Counted,
    at: impl Fn(String) -> Error,
) -> Result<Vec<TurnRecord>> {
    let lines = Lines {
        file: &counted.file,
        count: counted.turns,
        bytes: counted.bytes,
        record: "a turn's record",
        records: "turns",
    };
    read_lines(save, &lines, at)
}

/// What a save counts of one of its journals, and what its lines are called in errors.
pub struct Lines<'a> {
    /// The journal's file name, in the save's folder.
    pub file: &'a str,
    pub count: u64,
    pub bytes: u64,
    /// One line, as an error names it ("a turn's record").
    pub record: &'a str,
    /// The lines, as an error counts them ("turns").
    pub records: &'a str,
}

/// The first `lines.count` records of the journal `lines.file` beside `save`; an error says
/// what is wrong (`at` makes it, naming the part of the save that counts them).
pub fn read_lines<T: DeserializeOwned>(
    save: &Path,
    lines: &Lines,
    at: impl Fn(String) -> Error,
) -> Result<Vec<T>> {
    let name = Path::new(lines.file);
    if name.file_name() != Some(name.as_os_str()) {
        return Err(at(format!(
            "the journal `{}` must be a file name in the save's folder",
            lines.file
        )));
    }
    let path = save.with_file_name(name);
    if lines.bytes == 0 && lines.count == 0 {
        // Saved before anything was journaled: there may be no journal yet.
        return Ok(Vec::new());
    }
    let bytes = std::fs::read(&path).map_err(|e| {
        at(format!(
            "cannot read the game's journal {}: {e} (the save's past {} are kept there)",
            path.display(),
            lines.records
        ))
    })?;
    let Some(mine) = bytes.get(..lines.bytes as usize) else {
        return Err(at(format!(
            "the journal {} has {} bytes, but the save counts {}: it was cut short",
            path.display(),
            bytes.len(),
            lines.bytes
        )));
    };
    let mut records = Vec::new();
    for (i, line) in mine.split_inclusive(|&b| b == b'\n').enumerate() {
        let record: T = serde_json::from_slice(line).map_err(|e| {
            at(format!(
                "{}:{}: not {}: {e}",
                path.display(),
                i + 1,
                lines.record
            ))
        })?;
        records.push(record);
    }
    if records.len() as u64 != lines.count || !mine.is_empty() && !mine.ends_with(b"\n") {
        return Err(at(format!(
            "the journal {} has {} {} in the save's {} bytes, but the save counts {}",
            path.display(),
            records.len(),
            lines.records,
            lines.bytes,
            lines.count
        )));
    }
    Ok(records)
}
