//! A table's chat: a few words between the players (and the host), kept with the table and
//! in its save. Each line is checked as a name is (`lobby::words`: visible text, bounded),
//! and each sender is held to a few lines at a time ([`Chat::say`]), so a page cannot flood
//! the others or the save.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

/// The longest line, in characters.
pub const MAX_LINE: usize = 200;
/// The lines a table keeps (older ones go).
pub const KEPT: usize = 100;
/// A sender may say this many lines at once, then one every [`EVERY`].
pub const BURST: u32 = 3;
pub const EVERY: Duration = Duration::from_secs(2);

/// A chat line as a browser sends it: visible text, 1 to [`MAX_LINE`] characters.
pub fn line(text: &str) -> Result<String, String> {
    super::lobby::words(text, MAX_LINE, "a chat line")
}

/// One line said at the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Line {
    /// Who said it: the player's name (or the robot's, before they gave one), or `host`.
    pub from: String,
    /// The robot of the seat that said it (`null`: the host).
    pub robot: Option<String>,
    pub text: String,
}

/// A table's chat, and how much each sender may still say.
#[derive(Default)]
pub struct Chat {
    lines: VecDeque<Line>,
    /// Per sender (a seat's index, or `None` for the host): lines they may say now and
    /// when that was counted.
    allowance: BTreeMap<Option<usize>, (u32, Instant)>,
}

impl Chat {
    /// A chat that goes on from `lines` (a save's), keeping the last [`KEPT`].
    pub fn from_lines(lines: Vec<Line>) -> Chat {
        let skip = lines.len().saturating_sub(KEPT);
        Chat {
            lines: lines.into_iter().skip(skip).collect(),
            allowance: BTreeMap::new(),
        }
    }

    pub fn lines(&self) -> Vec<Line> {
        self.lines.iter().cloned().collect()
    }

    /// `line`, said by `sender`, if they have not said too much lately.
    pub fn say(&mut self, sender: Option<usize>, line: Line) -> Result<(), String> {
        let now = Instant::now();
        let (left, since) = self.allowance.entry(sender).or_insert((BURST, now));
        let earned = (now.duration_since(*since).as_millis() / EVERY.as_millis()) as u32;
        if earned > 0 {
            *left = (*left + earned).min(BURST);
            *since = now;
        }
        if *left == 0 {
            return Err(format!(
                "you are chatting too fast: at most {BURST} lines at once, then one every {} s",
                EVERY.as_secs()
            ));
        }
        *left -= 1;
        self.lines.push_back(line);
        if self.lines.len() > KEPT {
            self.lines.pop_front();
        }
        Ok(())
    }

    /// The `chat` frame: `lines`, either `all` of them (for a page that connects: it shows
    /// these instead of what it had) or one just said.
    pub fn frame(lines: &[Line], all: bool) -> String {
        serde_json::json!({ "type": "chat", "lines": lines, "all": all }).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(text: &str) -> Line {
        Line {
            from: "Ada".into(),
            robot: Some("Ann".into()),
            text: text.into(),
        }
    }

    #[test]
    fn a_sender_says_a_few_lines_at_once_and_the_others_are_not_held_back() {
        let mut chat = Chat::default();
        for i in 0..BURST {
            chat.say(Some(0), said(&i.to_string())).unwrap();
        }
        assert!(chat
            .say(Some(0), said("more"))
            .unwrap_err()
            .contains("too fast"));
        chat.say(Some(1), said("another seat")).unwrap();
        chat.say(None, said("the host")).unwrap();
        assert_eq!(
            chat.lines().len(),
            BURST as usize + 2,
            "the refused line is not kept"
        );
    }

    #[test]
    fn the_chat_keeps_its_last_lines() {
        let lines = (0..KEPT + 5).map(|i| said(&i.to_string())).collect();
        let chat = Chat::from_lines(lines);
        assert_eq!(chat.lines().len(), KEPT);
        assert_eq!(chat.lines()[0].text, "5");
        assert!(line(&"x".repeat(MAX_LINE + 1))
            .unwrap_err()
            .contains("at most 200"));
        assert!(line("a\u{7}").is_err());
    }
}
