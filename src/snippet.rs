//! The source line an error points at, shown under the error as rustc does: the line with a
//! caret under the column (a file error: TOML, JSON) or underlined (a script error: Lua says
//! only the line). The error's own first line stays `file:line:column: message`, which tests
//! and editors read; the snippet is for people, and is left out when the file cannot be read.
//!
//! The place is taken from the error itself: [`Error::At`] carries it; the other errors carry
//! it in their text (`scripts/elements/t.lua:6: ...`, after the element, hook and robot a
//! script error names), the first `FILE:LINE:` there whose file exists.

use crate::error::{Error, Lines};
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use std::path::{Path, PathBuf};

/// Where an error points: a file, a 1-based line, and a 1-based byte column if known.
#[derive(Debug, PartialEq)]
struct Place {
    file: PathBuf,
    line: usize,
    column: Option<usize>,
}

/// The snippet for `error`, `styled` for a terminal (or printed through anstream, which drops
/// the styles where colour is off); `None` if it points at no line that can be read.
pub fn of(error: &Error, styled: bool) -> Option<String> {
    let place = match error {
        Error::At {
            file, line, column, ..
        } => Place {
            file: file.clone(),
            line: *line,
            column: Some(*column),
        },
        other => find(&other.to_string())?,
    };
    render(&place, styled)
}

/// The first `FILE:LINE:` (or `FILE:LINE:COLUMN:`) in `message` whose file can be read.
fn find(message: &str) -> Option<Place> {
    let bytes = message.as_bytes();
    (0..bytes.len())
        .filter(|&i| bytes[i] == b':')
        .filter_map(|colon| {
            // The file: back from the colon to a space, a quote or an opening bracket.
            let start = message[..colon]
                .rfind(|c: char| c.is_whitespace() || "`'\"(".contains(c))
                .map_or(0, |i| i + 1);
            let file = &message[start..colon];
            if !file.contains('.') {
                return None;
            }
            let mut numbers = message[colon + 1..].split(':');
            let line: usize = numbers.next()?.parse().ok()?;
            let column = numbers.next().and_then(|c| c.parse().ok());
            Some(Place {
                file: PathBuf::from(file),
                line,
                column,
            })
        })
        .find(|place| source(&place.file).is_some())
}

/// A file's text, from disk or, for a built-in script named as in rally's sources
/// (`scripts/elements/gear.lua`), from the binary.
fn source(file: &Path) -> Option<String> {
    crate::files::read_text(file).ok().or_else(|| {
        crate::files::read_text(&Path::new(crate::files::builtin::ROOT).join(file)).ok()
    })
}

fn render(place: &Place, styled: bool) -> Option<String> {
    let text = source(&place.file)?;
    let lines = Lines::of(&text);
    let start = lines.start(place.line)?;
    let raw = text[start..].split('\n').next().unwrap_or("");
    let raw = raw.strip_suffix('\r').unwrap_or(raw);
    // Control characters are shown escaped, as in every message (`crate::text`).
    let shown = crate::text::clean_line(raw);
    let span = match place.column {
        Some(column) => {
            let before = raw.get(..column.saturating_sub(1)).unwrap_or(raw);
            let at = crate::text::clean_line(before).len().min(shown.len());
            let width = shown[at..].chars().next().map_or(0, char::len_utf8);
            at..at + width
        }
        None => {
            let trimmed = shown.trim_start();
            (shown.len() - trimmed.len())..shown.trim_end().len()
        }
    };
    let path = crate::files::display_path(&place.file);
    let report = [Group::with_level(Level::ERROR).element(
        Snippet::source(shown.as_ref())
            .line_start(place.line)
            .path(path)
            .annotation(AnnotationKind::Primary.span(span)),
    )];
    let renderer = if styled {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    Some(renderer.render(&report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_place_is_the_first_file_and_line_that_exists() {
        let found = find("element `gear` at [0, 0] (Cargo.toml), step `gears`, robot A, register 1: Cargo.toml:3: boom: x.lua:9: no");
        assert_eq!(
            found,
            Some(Place {
                file: "Cargo.toml".into(),
                line: 3,
                column: None
            })
        );
        assert_eq!(find("nowhere.lua:3: no such file"), None);
        assert_eq!(find("no place at all"), None);
    }

    #[test]
    fn a_column_gets_a_caret_and_a_line_is_underlined() {
        let at = |column| Place {
            file: "Cargo.toml".into(),
            line: 2,
            column,
        };
        let caret = render(&at(Some(8)), false).unwrap();
        assert!(caret.contains("2 | name = \"rally\""), "{caret}");
        assert!(
            caret.contains("  |        ^\n") || caret.ends_with("  |        ^"),
            "{caret}"
        );
        let line = render(&at(None), false).unwrap();
        assert!(line.contains("^^^^^^^^^^^^^^"), "{line}");
    }
}
