//! Programming time (rules.md §2 steps 1–2): the hooks that run when a robot has been dealt
//! its hand (`on_deal`: Recompile redraws it) and when its program is set (`on_program`:
//! Flywheel and Conditional Program keep a leftover, Dual Processor pairs one with a
//! register). The turn loop (`game::TurnLoop`) deals and installs the cards; the hooks
//! change hands, registers and cards set aside only through `ctx` (`ctx:hand`,
//! `ctx:keep_card`, `ctx:set_card`...). Who hears them, in what order: `src/hooks.rs`.

use super::*;

/// Which programming hook runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Programming {
    /// The robots were dealt their hands.
    Deal,
    /// The robots' programs are set; their hands hold the leftovers.
    Program,
}

impl Programming {
    fn hook(self) -> Hook {
        match self {
            Programming::Deal => Hook::Deal,
            Programming::Program => Hook::Program,
        }
    }

    /// The segment events logged by the hooks carry.
    fn segment(self) -> &'static str {
        match self {
            Programming::Deal => "deal",
            Programming::Program => "program",
        }
    }
}

impl<'a> Resolver<'a> {
    /// Runs the `when` hooks for each of `robots` (those dealt cards this turn), in order.
    pub fn programming(&self, robots: &[RobotId], when: Programming) -> Result<()> {
        {
            let mut w = self.world();
            w.state.register = 0;
            w.state.segment = when.segment().into();
            w.begin_moment(false);
        }
        for &id in robots {
            self.first_answer(when.hook(), id, |_| Ok(()), |_| Ok(()))?;
        }
        self.tell_destroyed()
    }
}

impl<'a> Resolver<'a> {
    /// Puts `card` (or nothing) in the robot's register `register` (1..=5) for the rest of the
    /// turn (Abort Switch, Scrambler, Conditional Program); `copy`: it is a copy of another
    /// robot's card (Radio Control). A register whose card has been revealed this turn can no
    /// longer change. Logs `card_set`.
    pub fn set_card(
        &self,
        id: RobotId,
        register: u8,
        card: Option<Card>,
        copy: bool,
        why: &str,
    ) -> Result<()> {
        if !(1..=crate::state::REGISTERS as u8).contains(&register) {
            return Err(Error::Script(format!(
                "register {register}: registers are numbered 1 to {}",
                crate::state::REGISTERS
            )));
        }
        let mut w = self.world();
        let (turn, revealed) = self.link.revealed_at.get();
        if w.state.register > 0 && turn == w.state.turn && register <= revealed {
            return Err(Error::Script(format!(
                "register {register} has been revealed this turn: its card can no longer change"
            )));
        }
        let r = &mut w.state.robots[id];
        r.program.resize(crate::state::REGISTERS, None);
        let before = std::mem::replace(&mut r.program[register as usize - 1], card);
        w.state.copied.retain(|&c| c != (id, register));
        if copy {
            w.state.copied.push((id, register));
        }
        let shown = |c: Option<Card>| c.map_or("-".to_string(), |c| c.to_string());
        w.state.log(
            Some(id),
            "card_set",
            || detail! {"from" => shown(before), "in_register" => register, "to" => shown(card), "why" => why.to_string()},
        );
        Ok(())
    }
}
