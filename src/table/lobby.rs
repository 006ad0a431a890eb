//! Who sits at a table, in words people typed: the players' names and the chat's lines are
//! checked here before they reach the table (`protocol::NameText`, `protocol::ChatText`).
//! They are shown as text everywhere (the pages set `textContent`; the save and the frames
//! are JSON), so a name cannot be markup; what is refused here is what would mislead in
//! plain text: control characters (a newline in a name, a terminal escape) and the
//! invisible characters that reorder or hide text.

/// The longest name, in characters.
pub const MAX_NAME: usize = 24;

/// A player's name: `text` trimmed, 1 to [`MAX_NAME`] characters, no control or invisible
/// characters; or the sentence saying why not.
pub fn name(text: &str) -> Result<String, String> {
    words(text, MAX_NAME, "a name")
}

/// `text` trimmed, if it is 1 to `max` characters of visible text; `what` names it in the
/// refusal.
pub fn words(text: &str, max: usize, what: &str) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(format!("{what} cannot be empty"));
    }
    let count = text.chars().count();
    if count > max {
        return Err(format!(
            "{what} is at most {max} characters (this one has {count})"
        ));
    }
    if let Some(c) = text.chars().find(|&c| c.is_control() || invisible(c)) {
        return Err(format!(
            "{what} cannot hold the character U+{:04X} (control and invisible characters are refused)",
            c as u32
        ));
    }
    Ok(text.to_string())
}

/// Characters that show nothing but change how the text around them reads: the bidi
/// controls (one can make `evil.exe` read `exe.live`), zero-width ones, the BOM.
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}'
        | '\u{2060}'..='\u{2069}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_bounded_and_visible() {
        assert_eq!(name("  Ada  ").as_deref(), Ok("Ada"));
        assert_eq!(
            name("<b>Bob</b> & \"co\"").as_deref(),
            Ok("<b>Bob</b> & \"co\"")
        );
        assert_eq!(
            name(&"é".repeat(MAX_NAME)).map(|n| n.chars().count()),
            Ok(MAX_NAME)
        );
        for (bad, why) in [
            ("", "cannot be empty"),
            ("   ", "cannot be empty"),
            (&"x".repeat(MAX_NAME + 1), "at most 24 characters"),
            ("Ada\nBob", "U+000A"),
            ("A\u{1b}[31m", "U+001B"),
            ("Ada\u{202E}exe", "U+202E"),
            ("A\u{200B}da", "U+200B"),
            ("\u{7f}", "U+007F"),
        ] {
            let e = name(bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }
}
