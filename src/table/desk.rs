//! The programming desk: one player's hand and registers while a turn is programmed at the
//! table. Every change a browser asks for is checked here against the hand and the
//! registers, and refused with a sentence the player reads; a refused change changes nothing.
//! Pure data, so the rules of programming are tested without a server.

use crate::cards::Card;
use crate::deal::{self, Hand};
use crate::state::REGISTERS;

/// A seat's hand and what it has put in its registers so far this turn.
#[derive(Clone, Debug)]
pub struct Desk {
    pub hand: Hand,
    /// The five registers as the player sees them: locked ones hold their locked card,
    /// open ones what the player placed.
    pub registers: [Option<Card>; REGISTERS],
    pub locked: [bool; REGISTERS],
    /// Announced power down for the next turn (only offered to a damaged robot).
    pub power_down: bool,
    pub ready: bool,
}

impl Desk {
    /// A fresh desk for `hand`; `program` is the robot's registers as dealt (locked cards).
    pub fn new(hand: Hand, program: &[Option<Card>]) -> Desk {
        let mut registers = [None; REGISTERS];
        let mut locked = [true; REGISTERS];
        for i in 0..REGISTERS {
            if hand.open.contains(&i) {
                locked[i] = false;
            } else {
                registers[i] = program.get(i).copied().flatten();
            }
        }
        Desk {
            hand,
            registers,
            locked,
            power_down: false,
            ready: false,
        }
    }

    /// How many registers must be filled before Ready: every open one, or as many as there
    /// are cards when the hand is smaller.
    fn needed(&self) -> usize {
        self.hand.open.len().min(self.hand.cards.len())
    }

    fn filled(&self) -> usize {
        self.hand
            .open
            .iter()
            .filter(|&&i| self.registers[i].is_some())
            .count()
    }

    /// The 0-based index of register `register` (1..=5), if the player may change it.
    fn open_slot(&self, register: u8) -> Result<usize, String> {
        if self.ready {
            return Err("you are ready: the program can no longer change this turn".into());
        }
        let i = (register as usize)
            .checked_sub(1)
            .filter(|&i| i < REGISTERS)
            .ok_or_else(|| format!("there is no register {register}: they are 1 to 5"))?;
        if self.locked[i] {
            return Err(format!(
                "register {register} is locked by damage: its card stays"
            ));
        }
        Ok(i)
    }

    /// Puts `card` from the hand into an empty open register.
    pub fn place(&mut self, register: u8, card: Card) -> Result<(), String> {
        let i = self.open_slot(register)?;
        if !self.hand.cards.contains(&card) {
            return Err(format!("{card} is not in your hand"));
        }
        if let Some(other) = self.registers.iter().position(|c| *c == Some(card)) {
            return Err(format!("{card} is already in register {}", other + 1));
        }
        if let Some(there) = self.registers[i] {
            return Err(format!(
                "register {register} already holds {there}: take it out first"
            ));
        }
        if self.filled() >= self.needed() {
            return Err("you have no cards left to play this turn".into());
        }
        self.registers[i] = Some(card);
        Ok(())
    }

    /// Moves the card in open register `from` to open register `to`; a card already in
    /// `to` goes to `from` (the two swap), so a program is rearranged in one step.
    pub fn move_card(&mut self, from: u8, to: u8) -> Result<(), String> {
        let (i, j) = (self.open_slot(from)?, self.open_slot(to)?);
        if self.registers[i].is_none() {
            return Err(format!(
                "register {from} is empty: there is no card to move"
            ));
        }
        if i == j {
            return Err(format!("the card is in register {from} already"));
        }
        self.registers.swap(i, j);
        Ok(())
    }

    /// Takes the card out of an open register, back to the hand.
    pub fn clear(&mut self, register: u8) -> Result<(), String> {
        let i = self.open_slot(register)?;
        if self.registers[i].take().is_none() {
            return Err(format!("register {register} is already empty"));
        }
        Ok(())
    }

    pub fn set_power_down(&mut self, on: bool, damage: i32) -> Result<(), String> {
        if self.ready {
            return Err("you are ready: power down can no longer change this turn".into());
        }
        if on && damage == 0 {
            return Err("an undamaged robot has nothing to gain from powering down".into());
        }
        self.power_down = on;
        Ok(())
    }

    /// Ready: the program is complete.
    pub fn set_ready(&mut self) -> Result<(), String> {
        if self.ready {
            return Err("you are already ready".into());
        }
        let missing = self.needed().saturating_sub(self.filled());
        if missing > 0 {
            return Err(format!(
                "fill {missing} more register(s) before you are ready"
            ));
        }
        self.ready = true;
        Ok(())
    }

    /// Whether every register that must be filled is: Ready is accepted only then.
    pub fn complete(&self) -> bool {
        self.filled() >= self.needed()
    }

    /// Un-Ready: the program may change again. Only while the table still waits for
    /// someone (`table::thread` refuses it once the last seat is ready and the turn starts).
    pub fn set_unready(&mut self) -> Result<(), String> {
        if !self.ready {
            return Err("you are not ready yet: there is nothing to take back".into());
        }
        self.ready = false;
        Ok(())
    }

    /// The classic timer ran out (or a stand-in takes over): the empty open registers get
    /// the cards left in the hand, in the order they were dealt, and the desk is ready.
    pub fn fill_and_ready(&mut self) {
        let mut left = self
            .hand
            .cards
            .iter()
            .filter(|c| !self.registers.contains(&Some(**c)))
            .copied()
            .collect::<Vec<_>>()
            .into_iter();
        let needed = self.needed();
        let mut filled = self.filled();
        for &i in &self.hand.open {
            if filled >= needed {
                break;
            }
            if self.registers[i].is_none() {
                self.registers[i] = left.next();
                filled += 1;
            }
        }
        self.ready = true;
    }

    /// The program as the turn loop wants it: the open registers' cards, in order.
    pub fn program(&self) -> Vec<Card> {
        let cards: Vec<Card> = self
            .hand
            .open
            .iter()
            .filter_map(|&i| self.registers[i])
            .collect();
        debug_assert!(deal::check_program(&self.hand, &cards).is_ok());
        cards
    }

    /// A program chosen elsewhere (a bot), installed as if placed by hand.
    pub fn set_program(&mut self, cards: &[Card]) {
        for (&i, card) in self.hand.open.iter().zip(cards) {
            self.registers[i] = Some(*card);
        }
        self.ready = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(text: &str) -> Card {
        Card::parse(text).unwrap()
    }

    fn desk(damage: i32) -> Desk {
        let cards: Vec<Card> = Card::classic_deck()
            .into_iter()
            .take(deal::hand_size(damage))
            .collect();
        let mut robot = crate::state::Robot::new(
            "A",
            crate::geometry::Pos::new(0, 0),
            crate::geometry::Dir::N,
        );
        robot.damage = damage;
        let mut program = vec![None; REGISTERS];
        for (i, slot) in program.iter_mut().enumerate() {
            if deal::is_locked(&robot, i) {
                *slot = Some(card("move3@840"));
            }
        }
        Desk::new(
            Hand {
                robot: 0,
                cards,
                open: deal::open_registers(&robot),
            },
            &program,
        )
    }

    #[test]
    fn placing_checks_the_hand_the_register_and_duplicates() {
        let mut d = desk(0);
        d.place(1, card("uturn@10")).unwrap();
        assert!(d
            .place(1, card("uturn@20"))
            .unwrap_err()
            .contains("register 1 already holds uturn@10"));
        assert!(d
            .place(2, card("uturn@10"))
            .unwrap_err()
            .contains("already in register 1"));
        assert!(d
            .place(2, card("move3@840"))
            .unwrap_err()
            .contains("not in your hand"));
        assert!(d
            .place(6, card("uturn@20"))
            .unwrap_err()
            .contains("no register 6"));
        assert!(d
            .place(0, card("uturn@20"))
            .unwrap_err()
            .contains("no register 0"));
        assert!(d.set_ready().unwrap_err().contains("fill 4 more"));
        d.clear(1).unwrap();
        assert!(d.clear(1).unwrap_err().contains("already empty"));
    }

    #[test]
    fn locked_registers_stay_and_a_small_hand_fills_fewer() {
        let mut d = desk(6); // 3 cards, registers 4 and 5 locked
        assert!(d.locked[3] && d.locked[4] && !d.locked[2]);
        assert!(d.place(5, card("uturn@10")).unwrap_err().contains("locked"));
        for (r, c) in [(1, "uturn@10"), (2, "uturn@20"), (3, "uturn@30")] {
            d.place(r, card(c)).unwrap();
        }
        d.set_ready().unwrap();
        assert!(d.clear(1).unwrap_err().contains("you are ready"));
        assert_eq!(d.program().len(), 3);
    }

    #[test]
    fn a_card_moves_between_open_registers_and_swaps_with_the_one_there() {
        let mut d = desk(6); // registers 4 and 5 locked
        d.place(1, card("uturn@10")).unwrap();
        d.place(2, card("uturn@20")).unwrap();
        d.move_card(1, 3).unwrap();
        assert_eq!(
            d.registers[..3],
            [None, Some(card("uturn@20")), Some(card("uturn@10"))]
        );
        d.move_card(2, 3).unwrap();
        assert_eq!(
            d.registers[..3],
            [None, Some(card("uturn@10")), Some(card("uturn@20"))]
        );
        assert!(d
            .move_card(1, 2)
            .unwrap_err()
            .contains("register 1 is empty"));
        assert!(d.move_card(2, 4).unwrap_err().contains("locked"));
        assert!(d.move_card(4, 1).unwrap_err().contains("locked"));
        assert!(d.move_card(2, 2).unwrap_err().contains("already"));
        assert!(d.move_card(2, 7).unwrap_err().contains("no register 7"));
        assert!(!d.complete());
        d.place(1, card("uturn@30")).unwrap();
        assert!(d.complete());
        d.set_ready().unwrap();
        assert!(d.move_card(1, 2).unwrap_err().contains("you are ready"));
        d.set_unready().unwrap();
        assert!(d.set_unready().unwrap_err().contains("not ready"));
        d.move_card(1, 2).unwrap();
    }

    #[test]
    fn the_timer_fills_the_rest_in_dealt_order() {
        let mut d = desk(0);
        d.place(2, card("uturn@30")).unwrap();
        d.fill_and_ready();
        let shown: Vec<String> = d.program().iter().map(|c| c.to_string()).collect();
        assert_eq!(
            shown,
            ["uturn@10", "uturn@30", "uturn@20", "uturn@40", "uturn@50"]
        );
        assert!(d.ready);
    }

    #[test]
    fn power_down_only_for_a_damaged_robot() {
        let mut d = desk(0);
        assert!(d.set_power_down(true, 0).is_err());
        d.set_power_down(true, 2).unwrap();
        assert!(d.power_down);
    }
}
