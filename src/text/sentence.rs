//! The sentences events are told in: a declaration's `events = { craned = "{robot} is pulled
//! toward the crane at {crane}" }`. A sentence is checked when its script loads (every `{`
//! opens a field name, `{{` and `}}` are braces), and filled in for each event from its
//! fields: what a field holds, and how a square or a robot reads, is the caller's
//! (`pictures::words`).

use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The longest sentence a declaration may give (a sentence, not a page).
const MAX_LEN: usize = 300;
/// The most events one declaration may name.
const MAX_EVENTS: usize = 64;

/// One event's sentence, checked: text and the fields it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sentence {
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Text(String),
    Field(String),
}

impl Sentence {
    /// Reads `{field}`s out of `text`; `{{` and `}}` are braces.
    pub fn parse(text: &str) -> Result<Sentence, String> {
        if text.len() > MAX_LEN {
            return Err(format!(
                "is {} bytes long; a sentence may have {MAX_LEN}",
                text.len()
            ));
        }
        let mut parts = Vec::new();
        let mut plain = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    plain.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    plain.push('}');
                }
                '{' => {
                    let mut name = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(c) if c == '_' || c.is_ascii_alphanumeric() => name.push(c),
                            _ => {
                                return Err(format!(
                                    "has a `{{` that does not open a field name such as `{{robot}}` (a brace itself is written `{{{{`): \"{}\"",
                                    crate::text::clean_line(text)
                                ))
                            }
                        }
                    }
                    if name.is_empty() {
                        return Err("has an empty `{}`: name a field, such as `{robot}`".into());
                    }
                    if !plain.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut plain)));
                    }
                    parts.push(Part::Field(name));
                }
                '}' => {
                    return Err(format!(
                        "has a `}}` that closes nothing (a brace itself is written `}}}}`): \"{}\"",
                        crate::text::clean_line(text)
                    ))
                }
                c => plain.push(c),
            }
        }
        if !plain.is_empty() {
            parts.push(Part::Text(plain));
        }
        Ok(Sentence { parts })
    }

    /// The sentence with each field's words (`field` gives them; `None`: the event has no
    /// such field, shown as `?`).
    pub fn fill(&self, field: impl Fn(&str) -> Option<String>) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Field(name) => out.push_str(field(name).as_deref().unwrap_or("?")),
            }
        }
        out
    }

    /// The sentence as a phrase about any event of its kind, for a table's row: `{robot}`
    /// reads "a robot", any other field "…" ("a robot slides … on the oil").
    pub fn phrase(&self) -> String {
        self.fill(|field| Some(if field == "robot" { "a robot" } else { "…" }.into()))
    }

    /// Whether it names `field`.
    pub fn names(&self, field: &str) -> bool {
        self.parts
            .iter()
            .any(|p| matches!(p, Part::Field(f) if f == field))
    }
}

/// The sentences of the events one declaration (or a whole rule set) logs, by event name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sentences(BTreeMap<String, Sentence>);

impl Sentences {
    pub fn get(&self, event: &str) -> Option<&Sentence> {
        self.0.get(event)
    }

    /// Adds `other`'s sentences; one it gives for an event already here replaces it (the
    /// later declaration, as a later layer replaces an element).
    pub fn extend(&mut self, other: &Sentences) {
        self.0
            .extend(other.0.iter().map(|(k, v)| (k.clone(), v.clone())));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Each event's name and sentence, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Sentence)> {
        self.0.iter()
    }
}

impl<'de> Deserialize<'de> for Sentences {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Sentences, D::Error> {
        let map = BTreeMap::<String, String>::deserialize(d).map_err(|_| {
            D::Error::custom(
                "must be a table of sentences by event name, { craned = \"{robot} is pulled toward the crane at {crane}\" }",
            )
        })?;
        if map.len() > MAX_EVENTS {
            return Err(D::Error::custom(format!(
                "names {} events; a declaration may name {MAX_EVENTS}",
                map.len()
            )));
        }
        let mut out = BTreeMap::new();
        for (event, text) in map {
            let sentence =
                Sentence::parse(&text).map_err(|m| D::Error::custom(format!("`{event}` {m}")))?;
            out.insert(event, sentence);
        }
        Ok(Sentences(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_filled_and_braces_doubled_are_braces() {
        let s = Sentence::parse("{robot} pays {amount} {{coins}} at {gate}").unwrap();
        let filled = s.fill(|f| (f != "gate").then(|| format!("<{f}>")));
        assert_eq!(filled, "<robot> pays <amount> {coins} at ?");
        assert_eq!(s.phrase(), "a robot pays … {coins} at …");
        assert!(s.names("gate") && !s.names("coins"));
    }

    #[test]
    fn a_stray_brace_or_an_empty_field_is_refused() {
        for bad in ["{robot", "robot}", "{}", "{a b}", "{a{b}}"] {
            assert!(Sentence::parse(bad).is_err(), "{bad}");
        }
        assert!(Sentence::parse(&"x".repeat(MAX_LEN + 1)).is_err());
    }
}
