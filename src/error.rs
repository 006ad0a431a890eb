//! One error type for everything a user can get wrong, always pointing at a place they can
//! open: `file:line:column: message`. Lua errors already carry `file.lua:line:` in their text.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A problem at a known place in a file.
    #[error("{}:{line}:{column}: {message}", file.display())]
    At {
        file: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// A problem with a whole file (missing, unreadable).
    #[error("{}: {message}", file.display())]
    File { file: PathBuf, message: String },
    /// A script failed while the rules ran; the message names the script file and line.
    #[error("{0}")]
    Script(String),
    /// Anything else, already phrased for a person.
    #[error("{0}")]
    Other(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A file's text kept around so that byte offsets (from TOML spans) become line:column.
#[derive(Clone, Debug)]
pub struct Source {
    pub path: PathBuf,
    pub text: String,
}

impl Source {
    /// Reads a file through [`crate::files`]: regular files only, of bounded size.
    pub fn read(path: &Path) -> Result<Source> {
        let text = crate::files::read_text(path)?;
        Ok(Source {
            path: path.to_path_buf(),
            text,
        })
    }

    /// The 1-based line and column of a byte offset.
    pub fn locate(&self, offset: usize) -> (usize, usize) {
        Lines::of(&self.text).locate(offset.min(self.text.len()))
    }

    pub fn error_at(&self, offset: usize, message: impl Into<String>) -> Error {
        let (line, column) = self.locate(offset);
        Error::At {
            file: self.path.clone(),
            line,
            column,
            message: message.into(),
        }
    }

    /// Parses JSON (saves, replays), turning an error into `file:line:column: {what}: message`.
    pub fn parse_json<T: serde::de::DeserializeOwned>(&self, what: &str) -> Result<T> {
        serde_json::from_str(&self.text).map_err(|e| Error::At {
            file: self.path.clone(),
            line: e.line(),
            column: e.column(),
            message: format!("{what}: {e}"),
        })
    }

    /// An error at the JSON value `pointer` names (RFC 6901: `/state/robots/0/at`), or at
    /// the start of the file if there is none: for checks made after parsing (saves).
    pub fn json_error_at(&self, pointer: &str, message: impl Into<String>) -> Error {
        let offset = json_offset(&self.text, pointer).unwrap_or(0);
        self.error_at(offset, message)
    }

    /// Parses TOML, turning a syntax or schema error into `file:line:column: message`.
    pub fn parse_toml<T: serde::de::DeserializeOwned>(&self) -> Result<T> {
        toml::from_str(&self.text).map_err(|e| {
            let offset = e.span().map_or(0, |s| s.start);
            self.error_at(offset, e.message().trim().to_string())
        })
    }
}

/// A scanner over JSON text (which must be valid: it was parsed already), because
/// serde_json keeps no positions: where a value starts, and where each item of an array does.
struct JsonScan<'a> {
    text: &'a str,
    bytes: &'a [u8],
}

impl<'a> JsonScan<'a> {
    fn new(text: &'a str) -> JsonScan<'a> {
        JsonScan {
            text,
            bytes: text.as_bytes(),
        }
    }

    fn skip_ws(&self, mut i: usize) -> usize {
        while self.bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    }

    /// The end of the string starting at `i` (on its opening quote).
    fn string_end(&self, mut i: usize) -> usize {
        i += 1;
        while let Some(&b) = self.bytes.get(i) {
            match b {
                b'\\' => i += 2,
                b'"' => return i + 1,
                _ => i += 1,
            }
        }
        i
    }

    /// The end of the value starting at `i`.
    fn value_end(&self, mut i: usize) -> usize {
        let mut depth = 0usize;
        loop {
            match self.bytes.get(i) {
                None => return i,
                Some(b'"') => i = self.string_end(i),
                Some(b'[' | b'{') => {
                    depth += 1;
                    i += 1
                }
                Some(b']' | b'}') if depth == 0 => return i,
                Some(b']' | b'}') => {
                    depth -= 1;
                    i += 1;
                    if depth == 0 {
                        return i;
                    }
                }
                Some(b',') if depth == 0 => return i,
                Some(_) => i += 1,
            }
        }
    }

    /// The members of the object or array starting at `at`: each key (`None` in an array)
    /// and where its value starts.
    fn members(&self, at: usize) -> Vec<(Option<String>, usize)> {
        let object = match self.bytes.get(at) {
            Some(b'{') => true,
            Some(b'[') => false,
            _ => return Vec::new(),
        };
        let mut found = Vec::new();
        let mut i = self.skip_ws(at + 1);
        while !matches!(self.bytes.get(i), None | Some(b'}' | b']')) {
            let key = if object {
                let end = self.string_end(i);
                let key = self
                    .text
                    .get(i..end)
                    .and_then(|k| serde_json::from_str(k).ok());
                i = self.skip_ws(self.skip_ws(end) + 1); // past the colon
                key
            } else {
                None
            };
            found.push((key, i));
            i = self.skip_ws(self.value_end(i));
            if self.bytes.get(i) == Some(&b',') {
                i = self.skip_ws(i + 1);
            }
        }
        found
    }
}

/// The byte offset of the JSON value `pointer` names in `text` (valid JSON).
pub fn json_offset(text: &str, pointer: &str) -> Option<usize> {
    let scan = JsonScan::new(text);
    let mut at = scan.skip_ws(0);
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        let members = scan.members(at);
        at = match members.first()?.0 {
            Some(_) => {
                members
                    .iter()
                    .find(|(k, _)| k.as_deref() == Some(segment.as_str()))?
                    .1
            }
            None => members.get(segment.parse::<usize>().ok()?)?.1,
        };
    }
    Some(at)
}

/// Where each item of the JSON array `pointer` names starts in `text` (valid JSON); empty if
/// it is not an array.
pub fn json_items(text: &str, pointer: &str) -> Vec<usize> {
    json_offset(text, pointer)
        .map(|at| {
            JsonScan::new(text)
                .members(at)
                .into_iter()
                .map(|(_, i)| i)
                .collect()
        })
        .unwrap_or_default()
}

/// Line starts of a text, to turn many byte offsets into lines and columns quickly.
pub struct Lines(Vec<usize>);

impl Lines {
    pub fn of(text: &str) -> Lines {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lines(starts)
    }

    /// Where 1-based `line` starts, if the text has it.
    pub fn start(&self, line: usize) -> Option<usize> {
        self.0.get(line.checked_sub(1)?).copied()
    }

    /// The 1-based line and column (in bytes) of a byte offset.
    pub fn locate(&self, offset: usize) -> (usize, usize) {
        let line = self.0.partition_point(|&start| start <= offset).max(1);
        (line, offset - self.0[line - 1] + 1)
    }
}

/// "did you mean" for a misspelled name.
pub fn suggest<'a>(wrong: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let best = known
        .into_iter()
        .map(|k| (strsim::jaro_winkler(wrong, k), k))
        .filter(|(score, _)| *score > 0.75)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((_, name)) => format!(" (did you mean `{name}`?)"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_lines_and_columns() {
        let s = Source {
            path: "x.toml".into(),
            text: "a = 1\nbb = 2\n".into(),
        };
        assert_eq!(s.locate(0), (1, 1));
        assert_eq!(s.locate(6), (2, 1));
        assert_eq!(s.locate(9), (2, 4));
    }

    #[test]
    fn json_pointers_become_lines_and_columns() {
        let s = Source {
            path: "x.json".into(),
            text: "{\"a\": \"}]\\\"\",\n \"b\": [1, {\"c\": [2, 3]},\n  [4, 5]]}".into(),
        };
        assert_eq!(s.locate(json_offset(&s.text, "/b/1/c/1").unwrap()), (2, 21));
        assert_eq!(s.locate(json_offset(&s.text, "/b/2").unwrap()), (3, 3));
        assert_eq!(s.locate(json_offset(&s.text, "").unwrap()), (1, 1));
        assert_eq!(json_offset(&s.text, "/b/3"), None);
        assert_eq!(json_offset(&s.text, "/z"), None);
        let items: Vec<_> = json_items(&s.text, "/b/2")
            .into_iter()
            .map(|o| s.locate(o))
            .collect();
        assert_eq!(items, vec![(3, 4), (3, 7)]);
    }

    #[test]
    fn suggests_close_names() {
        assert_eq!(
            suggest("convyor", ["conveyor", "gear"]),
            " (did you mean `conveyor`?)"
        );
        assert_eq!(suggest("zzz", ["conveyor", "gear"]), "");
    }
}
