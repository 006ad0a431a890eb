//! Segment A and B: revealing the cards (elements may swap them) and executing them in
//! priority order, with rules, options and squares able to take a card over (`on_card`).

use super::*;

enum CardResult {
    Normal,
    Handled,
    Distance(i32),
}

impl<'a> Engine<'a> {
    pub(super) fn reveal_cards(&self) -> Result<()> {
        let (count, register) = {
            let w = self.link.world.borrow();
            (w.state.robots.len(), w.state.register)
        };
        for id in 0..count {
            let card = {
                let w = self.link.world.borrow();
                let r = &w.state.robots[id];
                if r.destroyed || r.powered_down {
                    None
                } else {
                    r.card(register)
                }
            };
            self.link.revealed.borrow_mut()[id] = card;
            let Some(card) = card else { continue };
            let swapped = self.tile_event(TileEvent::Reveal, id, |tile| {
                (
                    &self.link.ctx,
                    tile,
                    self.robot(id),
                    card_table(self.lua, &card)?,
                )
                    .into_lua_multi(self.lua)
            })?;
            if !swapped.is_nil() {
                let new = crate::script::ctx::card_from_lua(&swapped)
                    .map_err(|m| Error::Script(format!("on_reveal returned {m}")))?;
                self.world().state.log(
                    Some(id),
                    "card_swapped",
                    detail! {"from" => card.to_string(), "to" => new.to_string()},
                );
                self.link.revealed.borrow_mut()[id] = Some(new);
            }
        }
        Ok(())
    }

    /// Robots execute their cards: higher priority first; cards without a priority after
    /// those with one, in the order the robots are listed.
    pub(super) fn execute_cards(&self) -> Result<()> {
        let mut queue: Vec<(RobotId, Card)> = self
            .link
            .revealed
            .borrow()
            .iter()
            .enumerate()
            .filter_map(|(id, c)| c.map(|c| (id, c)))
            .collect();
        queue.sort_by_key(|(id, c)| (c.priority.is_none(), std::cmp::Reverse(c.priority), *id));
        for (id, card) in queue {
            if self.is_active(id) {
                self.execute_card(id, card)?;
                self.tell_destroyed()?;
            }
        }
        Ok(())
    }

    /// One robot executes one card: rules and the robot's square may take it over
    /// (`on_card`), otherwise it moves step by step or turns; then `on_card_end`.
    pub fn execute_card(&self, id: RobotId, card: Card) -> Result<()> {
        let outer = self.link.executing.replace(Some((id, card)));
        let result = self.resolve_card(id, card);
        self.link.executing.set(outer);
        result
    }

    fn resolve_card(&self, id: RobotId, card: Card) -> Result<()> {
        self.world()
            .state
            .log(Some(id), "card", detail! {"card" => card.to_string()});
        let mut distance = card.kind.distance();
        // Each handler sees the distance as the handlers before it left it (Fourth Gear
        // makes a Move 3 go 4; water then takes the first of those 4 squares).
        let card_arg = |distance: i32| -> mlua::Result<Table> {
            let t = card_table(self.lua, &card)?;
            t.raw_set("distance", distance)?;
            Ok(t)
        };
        let start = self.link.world.borrow().state.robots[id].at;
        self.link.last_step.set(None);
        let mut handled = false;
        let defs = self.link.defs.clone();
        for rule in &defs.rules {
            let Some(f) = rule.events.get(&RuleEvent::Card) else {
                continue;
            };
            let args = (
                &self.link.ctx,
                self.robot(id),
                card_arg(distance).map_err(|e| Error::Script(lua_message(&e)))?,
            );
            let what = || {
                format!(
                    "rule `{}` ({}), on_card, robot {}",
                    rule.name,
                    rule.file,
                    self.robot_name(id)
                )
            };
            match self.interpret_card_result(self.call(f, args, what)?)? {
                CardResult::Handled => {
                    handled = true;
                    break;
                }
                CardResult::Distance(d) => distance = d,
                CardResult::Normal => {}
            }
        }
        if !handled {
            // The robot's options (Brakes, Fourth Gear, Crab Legs...), in the order drawn.
            for (def, name) in self.held_options(id) {
                let Some(f) = &defs.options[def].on_card else {
                    continue;
                };
                let Some(option) = self.option_arg(id, &name)? else {
                    continue;
                };
                let card = card_arg(distance).map_err(|e| Error::Script(lua_message(&e)))?;
                let what = || self.option_context(def, "on_card", id);
                let result = self.call(f, (&self.link.ctx, self.robot(id), card, option), what)?;
                match self.interpret_card_result(result)? {
                    CardResult::Handled => {
                        handled = true;
                        break;
                    }
                    CardResult::Distance(d) => distance = d,
                    CardResult::Normal => {}
                }
                if !self.is_active(id) {
                    return Ok(());
                }
            }
        }
        if !handled {
            let result = self.tile_event(TileEvent::Card, id, |tile| {
                (&self.link.ctx, tile, self.robot(id), card_arg(distance)?).into_lua_multi(self.lua)
            })?;
            match self.interpret_card_result(result)? {
                CardResult::Handled => handled = true,
                CardResult::Distance(d) => distance = d,
                CardResult::Normal => {}
            }
        }
        if !self.is_active(id) {
            return Ok(());
        }
        if handled {
            // A script resolved the card (a teleport, an ice slide); its square still hears
            // that the card ended there.
        } else if let Some(rotation) = card.kind.rotation() {
            self.world().rotate(id, rotation);
        } else {
            let facing = self.link.world.borrow().state.robots[id].facing;
            let dir = if card.kind == crate::cards::CardKind::Back {
                facing.opposite()
            } else {
                facing
            };
            self.move_robot(id, dir, distance, How::Card)?;
        }
        if self.is_active(id) {
            let moved = self.link.world.borrow().state.robots[id].at != start;
            let last_step = self.link.last_step.get();
            self.tile_event(TileEvent::CardEnd, id, |tile| {
                let info = self.lua.create_table()?;
                info.raw_set("moved", moved)?;
                info.raw_set("dir", last_step.map(Dir::name))?;
                (
                    &self.link.ctx,
                    tile,
                    self.robot(id),
                    card_arg(distance)?,
                    info,
                )
                    .into_lua_multi(self.lua)
            })?;
        }
        Ok(())
    }

    fn interpret_card_result(&self, v: Value) -> Result<CardResult> {
        match v {
            Value::Nil => Ok(CardResult::Normal),
            Value::Table(t) if t == self.link.handled => Ok(CardResult::Handled),
            Value::Table(t) => {
                let d: Option<i32> = t
                    .get("distance")
                    .map_err(|e| Error::Script(lua_message(&e)))?;
                d.map(CardResult::Distance).ok_or_else(|| {
                    Error::Script(
                        "on_card must return nil, rally.HANDLED or { distance = n }".into(),
                    )
                })
            }
            other => Err(Error::Script(format!(
                "on_card must return nil, rally.HANDLED or {{ distance = n }}, not a {}",
                other.type_name()
            ))),
        }
    }
}
