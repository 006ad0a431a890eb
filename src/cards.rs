//! Program cards: the seven kinds, the classic 84-card deck and the `NAME@PRIORITY` notation.

use crate::geometry::Rotation;
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CardKind {
    Move1,
    Move2,
    Move3,
    Back,
    Left,
    Right,
    Uturn,
}

impl CardKind {
    pub const ALL: [CardKind; 7] = [
        CardKind::Move1,
        CardKind::Move2,
        CardKind::Move3,
        CardKind::Back,
        CardKind::Left,
        CardKind::Right,
        CardKind::Uturn,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CardKind::Move1 => "move1",
            CardKind::Move2 => "move2",
            CardKind::Move3 => "move3",
            CardKind::Back => "back",
            CardKind::Left => "left",
            CardKind::Right => "right",
            CardKind::Uturn => "uturn",
        }
    }

    pub fn parse(name: &str) -> Option<CardKind> {
        CardKind::ALL
            .into_iter()
            .find(|k| k.name() == name.to_ascii_lowercase())
    }

    /// Squares a movement card moves (Back Up counts 1); 0 for rotations.
    pub fn distance(self) -> i32 {
        match self {
            CardKind::Move1 | CardKind::Back => 1,
            CardKind::Move2 => 2,
            CardKind::Move3 => 3,
            _ => 0,
        }
    }

    pub fn rotation(self) -> Option<Rotation> {
        match self {
            CardKind::Left => Some(Rotation::Left),
            CardKind::Right => Some(Rotation::Right),
            CardKind::Uturn => Some(Rotation::UTurn),
            _ => None,
        }
    }

    /// The classic deck: card number `i` (1..=84) has priority `10 * i`; see rules.md §1.2.
    fn of_deck_index(i: u16) -> CardKind {
        match i {
            1..=6 => CardKind::Uturn,
            7..=42 if i % 2 == 1 => CardKind::Left,
            7..=42 => CardKind::Right,
            43..=48 => CardKind::Back,
            49..=66 => CardKind::Move1,
            67..=78 => CardKind::Move2,
            _ => CardKind::Move3,
        }
    }
}

/// One program card. Scenario cards may omit the priority: they then act after every card
/// that has one, in the order the robots are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Card {
    pub kind: CardKind,
    pub priority: Option<u16>,
}

impl Card {
    pub fn parse(text: &str) -> Result<Card, String> {
        let (name, priority) = match text.split_once('@') {
            Some((name, p)) => {
                let p: u16 = p.trim().parse().map_err(|_| {
                    format!("card `{text}`: priority `{p}` must be a whole number from 0 to 65535")
                })?;
                (name.trim(), Some(p))
            }
            None => (text.trim(), None),
        };
        let kind = CardKind::parse(name).ok_or_else(|| {
            let names: Vec<_> = CardKind::ALL.iter().map(|k| k.name()).collect();
            format!(
                "unknown card `{name}`, expected one of {}",
                names.join(", ")
            )
        })?;
        Ok(Card { kind, priority })
    }

    /// The classic 84-card deck in priority order (rules.md §1.2).
    pub fn classic_deck() -> Vec<Card> {
        (1..=84)
            .map(|i| Card {
                kind: CardKind::of_deck_index(i),
                priority: Some(10 * i),
            })
            .collect()
    }
}

impl TryFrom<String> for Card {
    type Error = String;
    fn try_from(text: String) -> Result<Card, String> {
        Card::parse(&text)
    }
}

impl From<Card> for String {
    fn from(c: Card) -> String {
        c.to_string()
    }
}

impl Card {
    /// The card as text, `move2@700`, as `Display` writes it but without the formatting
    /// machinery: every card a robot plays is logged this way.
    pub fn text(&self) -> String {
        let name = self.kind.name();
        let Some(mut p) = self.priority else {
            return name.to_string();
        };
        let mut digits = [0u8; 5];
        let mut n = 0;
        loop {
            digits[n] = b'0' + (p % 10) as u8;
            n += 1;
            p /= 10;
            if p == 0 {
                break;
            }
        }
        let mut text = String::with_capacity(name.len() + 1 + n);
        text.push_str(name);
        text.push('@');
        text.extend(digits[..n].iter().rev().map(|&d| d as char));
        text
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_reads_back() {
        for text in [
            "move1",
            "back@0",
            "uturn@7",
            "left@90",
            "move3@840",
            "right@65535",
        ] {
            let card = Card::parse(text).unwrap();
            assert_eq!(card.text(), text);
            assert_eq!(card.to_string(), text);
        }
    }

    #[test]
    fn deck_matches_the_rulebook() {
        let deck = Card::classic_deck();
        let count = |k| deck.iter().filter(|c| c.kind == k).count();
        assert_eq!(deck.len(), 84);
        assert_eq!(count(CardKind::Move1), 18);
        assert_eq!(count(CardKind::Move2), 12);
        assert_eq!(count(CardKind::Move3), 6);
        assert_eq!(count(CardKind::Back), 6);
        assert_eq!(count(CardKind::Left), 18);
        assert_eq!(count(CardKind::Right), 18);
        assert_eq!(count(CardKind::Uturn), 6);
        assert_eq!(deck[48], Card::parse("move1@490").unwrap());
        assert_eq!(deck[65], Card::parse("move1@660").unwrap());
        assert_eq!(deck[6], Card::parse("left@70").unwrap());
        assert_eq!(deck[41], Card::parse("right@420").unwrap());
    }

    #[test]
    fn parses_names_and_priorities() {
        assert_eq!(Card::parse("back").unwrap().priority, None);
        assert!(Card::parse("jump@10")
            .unwrap_err()
            .contains("unknown card `jump`"));
        assert!(Card::parse("move1@x").is_err());
    }
}
