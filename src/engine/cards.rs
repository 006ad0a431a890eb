//! Segment A and B: revealing the cards (elements may swap them) and executing them in
//! priority order, with rules, options and squares able to take a card over (`on_card`).

use super::ctx::card_fields;
use super::values;
use super::*;

/// How a movement card will move its robot, as the `on_card` handlers so far have left it:
/// Fourth Gear lengthens it, water shortens it, Crab Legs turns it sideways, Dual Processor
/// adds a turn after it.
#[derive(Clone, Copy)]
struct Play {
    distance: i32,
    /// The direction of travel; `None` for a rotation card.
    dir: Option<Dir>,
    /// A turn after the move (`{ rotate = "left" }`).
    rotate: Option<Rotation>,
}

/// What an `on_card` handler said.
enum CardResult {
    /// Go on with the card as it stands.
    Normal,
    /// The handler resolved the card itself.
    Handled,
    /// Go on with the card's distance and/or direction changed.
    Change(Play),
}

impl<'a> Resolver<'a> {
    pub(super) fn reveal_cards(&self) -> Result<()> {
        let (count, register) = {
            let w = self.link.world.borrow();
            self.link.revealed_at.set((w.state.turn, w.state.register));
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
            let swapped = self.first_answer(
                Hook::Reveal,
                id,
                |_| Ok((card_table(self.lua, &card)?,)),
                |v| {
                    ctx::card_from_lua(&v).map_err(|m| {
                        format!("on_reveal returned {m}; it must return nil (keep the card) or a card (\"move2@700\" or a card table)")
                    })
                },
            )?;
            if let Some(new) = swapped {
                self.world().state.log(
                    Some(id),
                    "card_swapped",
                    || detail! {"from" => card.text(), "to" => new.text()},
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
        // A copy of another robot's card (Radio Control) ties with the original: the original's
        // robot acts first (rules.md §9 #20).
        let copied = self.link.world.borrow().state.copied.clone();
        let register = self.link.world.borrow().state.register;
        queue.sort_by_key(|(id, c)| {
            (
                c.priority.is_none(),
                std::cmp::Reverse(c.priority),
                copied.contains(&(*id, register)),
                *id,
            )
        });
        // One card at a time: robots the cards destroy are destroyed one after the other.
        self.world().begin_moment(false);
        for (id, card) in queue {
            if self.is_active(id) {
                self.execute_card(id, card)?;
                self.tell_destroyed()?;
                self.world().note("card", Some(id));
            }
        }
        self.world().begin_moment(true);
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
            .log(Some(id), "card", || detail! {"card" => card});
        let facing = self.link.world.borrow().state.robots[id].facing;
        let play = Play {
            distance: card.kind.distance(),
            dir: match card.kind {
                _ if card.kind.rotation().is_some() => None,
                crate::cards::CardKind::Back => Some(facing.opposite()),
                _ => Some(facing),
            },
            rotate: None,
        };
        // Each handler sees the card as the handlers before it left it (Fourth Gear makes a
        // Move 3 go 4; water then takes the first of those 4 squares).
        let card_arg = |play: Play| -> mlua::Result<Table> {
            let [name, priority, _, rotation, back] = card_fields(&card);
            let fields = [
                name,
                priority,
                ("distance", play.distance.into()),
                rotation,
                back,
                ("dir", play.dir.map(Dir::name).into()),
            ];
            values::table(self.lua, (), &fields)
        };
        let start = self.link.world.borrow().state.robots[id].at;
        self.link.last_step.set(None);
        // The table of hooks says who is asked, in what order (rules, options, square).
        let play = Cell::new(play);
        let mut handled = false;
        self.hear(
            Hook::Card,
            About::robot(&id),
            None,
            |_| Ok((card_arg(play.get())?,)),
            |heard, v| match self.card_result(play.get(), v)? {
                CardResult::Normal => Ok(Flow::Go),
                CardResult::Handled => {
                    handled = true;
                    Ok(Flow::Stop)
                }
                CardResult::Change(changed) => {
                    play.set(changed);
                    // Of a square's elements, the first that answers is the only one.
                    Ok(if heard.at.is_some() {
                        Flow::Done
                    } else {
                        Flow::Go
                    })
                }
            },
        )?;
        let play = play.get();
        if !self.is_active(id) {
            return Ok(());
        }
        if handled {
            // A script resolved the card (a teleport, an ice slide); its square still hears
            // that the card ended there.
        } else if let Some(rotation) = card.kind.rotation() {
            self.rotate(id, rotation, "card")?;
        } else if let Some(dir) = play.dir {
            self.move_robot(id, dir, play.distance, How::Card, None)?;
        }
        if let (false, Some(rotation)) = (handled, play.rotate) {
            if self.is_active(id) {
                self.rotate(id, rotation, "card")?;
            }
        }
        if self.is_active(id) {
            let moved = self.link.world.borrow().state.robots[id].at != start;
            let last_step = self.link.last_step.get();
            self.first_answer(
                Hook::CardEnd,
                id,
                |_| {
                    let info = [
                        ("moved", moved.into()),
                        ("dir", last_step.map(Dir::name).into()),
                    ];
                    let info = values::table(self.lua, (), &info)?;
                    Ok((card_arg(play)?, info))
                },
                |_| Ok(()),
            )?;
        }
        Ok(())
    }

    /// What an `on_card` handler returned, or what is wrong with it.
    fn card_result(&self, play: Play, v: Value) -> std::result::Result<CardResult, String> {
        const EXPECTED: &str = "it must return nil, rally.HANDLED or { distance = n, dir = \"N\", rotate = \"left\" } (any of the keys)";
        let table = match v {
            Value::Nil => return Ok(CardResult::Normal),
            Value::Table(t) if t == self.link.handled => return Ok(CardResult::Handled),
            Value::Table(t) => t,
            other => {
                let shown = match &other {
                    Value::String(s) => format!("\"{}\", a string", s.to_string_lossy()),
                    v => format!(
                        "{}, {}",
                        v.to_string().unwrap_or_default(),
                        crate::script::args::a(v.type_name())
                    ),
                };
                return Err(format!("on_card returned {shown}; {EXPECTED}"));
            }
        };
        let field = |key: &str| -> std::result::Result<Value, String> {
            table.get::<Value>(key).map_err(|e| lua_message(&e))
        };
        let (distance, dir, rotate) = (field("distance")?, field("dir")?, field("rotate")?);
        if distance.is_nil() && dir.is_nil() && rotate.is_nil() {
            return Err(format!(
                "on_card returned a table without `distance`, `dir` or `rotate`; {EXPECTED}"
            ));
        }
        let distance = match distance {
            Value::Nil => play.distance,
            Value::Integer(n) if (0..=i32::MAX as i64).contains(&n) => n as i32,
            Value::Number(n) if n.fract() == 0.0 && (0.0..=i32::MAX as f64).contains(&n) => n as i32,
            other => {
                return Err(format!(
                    "on_card returned distance = {}: a distance is a whole number of squares, 0 or more",
                    other.to_string().unwrap_or_default()
                ))
            }
        };
        let text = |v: Value, what: &str| -> std::result::Result<Option<String>, String> {
            match v {
                Value::Nil => Ok(None),
                Value::String(s) => Ok(Some(s.to_string_lossy())),
                other => Err(format!(
                    "on_card returned {what} = {}, {}; {EXPECTED}",
                    other.to_string().unwrap_or_default(),
                    crate::script::args::a(other.type_name())
                )),
            }
        };
        let rotate = match text(rotate, "rotate")? {
            None => play.rotate,
            Some(r) => Some(Rotation::parse(&r).ok_or_else(|| {
                format!(
                    "on_card returned rotate = \"{r}\", which is not a rotation (left/right/uturn)"
                )
            })?),
        };
        let dir = match text(dir, "dir")? {
            None => play.dir,
            Some(d) => Some(Dir::parse(&d).ok_or_else(|| {
                format!("on_card returned dir = \"{d}\", which is not a direction (N/E/S/W)")
            })?),
        };
        Ok(CardResult::Change(Play {
            distance,
            dir,
            rotate,
        }))
    }
}
