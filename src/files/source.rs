//! A file's text with its path, so that what is wrong in it is said at a line and column.

use crate::error::{in_words, json_message, json_offset, Error, Lines, Result};
use std::path::{Path, PathBuf};

/// A file's text kept around so that byte offsets (from TOML spans) become line:column.
#[derive(Clone, Debug)]
pub struct Source {
    pub path: PathBuf,
    pub text: String,
}

impl Source {
    /// Reads a file as every file is read ([`super::read_text`]): regular files only, of
    /// bounded size.
    pub fn read(path: &Path) -> Result<Source> {
        let text = super::read_text(path)?;
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
            message: format!("{what}: {}", json_message(&e)),
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
            self.error_at(offset, in_words(e.message().trim()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::json_items;

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
}
