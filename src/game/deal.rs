//! Dealing and the registers' life cycle (rules.md §1.3 and §2 steps 1, 2 and 5.2): how many
//! cards a robot gets, which registers are locked, what a legal program is, and what is wiped
//! at the end of the turn. Pure functions over the state, so the turn loop, the bots and the
//! tests all agree on the same numbers.

use crate::cards::Card;
use crate::state::{GameState, RobotId, LETHAL_DAMAGE, REGISTERS};

/// Cards in a full hand, before damage.
pub const FULL_HAND: i32 = 9;

/// Cards dealt to a robot with this much damage: 9 − damage, never below 0 (§1.3).
pub fn hand_size(damage: i32) -> usize {
    (FULL_HAND - damage).max(0) as usize
}

/// How many registers are locked at this damage: damage − 4, from register 5 down (§1.3).
pub fn locked_count(damage: i32) -> usize {
    (damage.min(LETHAL_DAMAGE - 1) - 4).clamp(0, REGISTERS as i32) as usize
}

/// Whether register `index` (0-based) is locked at this damage: the highest-numbered ones are.
pub fn is_locked(damage: i32, index: usize) -> bool {
    index >= REGISTERS - locked_count(damage)
}

/// The 0-based indices of the registers a robot programs this turn.
pub fn open_registers(damage: i32) -> Vec<usize> {
    (0..REGISTERS).filter(|&i| !is_locked(damage, i)).collect()
}

/// What one robot was dealt.
#[derive(Clone, Debug, PartialEq)]
pub struct Hand {
    pub robot: RobotId,
    pub cards: Vec<Card>,
    /// The registers to fill, 0-based, in execution order.
    pub open: Vec<usize>,
}

/// Shuffles the deck without the cards held in locked registers and deals each robot that
/// programs this turn (on the board, not powered down) `sizes[robot]` cards, in robot order
/// (§2 step 1): 9 − damage ([`hand_size`]), or what its options make of it (Extra Memory:
/// ask `Game::hand_size`). A locked register that is empty (it locked while the robot was
/// powered down, §7.4.5, 2005 ruling) first gets the top card of the deck, face up.
pub fn deal(state: &mut GameState, sizes: &[usize]) -> Vec<Hand> {
    for r in state.robots.iter_mut() {
        r.program.resize(REGISTERS, None);
    }
    let held: Vec<Card> = state
        .robots
        .iter()
        .flat_map(|r| {
            (0..REGISTERS)
                .filter(|&i| is_locked(r.damage, i))
                .filter_map(|i| r.program[i])
        })
        .collect();
    let mut deck: Vec<Card> = Card::classic_deck()
        .into_iter()
        .filter(|c| !held.contains(c))
        .collect();
    state.rng.shuffle(&mut deck);
    let mut hands = Vec::new();
    for (id, (r, &size)) in state.robots.iter_mut().zip(sizes).enumerate() {
        if r.destroyed || r.powered_down {
            continue;
        }
        for i in 0..REGISTERS {
            if is_locked(r.damage, i) && r.program[i].is_none() {
                r.program[i] = deck.pop();
            }
        }
        let n = size.min(deck.len());
        let cards = deck.split_off(deck.len() - n);
        hands.push(Hand {
            robot: id,
            cards,
            open: open_registers(r.damage),
        });
    }
    hands
}

/// Checks a program for a hand: one card per open register (fewer only if the hand is
/// smaller), every card from the hand, none twice. The message says what is wrong.
pub fn check_program(hand: &Hand, chosen: &[Card]) -> Result<(), String> {
    let needed = hand.open.len().min(hand.cards.len());
    if chosen.len() != needed {
        return Err(format!(
            "expected {needed} card(s), one per unlocked register, got {}",
            chosen.len()
        ));
    }
    for (i, c) in chosen.iter().enumerate() {
        if !hand.cards.contains(c) {
            return Err(format!("{c} is not in the hand"));
        }
        if chosen[..i].contains(c) {
            return Err(format!("{c} is chosen twice"));
        }
    }
    Ok(())
}

/// Puts a checked program into the robot's open registers.
pub fn install(state: &mut GameState, hand: &Hand, chosen: &[Card]) {
    let program = &mut state.robots[hand.robot].program;
    program.resize(REGISTERS, None);
    for (slot, card) in hand.open.iter().zip(chosen) {
        program[*slot] = Some(*card);
    }
}

/// End of turn (§2 step 5.2): every unlocked register is wiped; locked ones keep their card.
/// A robot destroyed this turn loses every card (§6.5), since it re-enters unlocked.
pub fn wipe(state: &mut GameState, destroyed_this_turn: &[bool]) {
    for (id, r) in state.robots.iter_mut().enumerate() {
        r.program.resize(REGISTERS, None);
        for i in 0..REGISTERS {
            if destroyed_this_turn[id] || !is_locked(r.damage, i) {
                r.program[i] = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_of_rules_section_1_3() {
        let table = [
            (0, 9, 0),
            (4, 5, 0),
            (5, 4, 1),
            (6, 3, 2),
            (8, 1, 4),
            (9, 0, 5),
        ];
        for (damage, dealt, locked) in table {
            assert_eq!(hand_size(damage), dealt, "dealt at {damage}");
            assert_eq!(locked_count(damage), locked, "locked at {damage}");
            assert_eq!(open_registers(damage).len(), 5 - locked);
        }
        assert!(is_locked(5, 4) && !is_locked(5, 3));
    }
}
