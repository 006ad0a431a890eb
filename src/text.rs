//! Text from scripts and files on its way to a terminal. Control characters would let a script
//! clear the screen, move the cursor or print a fake line ("all expectations hold"), so they
//! are shown escaped (`\x1b`), never sent raw. Newlines stay where a message may span lines
//! ([`clean`]) and are escaped where one line is expected ([`clean_line`]). JSON output is
//! exact and never passes through here.

use std::borrow::Cow;

/// `text` with every control character but newline and tab escaped.
pub fn clean(text: &str) -> Cow<'_, str> {
    escape(text, |c| c == '\n' || c == '\t')
}

/// `text` with every control character escaped, newlines too: it stays on its line.
pub fn clean_line(text: &str) -> Cow<'_, str> {
    escape(text, |c| c == '\t')
}

fn escape(text: &str, allowed: impl Fn(char) -> bool) -> Cow<'_, str> {
    let bad = |c: char| c.is_control() && !allowed(c);
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
    }
}
