//! A study's tallies as a file: what `rally sim --json` / `--out FILE` writes and
//! `rally sim merge` reads (docs/simulations.md).
//!
//! A study is a game file played N times per column (the file's variants, and with
//! `--compare` a second set). A shard plays a range of the N games; its file says what was
//! played (the game file's hash, with its board files; the hash of every rule file, scripts
//! and variants; the engine's version; the columns and the range) and holds the raw tallies,
//! which add up exactly. Merging refuses files that do not belong to the same study, or
//! whose ranges overlap or leave a gap, and files that were cut short or edited: each file
//! carries a checksum of its own contents.

use super::columns::Settings;
use super::tally::{self, Row, Tally};
use super::Setup;
use crate::error::{Error, Result};
use crate::files::Source;
use crate::script::RuleSet;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What `format` says in every tally file.
pub const FORMAT: &str = "rally sim";
/// The version of the tally file's format.
pub const VERSION: u32 = 1;

/// The tallies of a range of a study's games, and what they were played with.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Study {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// The version of rally that played the games.
    pub engine: String,
    pub game: GameFile,
    pub rules: Rules,
    /// Games per column in the whole study.
    pub games: u64,
    /// The games of the study played here: indices `range[0]` up to (not including) `range[1]`.
    pub range: [u64; 2],
    pub columns: Vec<Column>,
    /// The summary printed from the tallies (derived: `rally sim merge` computes it again).
    pub summary: Vec<Row>,
    /// SHA-256 of the file's JSON without this key (keys sorted, no spaces).
    pub checksum: String,
}

/// The game file, as named on the command line, the SHA-256 of its bytes and its boards',
/// and who plays: each robot's bot strength (the file's, or `--strength`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameFile {
    pub file: String,
    pub sha256: String,
    pub bots: BTreeMap<String, String>,
    /// Each robot's starting dock (for the seat rows).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub docks: BTreeMap<String, u32>,
}

/// Every rule file the columns loaded (`scripts/...`, `variants/...`) with its SHA-256, and
/// the SHA-256 of that list.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    pub sha256: String,
    pub files: BTreeMap<String, String>,
    /// What the table calls each script event its declarations give a sentence for: the
    /// sentence as a phrase (`slid`: "a robot slides … on the oil"), from the first column
    /// that declares it. Older files have none (the rows are named by the events' names).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub events: BTreeMap<String, String>,
}

/// One column of the study: a set of variants and what its games added up to.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Column {
    pub name: String,
    /// The variants switched on (the game file's and those added on the command line).
    pub variants: Vec<String>,
    /// The parameters set for them, by the game file or the column (defaults not shown).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: Settings,
    pub tally: Tally,
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

impl GameFile {
    /// The game file and every board file it reads, hashed together in that order.
    pub fn of(setup: &Setup, shown: &Path) -> Result<GameFile> {
        let mut hasher = Sha256::new();
        for file in std::iter::once(&setup.path).chain(&setup.layout.files) {
            let bytes = crate::files::read_bytes(file)?;
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
        }
        Ok(GameFile {
            file: shown.display().to_string(),
            sha256: hex(&hasher.finalize()),
            bots: setup
                .seats
                .iter()
                .map(|s| (s.name.clone(), s.strength.name().to_string()))
                .collect(),
            docks: setup
                .seats
                .iter()
                .map(|s| (s.name.clone(), s.dock))
                .collect(),
        })
    }
}

impl Rules {
    /// The files a rule set was read from, each with its hash ([`Rules::add`]).
    pub fn of(rules: &RuleSet) -> Result<Rules> {
        let mut out = Rules::default();
        out.add(rules)?;
        Ok(out)
    }

    /// What changed from `self` to `now`, file by file (`scripts/elements/gear.lua changed`,
    /// `... is new`, `... is gone`); empty when the rules are the same.
    pub fn changes(&self, now: &Rules) -> Vec<String> {
        let mut out = Vec::new();
        for (name, hash) in &now.files {
            match self.files.get(name) {
                None => out.push(format!("{name} is new")),
                Some(old) if old != hash => out.push(format!("{name} changed")),
                Some(_) => {}
            }
        }
        for name in self.files.keys().filter(|n| !now.files.contains_key(*n)) {
            out.push(format!("{name} is gone"));
        }
        out
    }

    /// Adds the files a rule set was read from, in every layer (manifests, each variant's
    /// `variant.toml`, scripts), named by their place in their layer
    /// (`script::Layer::file_name`), so that the same rules unpacked in other folders on
    /// other machines have the same names.
    pub fn add(&mut self, rules: &RuleSet) -> Result<()> {
        for file in &rules.files {
            self.files.insert(
                file.name.clone(),
                sha256(&crate::files::read_bytes(&file.path)?),
            );
        }
        for (event, sentence) in rules.sentences.iter() {
            self.events
                .entry(event.clone())
                .or_insert_with(|| sentence.phrase());
        }
        self.sha256 = sha256(
            serde_json::to_string(&self.files)
                .expect("names and hashes serialize")
                .as_bytes(),
        );
        Ok(())
    }
}

/// The JSON the checksum covers: the document without its `checksum`, keys sorted, compact.
fn checksum_of(document: &serde_json::Value) -> String {
    let mut body = document.clone();
    if let Some(map) = body.as_object_mut() {
        map.remove("checksum");
    }
    sha256(
        serde_json::to_string(&body)
            .expect("JSON values serialize")
            .as_bytes(),
    )
}

impl Study {
    /// A study of `columns` over games `range` of `games`, with its summary and checksum.
    pub fn new(
        game: GameFile,
        rules: Rules,
        games: u64,
        range: [u64; 2],
        columns: Vec<Column>,
    ) -> Study {
        let mut study = Study {
            format: FORMAT.into(),
            version: VERSION,
            engine: env!("CARGO_PKG_VERSION").into(),
            game,
            rules,
            games,
            range,
            columns,
            summary: Vec::new(),
            checksum: String::new(),
        };
        study.seal();
        study
    }

    /// Computes the summary and the checksum from the rest.
    fn seal(&mut self) {
        let tallies: Vec<&Tally> = self.columns.iter().map(|c| &c.tally).collect();
        self.summary = tally::rows(&tallies, &self.game.docks, &self.rules.events);
        // Over the JSON as a reader will parse it: serde_json may read a float back a unit
        // in the last place off, and the checksum must match what `read` sees.
        let text = serde_json::to_string(&*self).expect("a study serializes");
        let parsed: serde_json::Value = serde_json::from_str(&text).expect("our own JSON parses");
        self.checksum = checksum_of(&parsed);
    }

    /// The names of the events scripts logged in any column, sorted.
    pub fn event_names(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .columns
            .iter()
            .flat_map(|c| c.tally.events.keys().cloned())
            .collect();
        all.sort();
        all.dedup();
        all
    }

    pub fn names(&self) -> Vec<String> {
        self.columns.iter().map(|c| c.name.clone()).collect()
    }

    /// The summary as a table, as `rally sim` prints it; `metrics` as [`tally::shown`].
    pub fn table(&self, metrics: &[String]) -> String {
        tally::table(&self.names(), &self.summary, metrics)
    }

    pub fn csv(&self) -> String {
        tally::csv(&self.names(), &self.summary)
    }

    /// The file's JSON (pretty-printed, ending in a newline).
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a study serializes") + "\n"
    }

    /// Reads a tally file and checks that it is whole and unedited: complete JSON, this
    /// format and version, the checksum of its contents, counts that agree.
    pub fn read(path: &Path) -> Result<Study> {
        let what = "not a complete rally sim tally (`rally sim --json` or `--out`)";
        let source = Source::read(path)?;
        let document: serde_json::Value = source.parse_json(what)?;
        let refuse = |message: String| Error::File {
            file: path.to_path_buf(),
            message,
        };
        if document.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(refuse(format!("{what}: no `\"format\": \"{FORMAT}\"`")));
        }
        match document.get("version").and_then(|v| v.as_u64()) {
            Some(v) if v == VERSION as u64 => {}
            other => {
                return Err(refuse(format!(
                    "tally format version {}; this rally ({}) reads version {VERSION}",
                    other.map_or("missing".to_string(), |v| v.to_string()),
                    env!("CARGO_PKG_VERSION")
                )))
            }
        }
        let recorded = document.get("checksum").and_then(|c| c.as_str());
        if recorded != Some(checksum_of(&document).as_str()) {
            return Err(refuse(
                "its checksum does not match its contents: the file was edited or damaged after rally wrote it"
                    .into(),
            ));
        }
        let study: Study = serde_json::from_value(document)
            .map_err(|e| refuse(format!("{what}: {}", crate::error::json_message(&e))))?;
        let [first, end] = study.range;
        if first > end || end > study.games {
            return Err(refuse(format!(
                "range {first}..{end} is not within the study's {} games",
                study.games
            )));
        }
        for column in &study.columns {
            column
                .tally
                .check()
                .map_err(|m| refuse(format!("column `{}`: {m}", column.name)))?;
            if column.tally.games != end - first {
                return Err(refuse(format!(
                    "column `{}` has {} games, but the range {first}..{end} holds {}",
                    column.name,
                    column.tally.games,
                    end - first
                )));
            }
        }
        Ok(study)
    }

    /// Adds up the tallies of shards of one study. Refuses files from another game file,
    /// other rules, another engine version or other columns, and ranges that overlap or
    /// leave a gap; each refusal names the file and the reason.
    pub fn merge(shards: Vec<(PathBuf, Study)>) -> Result<Study> {
        let Some((first_path, first)) = shards.first() else {
            return Err(Error::Other("rally sim merge: no files given".into()));
        };
        let refuse = |path: &Path, message: String| Error::File {
            file: path.to_path_buf(),
            message,
        };
        let named = first_path.display();
        for (path, s) in &shards[1..] {
            if s.engine != first.engine {
                return Err(refuse(
                    path,
                    format!(
                        "played by rally {}, but {named} by rally {}: merge shards of one version",
                        s.engine, first.engine
                    ),
                ));
            }
            if s.game.sha256 != first.game.sha256 {
                return Err(refuse(
                    path,
                    format!(
                        "played from another game file than {named} (`{}` and `{}` differ, or a board they use)",
                        s.game.file, first.game.file
                    ),
                ));
            }
            if s.game.bots != first.game.bots {
                return Err(refuse(
                    path,
                    format!("played with other bots than {named} (--strength)"),
                ));
            }
            // The same files give the same sentences: `events` is what was read from them
            // (and absent from shards written before it was kept), so it is not compared.
            if (&s.rules.sha256, &s.rules.files) != (&first.rules.sha256, &first.rules.files) {
                return Err(refuse(
                    path,
                    format!(
                        "played with other rules than {named}: {}",
                        rule_differences(&first.rules, &s.rules)
                    ),
                ));
            }
            let columns = |s: &Study| -> Vec<(String, Vec<String>, Settings)> {
                s.columns
                    .iter()
                    .map(|c| (c.name.clone(), c.variants.clone(), c.settings.clone()))
                    .collect()
            };
            if columns(s) != columns(first) || s.games != first.games {
                return Err(refuse(
                    path,
                    format!(
                        "is a shard of another study than {named}: {} games of {} against {} games of {}",
                        s.games,
                        s.names().join(" and "),
                        first.games,
                        first.names().join(" and ")
                    ),
                ));
            }
        }
        let mut by_range: Vec<&(PathBuf, Study)> = shards.iter().collect();
        by_range.sort_by_key(|(_, s)| s.range);
        let mut covered = 0;
        let mut previous: Option<&Path> = None;
        for (path, s) in &by_range {
            let [start, end] = s.range;
            if start < covered {
                return Err(refuse(
                    path,
                    format!(
                        "games {start}..{end} overlap those of {} (the same shard twice?)",
                        previous.map_or(String::new(), |p| p.display().to_string())
                    ),
                ));
            }
            if start > covered {
                return Err(Error::Other(format!(
                    "rally sim merge: games {covered}..{start} of {} are in none of the files: a shard is missing",
                    first.games
                )));
            }
            covered = end;
            previous = Some(path);
        }
        if covered < first.games {
            return Err(Error::Other(format!(
                "rally sim merge: games {covered}..{} of {} are in none of the files: a shard is missing",
                first.games, first.games
            )));
        }
        let mut columns = first.columns.clone();
        for column in &mut columns {
            column.tally = Tally::default();
        }
        for (path, s) in &shards {
            for (mine, theirs) in columns.iter_mut().zip(&s.columns) {
                mine.tally
                    .merge(&theirs.tally)
                    .map_err(|m| refuse(path, m))?;
            }
        }
        let mut rules = first.rules.clone();
        for (_, s) in &shards {
            for (event, phrase) in &s.rules.events {
                rules
                    .events
                    .entry(event.clone())
                    .or_insert_with(|| phrase.clone());
            }
        }
        Ok(Study::new(
            first.game.clone(),
            rules,
            first.games,
            [0, first.games],
            columns,
        ))
    }
}

/// Which rule files differ between two studies, for a refusal.
fn rule_differences(a: &Rules, b: &Rules) -> String {
    let mut changed = Vec::new();
    for (name, hash) in &a.files {
        match b.files.get(name) {
            Some(other) if other == hash => {}
            Some(_) => changed.push(format!("{name} changed")),
            None => changed.push(format!("{name} not loaded")),
        }
    }
    for name in b.files.keys().filter(|n| !a.files.contains_key(*n)) {
        changed.push(format!("{name} only loaded here"));
    }
    changed.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(range: [u64; 2], engine: &str, columns: &[&str]) -> (PathBuf, Study) {
        let mut study = Study::new(
            GameFile {
                file: "g.toml".into(),
                sha256: "g".into(),
                bots: BTreeMap::new(),
                docks: BTreeMap::new(),
            },
            Rules::default(),
            10,
            range,
            columns
                .iter()
                .map(|name| Column {
                    name: name.to_string(),
                    variants: vec![],
                    settings: Settings::default(),
                    tally: Tally::default(),
                })
                .collect(),
        );
        study.engine = engine.into();
        (PathBuf::from(format!("{}.json", range[0])), study)
    }

    fn refusal(shards: Vec<(PathBuf, Study)>) -> String {
        Study::merge(shards).unwrap_err().to_string()
    }

    #[test]
    fn merge_refuses_other_versions_and_other_columns() {
        let message = refusal(vec![
            shard([0, 5], "0.1.0", &["a"]),
            shard([5, 10], "0.2.0", &["a"]),
        ]);
        assert_eq!(
            message,
            "5.json: played by rally 0.2.0, but 0.json by rally 0.1.0: merge shards of one version"
        );
        let message = refusal(vec![
            shard([0, 5], "1", &["a"]),
            shard([5, 10], "1", &["a", "b"]),
        ]);
        assert!(
            message.starts_with("5.json: is a shard of another study"),
            "{message}"
        );
        let merged = Study::merge(vec![
            shard([5, 10], "1", &["a"]),
            shard([0, 5], "1", &["a"]),
        ]);
        assert_eq!(merged.unwrap().range, [0, 10]);
    }

    /// A shard written before the sentences were kept has no `events`: it merges with one
    /// that has them (the same files give the same sentences), and the merge keeps them.
    #[test]
    fn merge_takes_a_shard_without_sentences_and_keeps_the_others() {
        let old = shard([0, 5], "1", &["a"]);
        let mut new = shard([5, 10], "1", &["a"]);
        new.1
            .rules
            .events
            .insert("stuck".into(), "a robot sticks".into());
        let merged = Study::merge(vec![old, new]).unwrap();
        assert_eq!(merged.rules.events["stuck"], "a robot sticks");
        let mut changed = shard([5, 10], "1", &["a"]);
        changed.1.rules.sha256 = "other".into();
        let message = refusal(vec![shard([0, 5], "1", &["a"]), changed]);
        assert!(message.contains("played with other rules"), "{message}");
    }
}
