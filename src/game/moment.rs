//! A moment of a game or scenario, named as the replay viewer names its frames in links
//! (`t2r3s4`: turn 2, register 3, its 4th frame; `t2r3` the whole register; `t2r0` the start
//! of turn 2, once the programs are in; `t2end` its end): where `rally run --until` and
//! `rally watch --until` stop (docs/debugging.md).

use crate::state::{Robot, StepSnapshot, REGISTERS};
use std::fmt;

/// A moment to stop at, after it has happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moment {
    /// From 1.
    pub turn: u32,
    pub stage: Stage,
    /// In a register: its frame from 1, as the viewer counts them (each card, each step in
    /// which something happened); `None`: the whole register.
    pub frame: Option<usize>,
}

/// Which stage of its turn a moment is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The start of the turn: power down, the deal and the programs (`r0`).
    Start,
    /// A register, 1..=5.
    Register(u8),
    /// The end of the turn: repairs, re-entry (`end`).
    End,
}

const FORMS: &str =
    "write t2r3 (turn 2, register 3), t2r3s4 (its 4th frame), t2r0 (the start of turn 2) or t2end (its end)";

impl std::str::FromStr for Moment {
    type Err = String;

    fn from_str(text: &str) -> Result<Moment, String> {
        let bad = |why: &str| format!("`{}` is not a moment: {why}; {FORMS}", text.escape_debug());
        let rest = text
            .strip_prefix(['t', 'T'])
            .ok_or_else(|| bad("it starts with t"))?;
        let (turn, rest) = number(rest);
        let turn: u32 = turn.ok_or_else(|| bad("t is followed by the turn"))?;
        if turn == 0 {
            return Err(bad("turns count from 1"));
        }
        if rest.eq_ignore_ascii_case("end") {
            return Ok(Moment {
                turn,
                stage: Stage::End,
                frame: None,
            });
        }
        let rest = rest
            .strip_prefix(['r', 'R'])
            .ok_or_else(|| bad("the turn is followed by r and the register, or by end"))?;
        let (register, rest) = number(rest);
        let register = register
            .filter(|r| *r <= REGISTERS as u32)
            .ok_or_else(|| bad("r is followed by the register, 0 to 5"))?
            as u8;
        let frame = match rest {
            "" => None,
            _ => {
                let rest = rest.strip_prefix(['s', 'S']).ok_or_else(|| {
                    bad("the register is followed by s and the frame, or nothing")
                })?;
                match number(rest) {
                    (Some(n), "") if n >= 1 && register > 0 => Some(n as usize),
                    (Some(_), "") if register == 0 => {
                        return Err(bad("the start of a turn (r0) has no frames"))
                    }
                    _ => return Err(bad("s is followed by the frame, from 1")),
                }
            }
        };
        Ok(Moment {
            turn,
            stage: match register {
                0 => Stage::Start,
                r => Stage::Register(r),
            },
            frame,
        })
    }
}

/// The digits `text` starts with, as a number (`None`: none, or too many), and what follows.
fn number(text: &str) -> (Option<u32>, &str) {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    (text[..end].parse().ok(), &text[end..])
}

impl Moment {
    /// The moment after a stage, as a whole.
    pub fn after(turn: u32, stage: Stage) -> Moment {
        Moment {
            turn,
            stage,
            frame: None,
        }
    }

    /// Whether this is the moment after `stage` of `turn`, or a frame within it.
    pub fn is_in(&self, turn: u32, stage: Stage) -> bool {
        self.turn == turn && self.stage == stage
    }

    /// The moment in words: `turn 2, register 3, frame 4`, `the start of turn 2`.
    pub fn words(&self) -> String {
        let frame = self
            .frame
            .map(|f| format!(", frame {f}"))
            .unwrap_or_default();
        match self.stage {
            Stage::Start => format!("the start of turn {}", self.turn),
            Stage::Register(r) => format!("turn {}, register {r}{frame}", self.turn),
            Stage::End => format!("the end of turn {}", self.turn),
        }
    }

    /// Where a register's frame `self.frame` stops, from the frames the engine noted for it
    /// (event counts from `base`) and the `logged` events of the whole register: the robots
    /// then (`None`: as the register left them) and how many of its events had happened. A
    /// register in which nothing happened is one frame, as in the viewer. `Err`: there is no
    /// such frame, said in words.
    pub fn frame_of(
        &self,
        frames: &[StepSnapshot],
        base: usize,
        logged: usize,
    ) -> Result<(Option<Vec<Robot>>, usize), String> {
        let Some(n) = self.frame else {
            return Ok((None, logged));
        };
        let count = frames.len().max(1);
        if n > count {
            return Err(format!(
                "{self} is past the end of {}: it has {count} frame(s), {} to {}",
                Moment {
                    frame: None,
                    ..*self
                }
                .words(),
                Moment {
                    frame: Some(1),
                    ..*self
                },
                Moment {
                    frame: Some(count),
                    ..*self
                },
            ));
        }
        if frames.is_empty() {
            return Ok((None, logged));
        }
        let m = &frames[n - 1];
        // The last frame takes any events logged after the last note (`register_frames`).
        let upto = match n == frames.len() {
            true => logged,
            false => (m.events - base).min(logged),
        };
        Ok((Some(m.robots.clone()), upto))
    }
}

/// How far a move of `rally step` goes (docs/debugging.md#stepping-through-a-scenario).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// One stage or frame: the start of a turn, each frame of a register, the turn's end.
    Next,
    /// To the end of this register (from within it), else of the next one.
    Register,
    /// To the end of this turn, else of the next one.
    Turn,
}

impl Moment {
    /// Where `step` may stop after `from` (`None`: the starting position, before the first
    /// turn), nearest first: a scenario's shape (how many registers, frames and turns, an end
    /// of turn or not) shows only in running it, so the caller runs to each in turn and stops
    /// at the first the scenario reaches.
    pub fn candidates(from: Option<Moment>, step: Move) -> Vec<Moment> {
        let at = |turn, stage, frame| Moment { turn, stage, frame };
        let (turn, stage, frame) = match from {
            Some(m) => (m.turn, m.stage, m.frame),
            None => (1, Stage::Start, Some(0)),
        };
        let last = REGISTERS as u8;
        let mut out = Vec::new();
        match step {
            Move::Next => {
                match (from, stage, frame) {
                    (None, ..) => out.push(at(1, Stage::Start, None)),
                    (_, Stage::Start, _) => out.push(at(turn, Stage::Register(1), Some(1))),
                    (_, Stage::Register(r), Some(f)) => {
                        out.push(at(turn, Stage::Register(r), Some(f + 1)));
                        if r < last {
                            out.push(at(turn, Stage::Register(r + 1), Some(1)));
                        }
                    }
                    (_, Stage::Register(r), None) if r < last => {
                        out.push(at(turn, Stage::Register(r + 1), Some(1)))
                    }
                    _ => {}
                }
                if stage != Stage::End {
                    out.push(at(turn, Stage::End, None));
                }
                out.push(at(turn + 1, Stage::Start, None));
            }
            Move::Register => {
                match (stage, frame) {
                    (Stage::Register(r), Some(_)) if from.is_some() => {
                        out.push(at(turn, Stage::Register(r), None))
                    }
                    (Stage::Start, _) => out.push(at(turn, Stage::Register(1), None)),
                    (Stage::Register(r), _) if r < last => {
                        out.push(at(turn, Stage::Register(r + 1), None))
                    }
                    _ => {}
                }
                if stage != Stage::End {
                    out.push(at(turn, Stage::End, None));
                }
                out.push(at(turn + 1, Stage::Register(1), None));
            }
            Move::Turn => {
                let turns = match stage {
                    Stage::End => [turn + 1, turn + 2],
                    _ => [turn, turn + 1],
                };
                for t in turns {
                    out.push(at(t, Stage::End, None));
                    // A turn with no end of its own (one turn without `end_of_turn`) ends
                    // with its last register.
                    for r in (1..=last).rev() {
                        out.push(at(t, Stage::Register(r), None));
                    }
                }
                out.retain(|m| from.is_none_or(|f| m.key() > f.key()));
            }
        }
        out
    }

    /// Orders moments in time; a whole register comes after its frames.
    fn key(&self) -> (u32, u8, usize) {
        let stage = match self.stage {
            Stage::Start => 0,
            Stage::Register(r) => r,
            Stage::End => REGISTERS as u8 + 1,
        };
        (self.turn, stage, self.frame.unwrap_or(usize::MAX))
    }
}

/// As the viewer names it in links: `t2r3s4`, `t2r3`, `t2r0`, `t2end`.
impl fmt::Display for Moment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t{}", self.turn)?;
        match self.stage {
            Stage::Start => write!(f, "r0"),
            Stage::Register(r) => write!(f, "r{r}"),
            Stage::End => write!(f, "end"),
        }?;
        match self.frame {
            Some(n) => write!(f, "s{n}"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_viewers_names_and_writes_them_back() {
        for name in ["t2r3", "t2r3s4", "t1r0", "t3end", "t10r5s12"] {
            let m: Moment = name.parse().unwrap();
            assert_eq!(m.to_string(), name);
        }
        let m: Moment = "t2r3s4".parse().unwrap();
        assert_eq!(
            m,
            Moment {
                turn: 2,
                stage: Stage::Register(3),
                frame: Some(4)
            }
        );
        assert_eq!(m.words(), "turn 2, register 3, frame 4");
    }

    #[test]
    fn refuses_what_is_not_a_moment() {
        for (bad, why) in [
            ("", "starts with t"),
            ("r3", "starts with t"),
            ("t", "followed by the turn"),
            ("t0r1", "count from 1"),
            ("t2", "followed by r"),
            ("t2r6", "0 to 5"),
            ("t2r", "0 to 5"),
            ("t2r3s0", "from 1"),
            ("t2r3s", "from 1"),
            ("t2r3x", "followed by s"),
            ("t2r0s1", "no frames"),
            ("t2r3s4x", "from 1"),
            ("t99999999999r1", "followed by the turn"),
            ("t2ending", "followed by r"),
        ] {
            let e = bad.parse::<Moment>().unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
            assert!(e.contains("t2r3s4 (its 4th frame)"), "{e}");
        }
    }

    #[test]
    fn step_candidates_go_forward_nearest_first() {
        let names = |from: Option<&str>, step| {
            Moment::candidates(from.map(|f| f.parse().unwrap()), step)
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(names(None, Move::Next), "t1r0 t1end t2r0");
        assert_eq!(names(Some("t1r0"), Move::Next), "t1r1s1 t1end t2r0");
        assert_eq!(
            names(Some("t1r2s3"), Move::Next),
            "t1r2s4 t1r3s1 t1end t2r0"
        );
        assert_eq!(names(Some("t1r5s1"), Move::Next), "t1r5s2 t1end t2r0");
        assert_eq!(names(Some("t1end"), Move::Next), "t2r0");
        assert_eq!(names(Some("t1r2s3"), Move::Register), "t1r2 t1end t2r1");
        assert_eq!(names(Some("t1r2"), Move::Register), "t1r3 t1end t2r1");
        assert_eq!(names(None, Move::Register), "t1r1 t1end t2r1");
        let turn = names(Some("t1r5"), Move::Turn);
        assert!(turn.starts_with("t1end t2end t2r5"), "{turn}");
        assert!(names(Some("t1end"), Move::Turn).starts_with("t2end t2r5"));
    }
}
