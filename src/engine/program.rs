//! Programming time (rules.md §2 steps 1–2): the hooks that run when a robot has been dealt
//! its hand (`on_deal`: Recompile redraws it) and when its program is set (`on_program`:
//! Flywheel and Conditional Program keep a leftover, Dual Processor pairs one with a
//! register). The turn loop (`game::TurnLoop`) deals and installs the cards; the hooks
//! change hands, registers and cards set aside only through `ctx` (`ctx:hand`,
//! `ctx:keep_card`, `ctx:set_card`...). Rules are asked first, then the robot's options (in
//! the order drawn), then its square, as for `on_card`.

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
    fn hook(self) -> &'static str {
        match self {
            Programming::Deal => "on_deal",
            Programming::Program => "on_program",
        }
    }

    /// The segment events logged by the hooks carry.
    fn segment(self) -> &'static str {
        match self {
            Programming::Deal => "deal",
            Programming::Program => "program",
        }
    }

    fn rule_event(self) -> RuleEvent {
        match self {
            Programming::Deal => RuleEvent::Deal,
            Programming::Program => RuleEvent::Program,
        }
    }

    fn tile_event(self) -> TileEvent {
        match self {
            Programming::Deal => TileEvent::Deal,
            Programming::Program => TileEvent::Program,
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
        let defs = self.link.defs.clone();
        for &id in robots {
            for rule in &defs.rules {
                let Some(f) = rule.events.get(&when.rule_event()) else {
                    continue;
                };
                if !self.is_active(id) {
                    break;
                }
                let what = || {
                    format!(
                        "rule `{}` ({}), {}, robot {}",
                        rule.name,
                        rule.file,
                        when.hook(),
                        self.robot_name(id)
                    )
                };
                self.call(f, (&self.link.ctx, self.robot(id)), what)?;
            }
            for (def, name) in self.held_options(id) {
                let o = &defs.options[def];
                let hook = match when {
                    Programming::Deal => &o.on_deal,
                    Programming::Program => &o.on_program,
                };
                let Some(f) = hook else { continue };
                let Some(option) = self.option_arg(id, &name)? else {
                    continue;
                };
                if !self.is_active(id) {
                    break;
                }
                let what = || self.option_context(def, when.hook(), id);
                self.call(f, (&self.link.ctx, self.robot(id), option), what)?;
            }
            if self.is_active(id) {
                self.tile_event(
                    when.tile_event(),
                    id,
                    |tile| Ok((&self.link.ctx, tile, self.robot(id))),
                    |_| Ok(()),
                )?;
            }
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
            || detail! {"register" => register, "from" => shown(before), "to" => shown(card), "why" => why.to_string()},
        );
        Ok(())
    }
}
