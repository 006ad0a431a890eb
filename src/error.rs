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
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before
            .rfind('\n')
            .map_or(before.len(), |nl| before.len() - nl - 1)
            + 1;
        (line, column)
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

/// The byte offset of the JSON value `pointer` names in `text` (which must be valid JSON).
/// serde_json keeps no positions, so the text is scanned: strings, brackets and the rest.
fn json_offset(text: &str, pointer: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let skip_ws = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    // The end of the string starting at `i` (on its opening quote).
    let string_end = |mut i: usize| {
        i += 1;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'\\' => i += 2,
                b'"' => return i + 1,
                _ => i += 1,
            }
        }
        i
    };
    // The end of the value starting at `i`.
    let value_end = |mut i: usize| {
        let mut depth = 0usize;
        loop {
            match bytes.get(i) {
                None => return i,
                Some(b'"') => i = string_end(i),
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
    };
    let mut at = skip_ws(0);
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        let object = match bytes.get(at)? {
            b'{' => true,
            b'[' => false,
            _ => return None,
        };
        let mut index = 0usize;
        at = skip_ws(at + 1);
        loop {
            if matches!(bytes.get(at)?, b'}' | b']') {
                return None;
            }
            let matched = if object {
                let end = string_end(at);
                let key: String = serde_json::from_str(text.get(at..end)?).ok()?;
                at = skip_ws(end);
                at = skip_ws(at + 1); // the colon
                key == segment
            } else {
                segment.parse() == Ok(index)
            };
            if matched {
                break;
            }
            at = skip_ws(value_end(at));
            if bytes.get(at) == Some(&b',') {
                at = skip_ws(at + 1);
            }
            index += 1;
        }
    }
    Some(at)
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
