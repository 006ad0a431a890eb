//! A program's preview while it is being written: where the robot would stand after each
//! register, rehearsed by the engine itself as a bot rehearses its candidates, so the
//! preview follows every rule and script loaded, belts, pushers and lasers included.
//!
//! A preview must tell its player nothing that is face down. So it is rehearsed in a copy of
//! the game in which the other robots play only their face-up cards (those locked in their
//! registers), every question is answered as a bot would, and chance is drawn afresh: the
//! program deck and the option deck are shuffled anew from an RNG of the preview's own, so a
//! card drawn in the copy (a randomizer, Abort Switch) is not the deck's real top. It is
//! therefore what *may* happen, and the pages say so.

use crate::cards::Card;
use crate::deal;
use crate::engine::Engine;
use crate::error::Result;
use crate::geometry::{Dir, Pos};
use crate::state::{Rng, RobotId, REGISTERS};
use serde::Serialize;

/// Where the robot stands once a register has been resolved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pose {
    /// 1..=5.
    pub register: u8,
    pub at: Pos,
    pub facing: Dir,
    /// Destroyed in this register: the preview ends here.
    pub destroyed: bool,
}

/// The seed of the preview's own RNG: fixed, so a preview is the same each time it is asked
/// for, and unrelated to the game's seed, so it says nothing of the game's draws.
const SEED: u64 = 0x7072_6576_6965_7721;

/// `robot`'s pose after each register of `program` up to its last card (none for an empty
/// program), the registers resolved in a copy of the game as the module says. The game is
/// left exactly as it was found, whether the rehearsal succeeds or a script fails in it.
pub fn preview(
    engine: &mut Engine,
    robot: RobotId,
    program: &[Option<Card>; REGISTERS],
) -> Result<Vec<Pose>> {
    let Some(last) = program.iter().rposition(Option::is_some) else {
        return Ok(Vec::new());
    };
    // The game's events are not the preview's business: copy everything else.
    let mut copy = {
        let mut state = engine.state_mut();
        let events = std::mem::take(&mut state.events);
        let copy = state.clone();
        state.events = events;
        copy
    };
    copy.quiet = true;
    copy.rng = Rng::new(SEED ^ u64::from(copy.turn));
    copy.deck = None;
    copy.option_deck = None;
    for (id, r) in copy.robots.iter_mut().enumerate() {
        let locked = deal::locked(r);
        r.program.resize(REGISTERS, None);
        if id == robot {
            r.program.copy_from_slice(program);
        } else {
            for (card, locked) in r.program.iter_mut().zip(locked) {
                if !locked {
                    *card = None;
                }
            }
        }
    }
    let original = engine.restore(copy);
    let rehearsing = engine.set_rehearsal(true);
    let mut poses = Vec::new();
    let result = (1..=last as u8 + 1).try_for_each(|register| {
        if poses.last().is_some_and(|p: &Pose| p.destroyed) {
            return Ok(());
        }
        engine.rehearse_register(register)?;
        let r = &engine.state().robots[robot];
        poses.push(Pose {
            register,
            at: r.at,
            facing: r.facing,
            destroyed: r.destroyed,
        });
        Ok(())
    });
    engine.set_rehearsal(rehearsing);
    engine.restore(original);
    result.map(|()| poses)
}
