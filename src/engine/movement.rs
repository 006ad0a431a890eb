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
        let info = |pushing: Option<bool>| -> mlua::Result<Table> {
            let fields = [("dir", dir.name().into()), ("pushing", pushing.into())];
            values::table(self.lua, (), &fields)
        };
        for pair in chain.windows(2) {
            let (pusher, pushed) = (pair[0], pair[1]);
            let about = About {
                robots: &[pusher, pushed],
                squares: None,
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
    /// `from`, then on the square beyond that edge. Returns the extra movement points the
    /// handlers asked for (`{ cost = n }`). Stops if a handler moves or destroys the robot.
    fn cross(&self, robot: RobotId, from: Pos, dir: Dir, c: &Crossing) -> Result<i32> {
        let squares = [from, from.step(dir)];
        let about = About {
            robots: std::slice::from_ref(&robot),
            squares: Some(&squares),
        };
        let mut cost = 0;
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
            |_, v| {
                cost += match v {
                    Value::Nil => 0,
                    Value::Table(t) => t
                        .get::<Option<i32>>("cost")
                        .ok()
                        .flatten()
                        .filter(|n| *n >= 0)
                        .ok_or_else(|| {
                            "on_cross returned a table without a whole `cost` of 0 or more; it must return nil or { cost = n }".to_string()
                        })?,
                    other => {
                        return Err(format!(
                            "on_cross returned {}; it must return nil or {{ cost = n }}",
                            crate::script::args::a(other.type_name())
                        ))
                    }
                };
                Ok(Flow::Go)
            },
        )?;
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
        for a in arrivals {
            self.first_answer(Hook::Enter, a.robot, |_| Ok((info(a)?,)), |_| Ok(()))?;
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
            self.first_answer(Hook::Conveyed, a.robot, |_| Ok((dir,)), |_| Ok(()))?;
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
                    "Its archive is taken: which square beside it does it re-enter on?".into(),
                    Default::default(),
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
