//! Robots moving: card steps and pushes with the edge (`on_cross`) and square (`on_enter`)
//! scripts told around each native step, placements, belt arrivals, and re-entry.

use super::values::{self, Field};
use super::*;
use crate::world::Closed;

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
    pub fn move_robot(
        &self,
        id: RobotId,
        dir: Dir,
        squares: i32,
        how: How,
        by: Option<&str>,
    ) -> Result<i32> {
        let executing = self.link.executing.get();
        let card = executing
            .filter(|(r, _)| how == How::Card && *r == id)
            .map(|(_, c)| c);
        let mut moved = 0;
        let mut left = squares;
        while left > 0 && self.is_active(id) {
            left -= 1;
            let asked = if self.link.any_blocking {
                self.ask_before_step(id, dir, how, left, card)?
            } else {
                Some(0)
            };
            // A handler asked about the crossing moved or destroyed the robot.
            let Some(cost) = asked else { break };
            let step = self.world().step(id, dir, how, by);
            if self.link.any_blocking {
                self.world().open_all();
            }
            let arrivals = match step {
                Ok(stepped) => {
                    left -= cost;
                    self.tell_pushes(&stepped.chain, dir)?;
                    stepped.arrivals
                }
                Err(Blocked { robot, at, dir, .. }) => {
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

    /// [`Resolver::ask_chain`] before one square of `move_robot`: the cost of the mover's
    /// crossing, or `None` if a handler moved or destroyed the mover meanwhile (its move
    /// ends). The edges closed stay closed for the step that follows.
    fn ask_before_step(
        &self,
        id: RobotId,
        dir: Dir,
        how: How,
        left: i32,
        card: Option<Card>,
    ) -> Result<Option<i32>> {
        let start = self.link.world.borrow().state.robots[id].at;
        match self.ask_chain(id, dir, how, left, card) {
            Ok(_) if !self.is_at(id, start) => {
                self.world().open_all();
                Ok(None)
            }
            Ok(cost) => Ok(Some(cost)),
            Err(e) => {
                self.world().open_all();
                Err(e)
            }
        }
    }

    /// Asks the elements that may refuse a crossing (`blocks`) about each robot of the chain
    /// `id` would push one square `dir`, front of the chain first, and closes the first edge
    /// refused, so that the step is stopped there as at a wall: nothing moves. A chain a wall
    /// stops anyway is not asked. Returns the extra movement points the mover's crossing
    /// costs (`{ cost = n }`).
    fn ask_chain(
        &self,
        id: RobotId,
        dir: Dir,
        how: How,
        left: i32,
        card: Option<Card>,
    ) -> Result<i32> {
        if !self.link.any_blocking {
            return Ok(0);
        }
        let (chain, walled) = self.link.world.borrow().chain(id, dir);
        if walled.is_some() {
            return Ok(0);
        }
        let mut cost = 0;
        for (k, &robot) in chain.iter().enumerate().rev() {
            let own = k == 0;
            let crossing = Crossing {
                how: if own { how } else { How::Push },
                blocked: false,
                remaining: if own { left } else { 0 },
                card,
                pusher: (!own).then_some(id),
            };
            let from = self.link.world.borrow().state.robots[robot].at;
            let (refused, n) = self.ask_cross(robot, from, dir, &crossing)?;
            if refused {
                return Ok(0);
            }
            if own {
                cost += n;
            }
        }
        Ok(cost)
    }

    /// Tells the rules' and the options' `on_push` about each robot in a chain that pushed the
    /// next one (Ramming Gear): the rules with `(pusher, pushed)`, then the pusher's options,
    /// then the pushed robot's (each with the other robot and `info.pushing`).
    fn tell_pushes(&self, chain: &[RobotId], dir: Dir) -> Result<()> {
        if chain.len() < 2 {
            return Ok(());
        }
        let info = |pushing: Option<bool>| -> mlua::Result<Table> {
            let fields = [("dir", dir.name().into()), ("pushing", pushing.into())];
            values::table(self.lua, (), &fields)
        };
        for pair in chain.windows(2) {
            let (pusher, pushed) = (pair[0], pair[1]);
            let about = About {
                robots: &[pusher, pushed],
                squares: None,
                blocking: None,
            };
            self.hear(
                Hook::Push,
                about,
                None,
                |heard| {
                    let other = if heard.robot == pusher {
                        pushed
                    } else {
                        pusher
                    };
                    // Options are told which side of the push their holder is on.
                    let pushing =
                        matches!(heard.who, Who::Option(_)).then_some(heard.robot == pusher);
                    Ok((self.robot(other), info(pushing)?))
                },
                |_, _| Ok(Flow::Go),
            )?;
        }
        Ok(())
    }

    /// Turns a robot, unless the rules or its options say otherwise (`on_rotate`: Gyroscopic
    /// Stabilizer keeps gears and belts from turning it). `by` says what turns it: "card",
    /// "gear", "belt" or what a script passes. Returns whether it turned.
    pub fn rotate(&self, id: RobotId, rotation: Rotation, by: &str) -> Result<bool> {
        let rotation = Cell::new(Some(rotation));
        let info = |r: Option<Rotation>| -> mlua::Result<Table> {
            let r = r.expect("asked only while the robot turns");
            let fields = [("rotation", r.name().into()), ("by", by.into())];
            values::table(self.lua, (), &fields)
        };
        self.hear(
            Hook::Rotate,
            About::robot(&id),
            None,
            |_| Ok((info(rotation.get())?,)),
            |_, v| {
                let turned = rotation_result(rotation.get().expect("turning"), v)?;
                rotation.set(turned);
                Ok(if turned.is_some() {
                    Flow::Go
                } else {
                    Flow::Stop
                })
            },
        )?;
        match rotation.get() {
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
    /// `from`, then on the square beyond that edge: of the elements that do not declare
    /// `blocks` (those heard before the crossing: [`Resolver::ask_chain`]). Returns the extra
    /// movement points the handlers asked for (`{ cost = n }`). Stops if a handler moves or
    /// destroys the robot.
    fn cross(&self, robot: RobotId, from: Pos, dir: Dir, c: &Crossing) -> Result<i32> {
        Ok(self.hear_cross(robot, from, dir, c, false)?.1)
    }

    /// Asks the elements that declare `blocks` whether `robot` may cross from `from` toward
    /// `dir`; a refused edge is closed to it, a wall for the rest of this move. Returns
    /// whether it was refused, and the costs the handlers asked for.
    fn ask_cross(&self, robot: RobotId, from: Pos, dir: Dir, c: &Crossing) -> Result<(bool, i32)> {
        let (refused, cost) = self.hear_cross(robot, from, dir, c, true)?;
        if let Some(by) = refused {
            let closed = Closed {
                robot,
                at: from,
                dir,
                by,
            };
            self.world().close(closed);
        }
        Ok((refused.is_some(), cost))
    }

    /// `on_cross` told to the elements that declare `blocks` (`asking`: before the robot
    /// crosses; the first `{ block = true }` refuses the crossing and is returned as its
    /// tile) or to the others (after). Returns the refusing tile and the costs.
    fn hear_cross(
        &self,
        robot: RobotId,
        from: Pos,
        dir: Dir,
        c: &Crossing,
        asking: bool,
    ) -> Result<(Option<usize>, i32)> {
        let squares = [from, from.step(dir)];
        let about = About {
            robots: std::slice::from_ref(&robot),
            squares: Some(&squares),
            blocking: Some(asking),
        };
        let mut cost = 0;
        let mut refused = None;
        self.hear(
            Hook::Cross,
            about,
            None,
            |heard| {
                let leaving = heard.at == Some(from);
                let side = if leaving { dir } else { dir.opposite() };
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
                Ok((values::table(self.lua, (card, pusher), &fields)?,))
            },
            |heard, v| {
                let (block, n) = cross_result(v)?;
                cost += n;
                if !block {
                    return Ok(Flow::Go);
                }
                if !asking {
                    return Err("on_cross returned { block = true }, but this element does not declare `blocks`: only an element declared with `blocks = { lasers = ... }` is asked before a robot crosses, and may refuse it".into());
                }
                if let Who::Tile(t) = heard.who {
                    refused = Some(t);
                }
                Ok(Flow::Stop)
            },
        )?;
        Ok((refused, cost))
    }

    /// Puts a robot on a square directly and tells that square's scripts. `by` names what
    /// put it there, for the event (a script's cause).
    pub fn place(&self, id: RobotId, at: Pos, dir: Dir, how: How, by: Option<&str>) -> Result<()> {
        let arrival = self.world().place(id, at, dir, how, by);
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
        for a in arrivals {
            self.first_answer(Hook::Enter, a.robot, |_| Ok((info(a)?,)), |_| Ok(()))?;
        }
        Ok(())
    }

    pub(super) fn flush_conveys(&self) -> Result<()> {
        if let Err(e) = self.ask_conveys() {
            self.world().open_all();
            return Err(e);
        }
        let arrivals = self.world().flush_conveys();
        if self.link.any_blocking {
            self.world().open_all();
        }
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
            self.first_answer(Hook::Conveyed, a.robot, |_| Ok((dir,)), |_| Ok(()))?;
        }
        self.arrive(&arrivals)
    }

    /// Resolves the board pushers' pushes queued in this step together, then tells the
    /// squares, as a robot's own push would: the edge a wall stopped a chain at, and each
    /// robot's crossing and arrival, front of each chain first.
    pub(super) fn flush_pushes(&self) -> Result<()> {
        let queued = match self.link.any_blocking {
            true => self.link.world.borrow().queued_pushes(),
            false => Vec::new(),
        };
        for (id, dir) in queued {
            if let Err(e) = self.ask_chain(id, dir, How::Push, 0, None) {
                self.world().open_all();
                return Err(e);
            }
        }
        let (arrivals, blocked, chains) = self.world().flush_pushes();
        if self.link.any_blocking {
            self.world().open_all();
        }
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

    /// Asks the elements that may refuse a crossing (`blocks`) about each queued belt move
    /// a wall does not stop, before the belts move together: a refused one stays.
    fn ask_conveys(&self) -> Result<()> {
        if !self.link.any_blocking {
            return Ok(());
        }
        let queued = self.link.world.borrow().queued_conveys();
        let crossing = Crossing {
            how: How::Belt,
            blocked: false,
            remaining: 0,
            card: None,
            pusher: None,
        };
        for (robot, dir) in queued {
            let from = {
                let w = self.link.world.borrow();
                let r = &w.state.robots[robot];
                if !r.is_active() || !w.board.robot_can_cross(r.at, dir) {
                    continue;
                }
                r.at
            };
            self.ask_cross(robot, from, dir, &crossing)?;
        }
        Ok(())
    }

    /// Re-entry at the end of the turn (rules.md §7.5): in order of destruction, each robot
    /// with a life left comes back with 2 damage, or what its options make of it (Superior
    /// Archive, asked before anyone moves), on its archive or, if that is taken, on the
    /// square beside it its player chooses (question `reenter_square`, asked when several
    /// are legal: the squares as `[x, y]`, clockwise from due north, the first the default).
    pub(super) fn reenter(&self) -> Result<()> {
        let waiting = self.link.world.borrow().waiting_to_reenter();
        let mut damage = Vec::with_capacity(waiting.len());
        for &id in &waiting {
            damage.push(self.modify_number(id, "reentry_damage", REENTRY_DAMAGE)?);
        }
        let mut back = Vec::new();
        for (id, damage) in waiting.into_iter().zip(damage) {
            let squares = self.link.world.borrow().reentry_squares(id);
            let pick = if squares.len() > 1 {
                let choices: Vec<String> = squares.iter().map(|(p, _)| p.to_string()).collect();
                let answer = self.choose(
                    id,
                    crate::decision::REENTER_SQUARE,
                    choices.clone(),
                    false,
                    || {
                        let text =
                            "Its archive is taken: which square beside it does it re-enter on?";
                        (text.into(), Default::default())
                    },
                )?;
                choices.iter().position(|c| *c == answer).unwrap_or(0)
            } else {
                0
            };
            let spot = squares.get(pick).copied();
            self.world().reenter(id, spot, damage);
            if spot.is_some() {
                back.push(id);
            }
        }
        for id in back {
            self.hear(
                Hook::Reenter,
                About::robot(&id),
                None,
                |_| Ok(()),
                |_, _| Ok(Flow::Go),
            )?;
        }
        Ok(())
    }
}

/// Reads what an `on_cross` handler returned: nil, or `{ cost = n, block = true }` (either
/// key may be left out). Returns whether it refuses the crossing, and the cost.
fn cross_result(v: Value) -> std::result::Result<(bool, i32), String> {
    const SHAPE: &str = "it must return nil, { cost = n } or { block = true }";
    let t = match v {
        Value::Nil => return Ok((false, 0)),
        Value::Table(t) => t,
        other => {
            return Err(format!(
                "on_cross returned {}; {SHAPE}",
                crate::script::args::a(other.type_name())
            ))
        }
    };
    // A misspelt key (`{ blcok = true }`) would otherwise let the robot through unsaid.
    for pair in t.pairs::<Value, Value>() {
        let (key, _) = pair.map_err(|e| e.to_string())?;
        let name = match &key {
            Value::String(k) => k.to_string_lossy(),
            other => other.type_name().to_string(),
        };
        if name != "cost" && name != "block" {
            return Err(format!(
                "on_cross returned a table with the key `{}`{}; {SHAPE}",
                crate::text::clean_line(&name),
                crate::error::suggest(&name, ["cost", "block"])
            ));
        }
    }
    let cost = match t.get::<Value>("cost").map_err(|e| e.to_string())? {
        Value::Nil => 0,
        Value::Integer(n) if (0..=i64::from(i32::MAX)).contains(&n) => n as i32,
        _ => {
            return Err(format!(
                "on_cross returned a `cost` that is not a whole number of 0 or more; {SHAPE}"
            ))
        }
    };
    let block = match t.get::<Value>("block").map_err(|e| e.to_string())? {
        Value::Nil => false,
        Value::Boolean(b) => b,
        _ => {
            return Err(format!(
                "on_cross returned a `block` that is not true or false; {SHAPE}"
            ))
        }
    };
    Ok((block, cost))
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
