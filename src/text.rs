//! Text from scripts and files on its way to a terminal. Control characters would let a script
//! clear the screen, move the cursor or print a fake line ("all expectations hold"), and the
//! bidirectional controls (U+202E, right-to-left override) turn the rest of a line around, so
//! they are shown escaped (`\x1b`, `\u{202e}`), never sent raw. Newlines stay where a message
//! may span lines ([`clean`]) and are escaped where one line is expected ([`clean_line`]: a
//! name, a cause, a table's cell). JSON output is exact and never passes through here.
//! Pictures and pages get [`xml`]: markup escaped, and those characters shown the same way
//! (XML 1.0 allows no control character, even escaped as `&#27;`, so an SVG holding one would
//! not open).

use std::borrow::Cow;

pub mod sentence;

/// `text` with every control character but newline and tab escaped.
pub fn clean(text: &str) -> Cow<'_, str> {
    escape(text, |c| c == '\n' || c == '\t')
}

/// `text` with every control character escaped, newlines too: it stays on its line.
pub fn clean_line(text: &str) -> Cow<'_, str> {
    escape(text, |c| c == '\t')
}

/// `text` for SVG and HTML text and attribute values: `&`, `<`, `>`, `"` and `'` escaped,
/// control characters shown as [`clean`] shows them, and the two characters XML forbids
/// besides (U+FFFE, U+FFFF) replaced, so any string makes well-formed XML.
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in clean(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\u{fffe}' | '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// The characters that change the direction of the text after them (bidirectional
/// embeddings, overrides, isolates and marks): U+202E makes `txt.exe` of `exe.txt`, and
/// turns the rest of a line around. Shown escaped, as control characters are.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn escape(text: &str, allowed: impl Fn(char) -> bool) -> Cow<'_, str> {
    let bad = |c: char| (c.is_control() || is_bidi_control(c)) && !allowed(c);
    if !text.chars().any(bad) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' if bad(c) => out.push_str("\\n"),
            c if bad(c) && (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if bad(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_shown_not_sent() {
        assert_eq!(clean("\x1b[2Jhi\n"), "\\x1b[2Jhi\n");
        assert_eq!(clean_line("a\nb\rc\u{9b}d\x7f"), "a\\nb\\x0dc\\x9bd\\x7f");
        assert!(matches!(clean("plain text, ü"), Cow::Borrowed(_)));
        assert_eq!(clean("robot \u{202e}txt.exe"), "robot \\u{202e}txt.exe");
        assert_eq!(clean_line("\u{2066}a\u{200f}"), "\\u{2066}a\\u{200f}");
        assert_eq!(xml("\u{202d}x"), "\\u{202d}x");
    }

    #[test]
    fn any_string_is_well_formed_xml_text() {
        let hostile = "A\u{1b}[31m<red> & \"'\u{0}\r\u{ffff}\n";
        let svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" a=\"{0}\"><text>{0}</text></svg>",
            xml(hostile)
        );
        let doc = roxmltree::Document::parse(&svg).expect("well-formed");
        let text = doc.descendants().find(|n| n.has_tag_name("text")).unwrap();
        assert_eq!(
            text.text(),
            Some("A\\x1b[31m<red> & \"'\\x00\\x0d\u{fffd}\n")
        );
    }
}
