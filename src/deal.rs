//! Dealing and the registers' life cycle (rules.md §1.3 and §2 steps 1, 2 and 5.2): how many
//! cards a robot gets, which registers are locked, what a legal program is, and what is wiped
//! at the end of the turn. Pure functions over the state, so the turn loop, the bots and the
//! tests all agree on the same numbers.

use crate::cards::Card;
use crate::state::{Robot, RobotId, State, LETHAL_DAMAGE, REGISTERS};

/// Cards in a full hand, before damage.
pub const FULL_HAND: i32 = 9;

/// Cards dealt to a robot with this much damage: 9 − damage, never below 0 (§1.3).
pub fn hand_size(damage: i32) -> usize {
    (FULL_HAND - damage).max(0) as usize
}

/// Which registers (0-based) a robot's damage locks (§1.3, §6.4): those holding a token put
/// there by name (Fire Control's, `Robot::tokens`), and, of the other tokens, each beyond
/// the sheet's first 4 spaces covers the highest register still open, from 5 down. Without
/// named tokens: damage − 4 registers from register 5 down. At 9 damage all five are locked.
pub fn locked(r: &Robot) -> [bool; REGISTERS] {
    let mut locked = [false; REGISTERS];
    for &t in &r.tokens {
        if let Some(slot) = (t as usize).checked_sub(1).and_then(|i| locked.get_mut(i)) {
            *slot = true;
        }
    }
    let named = locked.iter().filter(|&&l| l).count() as i32;
    let ordinary = r.damage.min(LETHAL_DAMAGE - 1) - named;
    let mut to_cover = (ordinary - 4).max(0);
    for slot in locked.iter_mut().rev() {
        if to_cover == 0 {
            break;
        }
        if !*slot {
            *slot = true;
            to_cover -= 1;
        }
    }
    locked
}

/// Whether register `index` (0-based) of the robot is locked.
pub fn is_locked(r: &Robot, index: usize) -> bool {
    locked(r).get(index).copied().unwrap_or(false)
}

/// The 0-based indices of the registers a robot programs this turn.
pub fn open_registers(r: &Robot) -> Vec<usize> {
    let locked = locked(r);
    (0..REGISTERS).filter(|&i| !locked[i]).collect()
}

/// One repair (§1.3, §7.3): the token on the lowest locked register goes (a named one, or
/// the ordinary token covering it), else an ordinary token off the registers. Returns
/// whether there was damage to repair.
pub fn repair_one(r: &mut Robot) -> bool {
    if r.damage <= 0 {
        return false;
    }
    if let Some(lowest) = locked(r).iter().position(|&l| l) {
        r.tokens.retain(|&t| t as usize != lowest + 1);
    }
    r.damage -= 1;
    r.tokens.truncate(r.damage.max(0) as usize);
    true
}

/// Every token off the sheet: `damage` ordinary ones from now on (power down discards all
/// damage, a robot re-enters with 2, a scenario or a script sets it).
pub fn set_damage(r: &mut Robot, damage: i32) {
    r.damage = damage;
    r.tokens.clear();
}

/// What one robot may program from: its hand (with any card an option offers, Flywheel's),
/// and the registers to fill.
#[derive(Clone, Debug, PartialEq)]
pub struct Hand {
    pub robot: RobotId,
    pub cards: Vec<Card>,
    /// The registers to fill, 0-based, in execution order.
    pub open: Vec<usize>,
}

/// A deal fixed in advance (a scenario stacks the deck): the hand each robot gets this turn
/// (`None`: from the deck as usual), and the cards on top of the deck after the deal, first
/// drawn first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stacked {
    pub hands: Vec<Option<Vec<Card>>>,
    pub top: Vec<Card>,
}

/// Cards that are out of the deck: in robots' registers (`all_registers`) or only in locked
/// ones, in hands, and set aside on options.
fn out_of_deck(state: &State, all_registers: bool) -> Vec<Card> {
    let mut out = Vec::new();
    for r in &state.robots {
        for (i, card) in r.program.iter().enumerate() {
            if all_registers || is_locked(r, i) {
                out.extend(*card);
            }
        }
        out.extend(r.hand.iter().copied());
        out.extend(r.kept.values().map(|k| k.card));
    }
    out
}

/// The classic deck without `out`, shuffled with the game's RNG, top card last.
fn shuffled_deck(state: &mut State, out: &[Card]) -> Vec<Card> {
    let mut deck: Vec<Card> = Card::classic_deck()
        .into_iter()
        .filter(|c| !out.contains(c))
        .collect();
    state.rng.shuffle(&mut deck);
    deck
}

/// Shuffles the deck without the cards held in locked registers or set aside on options,
/// and deals each robot that programs this turn (on the board, not powered down)
/// `sizes[robot]` cards, in robot order (§2 step 1): 9 − damage ([`hand_size`]), or what its
/// options make of it (Extra Memory: ask `Engine::hand_size`). A locked register that is empty
/// (it locked while the robot was powered down, §7.4.5, 2005 ruling) first gets the top card
/// of the deck, face up. The hands go to the robots (`Robot::hand`), what is left of the deck
/// stays in the state for the turn's later draws ([`draw_card`]). `stacked` fixes the hands
/// and the top of the deck instead (scenarios). Returns the robots dealt to.
pub fn deal(state: &mut State, sizes: &[usize], stacked: Option<&Stacked>) -> Vec<RobotId> {
    for r in state.robots.iter_mut() {
        r.program.resize(REGISTERS, None);
    }
    let mut out = out_of_deck(state, false);
    if let Some(s) = stacked {
        out.extend(s.hands.iter().flatten().flatten().copied());
        out.extend(s.top.iter().copied());
    }
    let mut deck = shuffled_deck(state, &out);
    if let Some(s) = stacked {
        deck.extend(s.top.iter().rev().copied());
    }
    let mut dealt = Vec::new();
    for (id, &size) in sizes.iter().enumerate() {
        let r = &mut state.robots[id];
        if r.destroyed || r.powered_down {
            continue;
        }
        fill_locked(r, &mut deck);
        r.hand = match stacked.and_then(|s| s.hands.get(id).cloned().flatten()) {
            Some(cards) => cards,
            None => deck.split_off(deck.len() - size.min(deck.len())),
        };
        dealt.push(id);
    }
    state.deck = Some(deck);
    dealt
}

/// Puts the top card of the deck into each of the robot's locked registers that is empty.
fn fill_locked(r: &mut Robot, deck: &mut Vec<Card>) {
    r.program.resize(REGISTERS, None);
    let locked = locked(r);
    for (slot, locked) in r.program.iter_mut().zip(locked) {
        if locked && slot.is_none() {
            *slot = deck.pop();
        }
    }
}

/// The top card of this turn's deck, taken off it (Recompile's new hand, Abort Switch,
/// Scrambler). Before any deal this turn (a scenario of one turn), the deck is the classic
/// deck without every card in a register, a hand or on an option, shuffled. `None` when
/// every card is out.
pub fn draw_card(state: &mut State) -> Option<Card> {
    if state.deck.is_none() {
        let out = out_of_deck(state, true);
        state.deck = Some(shuffled_deck(state, &out));
    }
    state.deck.as_mut().and_then(Vec::pop)
}

/// Fixes the top of this turn's deck: `top` (first drawn first) on the rest of the classic
/// deck, shuffled, without the cards in registers, hands and on options (a scenario's `deck`).
pub fn stack_deck(state: &mut State, top: &[Card]) {
    let mut out = out_of_deck(state, true);
    out.extend(top.iter().copied());
    let mut deck = shuffled_deck(state, &out);
    deck.extend(top.iter().rev().copied());
    state.deck = Some(deck);
}

/// Registers that locked after the deal and are empty get the top card of the deck, as at
/// the deal: damage taken while programming (Recompile), or while powered down (§7.4.5: at
/// once, the 2005 reading).
pub fn fill_new_locks(state: &mut State, robots: &[RobotId]) {
    for &id in robots {
        state.robots[id].program.resize(REGISTERS, None);
        let locked = locked(&state.robots[id]);
        for (i, _) in locked.iter().enumerate().filter(|(_, &l)| l) {
            if state.robots[id].program[i].is_none() {
                state.robots[id].program[i] = draw_card(state);
            }
        }
    }
}

/// What the robot programs from now: its hand and the cards an option offers with it.
pub fn hand(state: &State, id: RobotId) -> Hand {
    let r = &state.robots[id];
    let mut cards = r.hand.clone();
    cards.extend(r.kept.values().filter(|k| k.offered).map(|k| k.card));
    Hand {
        robot: id,
        cards,
        open: open_registers(r),
    }
}

/// Checks a program for a hand: one card per open register (fewer only if the hand is
/// smaller), every card from the hand, none used more often than the hand holds it. The
/// message says what is wrong.
pub fn check_program(hand: &Hand, chosen: &[Card]) -> Result<(), String> {
    let needed = hand.open.len().min(hand.cards.len());
    if chosen.len() != needed {
        return Err(format!(
            "expected {needed} card(s), one per unlocked register, got {}",
            chosen.len()
        ));
    }
    for (i, c) in chosen.iter().enumerate() {
        let held = hand.cards.iter().filter(|h| *h == c).count();
        if held == 0 {
            return Err(format!("{c} is not in the hand"));
        }
        if chosen[..=i].iter().filter(|x| *x == c).count() > held {
            return Err(format!("{c} is chosen twice"));
        }
    }
    Ok(())
}

/// Puts a checked program into the robot's open registers, but for the `idle` ones
/// (positions in `hand.open`: a scenario's `-`), which stay empty; the cards leave the hand
/// (or the option that offered them). What stays in the hand are the leftovers.
pub fn install(state: &mut State, hand: &Hand, chosen: &[Card], idle: &[usize]) {
    let r = &mut state.robots[hand.robot];
    r.program.resize(REGISTERS, None);
    let slots = hand
        .open
        .iter()
        .enumerate()
        .filter(|(i, _)| !idle.contains(i))
        .map(|(_, slot)| slot);
    for (slot, card) in slots.zip(chosen) {
        r.program[*slot] = Some(*card);
        if let Some(i) = r.hand.iter().position(|c| c == card) {
            r.hand.remove(i);
        } else if let Some(key) = r
            .kept
            .iter()
            .find(|(_, k)| k.offered && k.card == *card)
            .map(|(key, _)| key.clone())
        {
            r.kept.remove(&key);
        }
    }
}

/// After programming: the leftovers are discarded (§2 step 2.1).
pub fn discard_leftovers(state: &mut State) {
    for r in state.robots.iter_mut() {
        r.hand.clear();
    }
}

/// End of turn (§2 step 5.2): every unlocked register is wiped; locked ones keep their card.
/// A robot destroyed this turn loses every card (§6.5), since it re-enters unlocked. The
/// deck is shuffled anew next turn; copies made this turn are forgotten.
pub fn wipe(state: &mut State, destroyed_this_turn: &[bool]) {
    for (id, r) in state.robots.iter_mut().enumerate() {
        r.program.resize(REGISTERS, None);
        let locked = locked(r);
        for (slot, locked) in r.program.iter_mut().zip(locked) {
            if destroyed_this_turn[id] || !locked {
                *slot = None;
            }
        }
    }
    state.deck = None;
    state.copied.clear();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{Dir, Pos};

    fn robot(damage: i32, tokens: &[u8]) -> Robot {
        let mut r = Robot::new("A", Pos::new(0, 0), Dir::N);
        r.damage = damage;
        r.tokens = tokens.to_vec();
        r
    }

    fn shown(r: &Robot) -> String {
        locked(r)
            .iter()
            .map(|&l| if l { 'L' } else { '.' })
            .collect()
    }

    #[test]
    fn the_table_of_rules_section_1_3() {
        let table = [
            (0, 9, "....."),
            (4, 5, "....."),
            (5, 4, "....L"),
            (6, 3, "...LL"),
            (8, 1, ".LLLL"),
            (9, 0, "LLLLL"),
        ];
        for (damage, dealt, want) in table {
            let r = robot(damage, &[]);
            assert_eq!(hand_size(damage), dealt, "dealt at {damage}");
            assert_eq!(shown(&r), want, "locked at {damage}");
            assert_eq!(open_registers(&r).len(), want.matches('.').count());
        }
    }

    #[test]
    fn a_named_token_locks_its_register_and_the_others_fill_from_5_down() {
        // Fire Control's token on register 2 at 1 damage: register 2 locked, nothing else.
        assert_eq!(shown(&robot(1, &[2])), ".L...");
        // 4 more ordinary tokens fill the sheet's free spaces; the next covers register 5.
        assert_eq!(shown(&robot(5, &[2])), ".L...");
        assert_eq!(shown(&robot(6, &[2])), ".L..L");
        assert_eq!(shown(&robot(5, &[5])), "....L", "a token on 5 first");
        assert_eq!(shown(&robot(6, &[5])), "...LL");
        assert_eq!(shown(&robot(9, &[1, 3])), "LLLLL");
    }

    #[test]
    fn a_repair_unlocks_the_lowest_locked_register() {
        let mut r = robot(6, &[2]);
        assert!(repair_one(&mut r));
        assert_eq!(
            (r.damage, shown(&r)),
            (5, "....L".into()),
            "the token on 2 went"
        );
        let mut r = robot(6, &[4]);
        assert_eq!(shown(&r), "...LL");
        repair_one(&mut r);
        assert_eq!((shown(&r), r.tokens.clone()), ("....L".into(), vec![]));
        let mut r = robot(1, &[]);
        assert!(repair_one(&mut r) && !repair_one(&mut r));
        assert_eq!(r.damage, 0);
    }
}
