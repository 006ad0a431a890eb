//! One error type for everything a user can get wrong, always pointing at a place they can
//! open: `file:line:column: message`. Lua errors already carry `file.lua:line:` in their text.

use std::path::PathBuf;

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

/// serde_json's message in users' words, without the ` at line L column C` it ends with (the
/// error says where already).
pub fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let place = format!(" at line {} column {}", e.line(), e.column());
    in_words(text.strip_suffix(&place).unwrap_or(&text))
}

/// A serde message (TOML and JSON files) in the words of rally's users: serde speaks of
/// variants (which rally's variants are not), sequences, maps and Rust's number types.
/// `unknown variant `alien`, expected `human` or `bot`` → `unknown value `alien`, expected
/// `human` or `bot``; `invalid value: integer `-1`, expected u32` → `expected a whole number
/// from 0 to 4294967295, not -1`.
pub fn in_words(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        return format!("unknown value {rest}");
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some((found, expected)) = message
            .strip_prefix(prefix)
            .and_then(|rest| rest.split_once(", expected "))
        {
            return format!(
                "expected {}, not {}",
                expected_words(expected),
                found_words(found)
            );
        }
    }
    if let Some((length, expected)) = message
        .strip_prefix("invalid length ")
        .and_then(|rest| rest.split_once(", expected "))
    {
        return format!(
            "expected {}, not a list of {length} item(s)",
            expected_words(expected)
        );
    }
    message.to_string()
}

/// What serde expected, in words: `u8` → `a whole number from 0 to 255`.
fn expected_words(expected: &str) -> String {
    let whole = |low: i128, high: i128| format!("a whole number from {low} to {high}");
    match expected {
        "u8" => whole(0, u8::MAX.into()),
        "u16" => whole(0, u16::MAX.into()),
        "u32" => whole(0, u32::MAX.into()),
        "u64" | "usize" => "a whole number, 0 or more".into(),
        "i8" => whole(i8::MIN.into(), i8::MAX.into()),
        "i16" => whole(i16::MIN.into(), i16::MAX.into()),
        "i32" => whole(i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a boolean" => "true or false".into(),
        "a sequence" => "a list".into(),
        "a map" => "a table".into(),
        "path string" => "a path (text)".into(),
        other => {
            if let Some(n) = other
                .strip_prefix("an array of length ")
                .or_else(|| other.strip_prefix("a tuple of size "))
            {
                format!("a list of {n} item(s)")
            } else if other.starts_with("struct ") {
                "a table".into()
            } else {
                other.into()
            }
        }
    }
}

/// What serde found, in words: `integer `-1`` → `-1`, `string "a"` → `the text "a"`.
fn found_words(found: &str) -> String {
    let quoted = |prefix: &str| {
        found
            .strip_prefix(prefix)
            .and_then(|r| r.strip_prefix('`'))
            .and_then(|r| r.strip_suffix('`'))
            .map(String::from)
    };
    if let Some(n) = quoted("integer ")
        .or_else(|| quoted("floating point "))
        .or_else(|| quoted("boolean "))
    {
        return n;
    }
    if let Some(text) = found.strip_prefix("string ") {
        return format!("the text {text}");
    }
    match found {
        "sequence" => "a list".into(),
        "map" => "a table".into(),
        other => other.into(),
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
    match nearest(wrong, known) {
        Some(name) => format!(" (did you mean `{name}`?)"),
        None => String::new(),
    }
}

/// The known name nearest a misspelled one, if one is near enough.
pub fn nearest<'a>(wrong: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|k| (strsim::jaro_winkler(wrong, k), k))
        .filter(|(score, _)| *score > 0.75)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_speaks_the_users_words() {
        for (serde, ours) in [
            (
                "unknown variant `alien`, expected `human` or `bot`",
                "unknown value `alien`, expected `human` or `bot`",
            ),
            (
                "invalid value: integer `-1`, expected u32",
                "expected a whole number from 0 to 4294967295, not -1",
            ),
            (
                "invalid type: string \"a\", expected u8",
                "expected a whole number from 0 to 255, not the text \"a\"",
            ),
            (
                "invalid type: floating point `1.5`, expected i32",
                "expected a whole number from -2147483648 to 2147483647, not 1.5",
            ),
            (
                "invalid length 3, expected an array of length 2",
                "expected a list of 2 item(s), not a list of 3 item(s)",
            ),
            ("missing field `board`", "missing field `board`"),
        ] {
            assert_eq!(in_words(serde), ours);
        }
        let e = serde_json::from_str::<u8>("300").unwrap_err();
        assert_eq!(
            json_message(&e),
            "expected a whole number from 0 to 255, not 300"
        );
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
