//! Robots moving: card steps and pushes with the edge (`on_cross`) and square (`on_enter`)
//! scripts told around each native step, placements, belt arrivals, and re-entry.

use super::values::{self, Field};
use super::*;

/// How a robot came to cross an edge, for `on_cross`'s `info`.
struct Crossing {
    how: How,
    /// A wall stopped it at the edge.
    blocked: bool,
    /// Movement points the robot has left after this square (0 when pushed or carried).
    remaining: i32,
    /// The program card whose movement this is (for a pushed robot: its pusher's card).
    card: Option<Card>,
    /// The robot that pushed it.
    pusher: Option<RobotId>,
}

impl<'a> Resolver<'a> {
    /// Moves a robot up to `squares` squares, pushing what is in the way; stops at a wall or
    /// when the robot is destroyed. Tells each entered square's scripts. Returns squares moved.
    /// Every edge crossed (or bumped into) is told to both squares' `on_cross`, which may
    /// make a square cost the mover extra movement points (a ramp going up).
    pub fn move_robot(&self, id: RobotId, dir: Dir, squares: i32, how: How) -> Result<i32> {
        let executing = self.link.executing.get();
        let card = executing
            .filter(|(r, _)| how == How::Card && *r == id)
            .map(|(_, c)| c);
        let mut moved = 0;
        let mut left = squares;
        while left > 0 && self.is_active(id) {
            left -= 1;
            let step = self.world().step(id, dir, how);
            let arrivals = match step {
                Ok(stepped) => {
                    self.tell_pushes(&stepped.chain, dir)?;
                    stepped.arrivals
                }
                Err(Blocked { robot, at, dir }) => {
                    let pushed = robot != id;
                    let crossing = Crossing {
                        how: if pushed { How::Push } else { how },
                        blocked: true,
                        remaining: if pushed { 0 } else { left },
                        card,
                        pusher: pushed.then_some(id),
                    };
                    self.cross(robot, at, dir, &crossing)?;
                    break;
                }
            };
            moved += 1;
            for a in &arrivals {
                // An earlier arrival's script may have moved this robot on (a ramp rolling a
                // robot back pushes its pusher back): then it is no longer arriving here.
                if !self.is_at(a.robot, a.at) {
                    continue;
                }
                if executing.is_some_and(|(r, _)| r == a.robot) {
                    self.link.last_step.set(Some(a.dir));
                }
                let own = a.robot == id;
                let crossing = Crossing {
                    how: a.how,
                    blocked: false,
                    remaining: if own { left } else { 0 },
                    card,
                    pusher: (!own).then_some(id),
                };
                let cost = self.cross(a.robot, a.at.step(a.dir.opposite()), a.dir, &crossing)?;
                if own {
                    left -= cost;
                }
                if self.is_at(a.robot, a.at) {
                    self.arrive(std::slice::from_ref(a))?;
                }
            }
        }
        Ok(moved)
    }

    /// Tells the rules' and the options' `on_push` about each robot in a chain that pushed the
    /// next one (Ramming Gear): the rules with `(pusher, pushed)`, then the pusher's options,
    /// then the pushed robot's (each with the other robot and `info.pushing`).
    fn tell_pushes(&self, chain: &[RobotId], dir: Dir) -> Result<()> {
        if chain.len() < 2 {
            return Ok(());
        }
        let defs = self.link.defs.clone();
        let rules: Vec<&crate::script::RuleDef> = defs
            .rules
            .iter()
            .filter(|r| r.events.contains_key(&RuleEvent::Push))
            .collect();
        if rules.is_empty() && defs.options.iter().all(|o| o.on_push.is_none()) {
            return Ok(());
        }
        let info = |pushing: Option<bool>| -> Result<Table> {
            let fields = [("dir", dir.name().into()), ("pushing", pushing.into())];
            values::table(self.lua, (), &fields).map_err(|e| Error::Script(lua_message(&e)))
        };
        for pair in chain.windows(2) {
            let (pusher, pushed) = (pair[0], pair[1]);
            for rule in &rules {
                let f = rule.events.get(&RuleEvent::Push).expect("filtered");
                let what = || {
                    format!(
                        "rule `{}` ({}), on_push, robot {}",
                        rule.name,
                        rule.file,
                        self.robot_name(pusher)
                    )
                };
                let args = (
                    &self.link.ctx,
                    self.robot(pusher),
                    self.robot(pushed),
                    info(None)?,
                );
                self.call(f, args, what)?;
            }
            for (holder, other, pushing) in [(pusher, pushed, true), (pushed, pusher, false)] {
                for (def, name) in self.held_options(holder) {
                    let Some(f) = &defs.options[def].on_push else {
                        continue;
                    };
                    let Some(option) = self.option_arg(holder, &name)? else {
                        continue;
                    };
                    let what = || self.option_context(def, "on_push", holder);
                    let args = (
                        &self.link.ctx,
                        self.robot(holder),
                        self.robot(other),
                        info(Some(pushing))?,
                        option,
                    );
                    self.call(f, args, what)?;
                }
            }
        }
        Ok(())
    }

    /// Turns a robot, unless the rules or its options say otherwise (`on_rotate`: Gyroscopic
    /// Stabilizer keeps gears and belts from turning it). `by` says what turns it: "card",
    /// "gear", "belt" or what a script passes. Returns whether it turned.
    pub fn rotate(&self, id: RobotId, rotation: Rotation, by: &str) -> Result<bool> {
        let defs = self.link.defs.clone();
        let mut rotation = Some(rotation);
        let holds = !self.link.world.borrow().state.robots[id].options.is_empty();
        let options: Vec<(usize, String)> =
            if holds && defs.options.iter().any(|o| o.on_rotate.is_some()) {
                self.held_options(id)
                    .into_iter()
                    .filter(|(def, _)| defs.options[*def].on_rotate.is_some())
                    .collect()
            } else {
                Vec::new()
            };
        let rules = defs
            .rules
            .iter()
            .filter_map(|r| Some((r, r.events.get(&RuleEvent::Rotate)?)));
        let info = |r: Rotation| -> Result<Table> {
            let fields = [("rotation", r.name().into()), ("by", by.into())];
            values::table(self.lua, (), &fields).map_err(|e| Error::Script(lua_message(&e)))
        };
        for (rule, f) in rules {
            let Some(r) = rotation else { break };
            let what = || {
                format!(
                    "rule `{}` ({}), on_rotate, robot {}",
                    rule.name,
                    rule.file,
                    self.robot_name(id)
                )
            };
            let args = (&self.link.ctx, self.robot(id), info(r)?);
            rotation = self.call_for(f, args, what, |v| rotation_result(r, v))?;
        }
        for (def, name) in options {
            let Some(r) = rotation else { break };
            let Some(option) = self.option_arg(id, &name)? else {
                continue;
            };
            let f = defs.options[def].on_rotate.as_ref().expect("filtered");
            let what = || self.option_context(def, "on_rotate", id);
            let args = (&self.link.ctx, self.robot(id), info(r)?, option);
            rotation = self.call_for(f, args, what, |v| rotation_result(r, v))?;
        }
        match rotation {
            Some(r) => {
                self.world().rotate(id, r);
                Ok(true)
            }
            None => {
                self.world().state.log(
                    Some(id),
                    "turn_prevented",
                    || detail! {"by" => by.to_string()},
                );
                Ok(false)
            }
        }
    }

    /// Is the robot on the board, on square `at`? (A script may have moved it meanwhile.)
    pub(super) fn is_at(&self, id: RobotId, at: Pos) -> bool {
        let w = self.link.world.borrow();
        let r = &w.state.robots[id];
        r.is_active() && r.at == at
    }

    /// Calls `on_cross` on the square `robot` left (or tried to leave) going `dir` from
    /// `from`, then on the square beyond that edge. Returns the extra movement points the
    /// handlers asked for (`{ cost = n }`). Stops if a handler moves or destroys the robot.
    fn cross(&self, robot: RobotId, from: Pos, dir: Dir, c: &Crossing) -> Result<i32> {
        let board = self.board();
        let now = self.link.world.borrow().state.robots[robot].at;
        let mut cost = 0;
        for (square, leaving) in [(from, true), (from.step(dir), false)] {
            for &t in board.tiles_at(square) {
                let Some(f) = self.link.defs.elements[board.tiles[t].element]
                    .events
                    .get(&TileEvent::Cross)
                else {
                    continue;
                };
                if !self.is_active(robot) || self.link.world.borrow().state.robots[robot].at != now
                {
                    return Ok(cost);
                }
                let side = if leaving { dir } else { dir.opposite() };
                let info = || -> mlua::Result<Table> {
                    let card = c.card.map(|card| card_table(self.lua, &card)).transpose()?;
                    let pusher = c.pusher.map(|p| self.robot(p));
                    let fields = [
                        ("dir", dir.name().into()),
                        ("side", side.name().into()),
                        ("how", c.how.name().into()),
                        ("leaving", leaving.into()),
                        ("blocked", c.blocked.into()),
                        ("remaining", c.remaining.into()),
                        (
                            "card",
                            if card.is_some() {
                                Field::Ref(1)
                            } else {
                                Field::Nil
                            },
                        ),
                        (
                            "pusher",
                            if pusher.is_some() {
                                Field::Ref(2)
                            } else {
                                Field::Nil
                            },
                        ),
                    ];
                    values::table(self.lua, (card, pusher), &fields)
                };
                let info = info().map_err(|e| Error::Script(lua_message(&e)))?;
                let what = || self.tile_handler_context(t, "on_cross", Some(robot));
                let args = (&self.link.ctx, &self.link.tiles[t], self.robot(robot), info);
                cost += self.call_for(f, args, what, |v| match v {
                    Value::Nil => Ok(0),
                    Value::Table(t) => t
                        .get::<Option<i32>>("cost")
                        .ok()
                        .flatten()
                        .filter(|n| *n >= 0)
                        .ok_or_else(|| {
                            "on_cross returned a table without a whole `cost` of 0 or more; it must return nil or { cost = n }".to_string()
                        }),
                    other => Err(format!(
                        "on_cross returned {}; it must return nil or {{ cost = n }}",
                        crate::script::args::a(other.type_name())
                    )),
                })?;
            }
        }
        Ok(cost)
    }

    /// Puts a robot on a square directly and tells that square's scripts.
    pub fn place(&self, id: RobotId, at: Pos, dir: Dir, how: How) -> Result<()> {
        let arrival = self.world().place(id, at, dir, how);
        if let Some(a) = arrival {
            self.arrive(&[a])?;
        }
        Ok(())
    }

    /// Tells each square's `on_enter` scripts, then the rules' `on_enter`, that a robot
    /// arrived. `info` is `{ how =, dir = }`, plus `card` when the robot moved by its card
    /// (driving or jumping).
    pub fn arrive(&self, arrivals: &[Arrival]) -> Result<()> {
        let info = |a: &Arrival| -> mlua::Result<Table> {
            let card = match self.link.executing.get() {
                Some((id, card)) if matches!(a.how, How::Card | How::Jump) && id == a.robot => {
                    Some(card_table(self.lua, &card)?)
                }
                _ => None,
            };
            let fields = [
                ("how", a.how.name().into()),
                ("dir", a.dir.name().into()),
                (
                    "card",
                    if card.is_some() {
                        Field::Ref(1)
                    } else {
                        Field::Nil
                    },
                ),
            ];
            values::table(self.lua, card, &fields)
        };
        let defs = self.link.defs.clone();
        for a in arrivals {
            self.tile_event(
                TileEvent::Enter,
                a.robot,
                |tile| Ok((&self.link.ctx, tile, self.robot(a.robot), info(a)?)),
                |_| Ok(()),
            )?;
            for rule in &defs.rules {
                let Some(f) = rule.events.get(&RuleEvent::Enter) else {
                    continue;
                };
                if !self.is_active(a.robot) {
                    break;
                }
                let args = info(a)
                    .and_then(|i| (&self.link.ctx, self.robot(a.robot), i).into_lua_multi(self.lua))
                    .map_err(|e| Error::Script(lua_message(&e)))?;
                let what = || {
                    format!(
                        "rule `{}` ({}), on_enter, robot {}",
                        rule.name,
                        rule.file,
                        self.robot_name(a.robot)
                    )
                };
                self.call(f, args, what)?;
            }
        }
        Ok(())
    }

    pub(super) fn flush_conveys(&self) -> Result<()> {
        let arrivals = self.world().flush_conveys();
        // Belt moves are resolved together, so the edges they crossed are told afterwards.
        let crossing = Crossing {
            how: How::Belt,
            blocked: false,
            remaining: 0,
            card: None,
            pusher: None,
        };
        for a in &arrivals {
            self.cross(a.robot, a.at.step(a.dir.opposite()), a.dir, &crossing)?;
        }
        let arrivals: Vec<Arrival> = arrivals
            .into_iter()
            .filter(|a| self.is_at(a.robot, a.at))
            .collect();
        for a in &arrivals {
            let dir = self.link.names.dir(a.dir);
            self.tile_event(
                TileEvent::Conveyed,
                a.robot,
                |tile| Ok((&self.link.ctx, tile, self.robot(a.robot), dir)),
                |_| Ok(()),
            )?;
        }
        self.arrive(&arrivals)
    }

    /// Resolves the board pushers' pushes queued in this step together, then tells the
    /// squares, as a robot's own push would: the edge a wall stopped a chain at, and each
    /// robot's crossing and arrival, front of each chain first.
    pub(super) fn flush_pushes(&self) -> Result<()> {
        let (arrivals, blocked, chains) = self.world().flush_pushes();
        for (chain, dir) in &chains {
            self.tell_pushes(chain, *dir)?;
        }
        let crossing = |blocked: bool, pusher: Option<RobotId>| Crossing {
            how: How::Push,
            blocked,
            remaining: 0,
            card: None,
            pusher,
        };
        for b in blocked {
            // Unless another pusher moved it meanwhile, the wall stopped it here.
            if self.is_at(b.robot, b.at) {
                self.cross(b.robot, b.at, b.dir, &crossing(true, None))?;
            }
        }
        for (a, pusher) in &arrivals {
            if !self.is_at(a.robot, a.at) {
                continue;
            }
            let from = a.at.step(a.dir.opposite());
            self.cross(a.robot, from, a.dir, &crossing(false, *pusher))?;
            if self.is_at(a.robot, a.at) {
                self.arrive(std::slice::from_ref(a))?;
            }
        }
        Ok(())
    }

    pub(super) fn reenter(&self) -> Result<()> {
        // Options may change the re-entry damage (Superior Archive), asked before anyone moves.
        let waiting = self.link.world.borrow().waiting_to_reenter();
        let mut damage = std::collections::HashMap::new();
        for id in waiting {
            damage.insert(
                id,
                self.modify_number(id, "reentry_damage", REENTRY_DAMAGE)?,
            );
        }
        let back = self
            .world()
            .reenter_all(&|id| damage.get(&id).copied().unwrap_or(REENTRY_DAMAGE));
        let defs = self.link.defs.clone();
        for id in back {
            for rule in &defs.rules {
                if let Some(f) = rule.events.get(&RuleEvent::Reenter) {
                    let what = || {
                        format!(
                            "rule `{}` ({}), on_reenter, robot {}",
                            rule.name,
                            rule.file,
                            self.robot_name(id)
                        )
                    };
                    self.call(f, (&self.link.ctx, self.robot(id)), what)?;
                }
            }
        }
        Ok(())
    }
}

/// Reads what an `on_rotate` handler returned: nil keeps the rotation, false cancels it, a
/// rotation name replaces it.
fn rotation_result(current: Rotation, v: Value) -> std::result::Result<Option<Rotation>, String> {
    match &v {
        Value::Nil => Ok(Some(current)),
        Value::Boolean(false) => Ok(None),
        Value::String(s) => Rotation::parse(&s.to_string_lossy())
            .map(Some)
            .ok_or_else(|| {
                format!(
                    "on_rotate returned \"{}\", which is not a rotation (left/right/uturn)",
                    s.to_string_lossy()
                )
            }),
        other => Err(format!(
            "on_rotate returned {}; it must return nil (turn), false (no turn) or a rotation",
            crate::script::args::a(other.type_name())
        )),
    }
}
