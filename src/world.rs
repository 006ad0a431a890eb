//! The physical rules, enforced once, natively (design.md principle 3): stepping and pushing
//! chains against walls, the board edge, simultaneous belt moves and board pushes, laser beams,
//! damage, destruction (robots destroyed in one step are destroyed at the same time), repairs
//! and re-entry. Nothing here calls Lua; the engine calls the squares' scripts around these
//! primitives (a robot entering a pit is destroyed by `pit.lua`).

use crate::board::Board;
use crate::detail;
use crate::geometry::{Dir, Pos, Rotation};
use crate::state::{Detail, Robot, RobotId, State, StepSnapshot, LETHAL_DAMAGE};
use smallvec::SmallVec;
use std::rc::Rc;
use std::sync::Arc;

/// A few robots (a chain of pushes, a beam's hits, the robots a step moved): held without an
/// allocation of their own up to a crowded chain, as they are made on every step.
pub type Robots = SmallVec<[RobotId; 4]>;

/// How a robot came to enter a square; scripts see it as `how` ("card", "push", ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// Executing its own program card.
    Card,
    /// Pushed by a robot or a board element.
    Push,
    /// Carried by a belt or current.
    Belt,
    /// Jumped there while executing its own card, skipping the squares between (a
    /// teleporter, a portal): the card still moved it, but it did not drive in.
    Jump,
    /// Moved by a script in some other way (a slide, a re-entry...).
    Script,
}

impl How {
    pub fn name(self) -> &'static str {
        match self {
            How::Card => "card",
            How::Push => "push",
            How::Belt => "belt",
            How::Jump => "jump",
            How::Script => "script",
        }
    }

    pub fn parse(text: &str) -> Option<How> {
        [How::Card, How::Push, How::Belt, How::Jump, How::Script]
            .into_iter()
            .find(|h| h.name() == text)
    }
}

/// A robot that arrived on a square, for the engine to tell that square's scripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub robot: RobotId,
    pub at: Pos,
    pub dir: Dir,
    pub how: How,
}

/// Where a move was stopped: `robot` (the mover, or the front of the chain it pushed) could
/// not cross the edge of `at` towards `dir` (a wall, a one-way wall, a ledge from below...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocked {
    pub robot: RobotId,
    pub at: Pos,
    pub dir: Dir,
    /// The tile whose element refused the crossing (`on_cross` returned `{ block = true }`);
    /// `None`: a wall.
    pub by: Option<usize>,
}

/// An edge an element's `on_cross` refused one robot for the coming move ([`World::close`]):
/// for that robot it is a wall until the move is resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Closed {
    pub robot: RobotId,
    pub at: Pos,
    pub dir: Dir,
    /// The tile whose element refused it.
    pub by: usize,
}

/// What one step of movement did: the robots that arrived somewhere (to tell their squares),
/// and the chain that moved, the mover first and each robot pushed by the one before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stepped {
    pub arrivals: SmallVec<[Arrival; 2]>,
    pub chain: Robots,
}

/// What resolving the board pushers' pushes did (`World::flush_pushes`).
pub type FlushedPushes = (
    Vec<(Arrival, Option<RobotId>)>,
    Vec<Blocked>,
    Vec<(Robots, Dir)>,
);

/// Damage waiting to be applied at the end of a step (segment D fires all at once).
#[derive(Clone, Debug)]
pub struct Hit {
    pub robot: RobotId,
    pub amount: i32,
    /// What dealt it (`laser`, `robot laser`, a script's cause), shared with its events.
    pub cause: Arc<str>,
    /// The side of the robot the damage came from (a beam's source), if it has one:
    /// Power-Down Shield blocks 1 point per side (rules.md §6.4).
    pub from: Option<Dir>,
    /// Whether its player may scrap options to cancel it (§6.4); Fire Control's may not
    /// (rules.md §9 #22). Handlers see it as `info.absorb`.
    pub absorb: bool,
    /// The beam that dealt it, if a beam did.
    pub shot: Option<Shot>,
    /// The register (1..=5) its first token goes onto, locking it (Fire Control, rules.md
    /// §6.4 erratum); `None`: the tokens fill the sheet in its order (§1.3).
    pub register: Option<u8>,
}

impl Hit {
    /// `amount` damage to `robot` from a beam travelling in `dir` (so it comes from the
    /// opposite side), which its player may cancel by scrapping options.
    pub fn beam(robot: RobotId, amount: i32, cause: Arc<str>, dir: Dir, shot: Shot) -> Hit {
        Hit {
            robot,
            amount,
            cause,
            from: Some(dir.opposite()),
            shot: Some(shot),
            absorb: true,
            register: None,
        }
    }
}

/// Where a beam that hit came from: the square it started in (a board laser's emitter, the
/// shooter's square) and the robot that fired it (none for a board laser). The damage events
/// name them (`source`, `shooter`), so a log and a replay can say who shot whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shot {
    pub from: Pos,
    pub shooter: Option<RobotId>,
}

/// The game state together with the board it is played on, and what the current step has
/// queued (belt moves and laser hits are applied together when the step ends).
#[derive(Clone, Debug)]
pub struct World {
    pub board: Rc<Board>,
    pub state: State,
    conveys: Vec<(RobotId, Dir)>,
    /// Queued pushes, each with what pushes (`ctx:queue_push`'s cause, for the events).
    pushes: Vec<(RobotId, Dir, Option<String>)>,
    hits: Vec<Hit>,
    /// Edges elements refused robots for the move being resolved (a step, the step's belts or
    /// pushes): asked before the move, since a refusal must come before anything moves.
    closed: Vec<Closed>,
    /// Damage is queued instead of applied at once (segment D: one volley).
    pub defer_damage: bool,
    /// Robots destroyed since the engine last looked, in order: it tells the rules'
    /// `on_destroyed` (which, for one, discards an option, rules.md §6.5).
    pub destroyed_now: Vec<RobotId>,
    /// Destructions now happen "at the same time" (rules.md §7.5 item 5): they share the
    /// moment `begin_moment` opened, and re-enter in dock order among themselves. Off, each
    /// destruction is a moment of its own (cards resolve one at a time).
    simultaneous: bool,
    /// While noting (`Some`), the robots after every step and card in which something
    /// happened; the first entry is where the register began ([`World::note`]).
    pub noted: Option<Vec<StepSnapshot>>,
    /// Robots that touched the last flag and are not yet ranked ([`World::rank_arrivals`]).
    arrivals: Vec<RobotId>,
}

impl World {
    pub fn new(board: Rc<Board>, state: State) -> World {
        World {
            board,
            state,
            conveys: Vec::new(),
            pushes: Vec::new(),
            hits: Vec::new(),
            closed: Vec::new(),
            defer_damage: false,
            destroyed_now: Vec::new(),
            simultaneous: false,
            noted: None,
            arrivals: Vec::new(),
        }
    }

    /// Opens a new moment of destruction: from now until the next moment, robots destroyed
    /// while `simultaneous` is on are destroyed at the same time (one step of the order of
    /// play whose effects apply together: a volley, a belt or pusher step, a crusher step).
    pub fn begin_moment(&mut self, simultaneous: bool) {
        self.state.destructions += 1;
        self.simultaneous = simultaneous;
    }

    /// Has the current step queued belt moves, pushes or hits?
    pub fn has_queued(&self) -> bool {
        !(self.conveys.is_empty() && self.pushes.is_empty() && self.hits.is_empty())
    }

    /// How many belt moves, pushes and hits the current step has queued (`--trace`).
    pub fn queued_counts(&self) -> [usize; 3] {
        [self.conveys.len(), self.pushes.len(), self.hits.len()]
    }

    /// Forgets what the current step queued (a failed register is rolled back).
    pub fn forget_queued(&mut self) {
        self.conveys.clear();
        self.pushes.clear();
        self.hits.clear();
        self.closed.clear();
        self.destroyed_now.clear();
        self.arrivals.clear();
    }

    /// Closes an edge to one robot until [`World::open_all`]: a script's element refused it.
    pub fn close(&mut self, closed: Closed) {
        self.closed.push(closed);
    }

    /// Opens the edges closed for the move just resolved.
    pub fn open_all(&mut self) {
        self.closed.clear();
    }

    /// The tile that closed the edge from `at` towards `dir` to `robot`, if one did.
    fn closed_by(&self, robot: RobotId, at: Pos, dir: Dir) -> Option<usize> {
        // Almost always: no element on the board refuses crossings.
        if self.closed.is_empty() {
            return None;
        }
        self.closed
            .iter()
            .find(|c| c.robot == robot && c.at == at && c.dir == dir)
            .map(|c| c.by)
    }

    /// The queued belt moves (the engine asks elements about their crossings before they
    /// are resolved).
    pub fn queued_conveys(&self) -> Vec<(RobotId, Dir)> {
        self.conveys.clone()
    }

    /// The queued pushes, as [`World::queued_conveys`].
    pub fn queued_pushes(&self) -> Vec<(RobotId, Dir)> {
        self.pushes.iter().map(|(id, dir, _)| (*id, *dir)).collect()
    }

    /// While noting steps, notes the robots after `step` (and the card of `robot`) if
    /// anything happened since the last note: an event, or a robot that changed.
    pub fn note(&mut self, step: &str, robot: Option<RobotId>) {
        let Some(noted) = &mut self.noted else {
            return;
        };
        let (events, robots) = (self.state.events.len(), &self.state.robots);
        if noted
            .last()
            .is_some_and(|m| m.events == events && m.robots == *robots)
        {
            return;
        }
        noted.push(StepSnapshot {
            step: step.to_string(),
            robot: robot.map(|id| robots[id].name.to_string()),
            events,
            robots: robots.clone(),
        });
    }

    pub fn robot_at(&self, p: Pos) -> Option<RobotId> {
        self.state.robot_at(p)
    }

    /// One square of movement in `dir`, pushing any robots ahead (rules.md §3.2). Either the
    /// whole chain moves or, if any robot in it would cross a wall, nothing does (logged as
    /// `blocked`, or `push_blocked` naming the robot it could not push, with the wall).
    /// Returns the arrivals (pushed robots first) and the chain, or where the move was stopped.
    /// `by` is what moves it, when a script said (`ctx:move`'s cause): each event says it.
    pub fn step(
        &mut self,
        id: RobotId,
        dir: Dir,
        how: How,
        by: Option<&str>,
    ) -> Result<Stepped, Blocked> {
        let (chain, walled) = self.chain(id, dir);
        if let Some(blocked) = walled {
            let what = if chain.len() > 1 {
                "push_blocked"
            } else {
                "blocked"
            };
            self.log_blocked(id, what, &chain, blocked);
            return Err(blocked);
        }
        let mut arrivals = SmallVec::with_capacity(chain.len());
        for (i, &rid) in chain.iter().enumerate().rev() {
            let how = if i == 0 { how } else { How::Push };
            let to = self.state.robots[rid].at.step(dir);
            self.state.robots[rid].at = to;
            let what = if i == 0 { "moved" } else { "pushed" };
            self.state.log(Some(rid), what, || {
                let mut detail = detail! {"dir" => dir, "how" => how.name(), "to" => to};
                caused(&mut detail, by);
                detail
            });
            if self.fell_off(rid) {
                continue;
            }
            arrivals.push(Arrival {
                robot: rid,
                at: to,
                dir,
                how,
            });
        }
        Ok(Stepped { arrivals, chain })
    }

    /// Logs why the move or push of `id` was stopped: the wall (the side `dir` of square
    /// `wall`) and, when it pushed robots, the one right ahead of it (`pushing`).
    fn log_blocked(&mut self, id: RobotId, what: &'static str, chain: &[RobotId], wall: Blocked) {
        if self.state.quiet {
            return;
        }
        let mut detail = match wall.by {
            None => detail! {"dir" => wall.dir, "wall" => wall.at},
            Some(t) => self.refusal(t, wall.dir),
        };
        if let Some(&ahead) = chain.get(1) {
            let name = self.state.robots[ahead].name.clone();
            detail.insert("pushing", name);
        }
        self.state.log(Some(id), what, detail);
    }

    /// What a `blocked` event says of an element that refused a crossing: the element and
    /// its square.
    fn refusal(&self, tile: usize, dir: Dir) -> Detail {
        let tile = &self.board.tiles[tile];
        detail! {"at" => tile.at, "dir" => dir, "element" => tile.name.clone()}
    }

    /// The robot and the robots in line ahead of it in `dir`, up to the first free square
    /// (rules.md §3.2), and where a wall (or an edge an element closed to that robot) stops
    /// the chain, if one does.
    pub fn chain(&self, id: RobotId, dir: Dir) -> (Robots, Option<Blocked>) {
        let mut chain = Robots::from_elem(id, 1);
        let mut p = self.state.robots[id].at;
        loop {
            let robot = *chain.last().expect("the chain starts with the mover");
            let by = self.closed_by(robot, p, dir);
            if by.is_some() || !self.board.robot_can_cross(p, dir) {
                return (
                    chain,
                    Some(Blocked {
                        robot,
                        at: p,
                        dir,
                        by,
                    }),
                );
            }
            p = p.step(dir);
            match self.robot_at(p) {
                Some(next) if self.board.contains(p) => chain.push(next),
                _ => return (chain, None),
            }
        }
    }

    /// Queues a board pusher's push of a robot (and the chain ahead of it), resolved with
    /// every other push queued in the step when the step ends.
    /// `by` says what pushes, when a script said (`ctx:queue_push`'s cause).
    pub fn queue_push(&mut self, id: RobotId, dir: Dir, by: Option<String>) {
        if !self.pushes.iter().any(|(r, d, _)| (*r, *d) == (id, dir)) {
            self.pushes.push((id, dir, by));
        }
    }

    /// Resolves the queued pushes together (rules.md §5.2, last paragraph), from the board as
    /// it stands before any of them, so that no result depends on board order. Each push moves
    /// its robot and the chain ahead of it 1 square, all or nothing: a push whose chain a wall
    /// stops does nothing. Of the others, two that would move one robot different ways
    /// (opposed, or at right angles) both do nothing, and so do two that would bring robots
    /// into one square, as with belts. A robot two pushes move the same way moves once.
    /// Returns the arrivals (each with the robot that pushed it, if one did: the robot on the
    /// pusher pushes the rest of its chain, as a moving robot does), the pushes walls
    /// stopped, and the chains that moved, each robot in them shoving the next (`on_push`).
    pub fn flush_pushes(&mut self) -> FlushedPushes {
        struct Push {
            dir: Dir,
            by: Option<String>,
            chain: Robots,
            walled: Option<Blocked>,
            /// The square the front of the chain moves into.
            front: Pos,
        }
        let pushes: Vec<Push> = std::mem::take(&mut self.pushes)
            .into_iter()
            // A robot destroyed since its push was queued has left the board.
            .filter(|(id, _, _)| self.state.robots[*id].is_active())
            .map(|(id, dir, by)| {
                let (chain, walled) = self.chain(id, dir);
                let front = self.state.robots[chain[chain.len() - 1]].at.step(dir);
                Push {
                    dir,
                    by,
                    chain,
                    walled,
                    front,
                }
            })
            .collect();
        let clash = |a: &Push, b: &Push| {
            a.dir != b.dir
                && b.walled.is_none()
                && (a.front == b.front || a.chain.iter().any(|r| b.chain.contains(r)))
        };
        let mut blocked = Vec::new();
        let mut chains = Vec::new();
        let mut moves: Vec<(RobotId, Dir, Option<RobotId>, Option<&str>)> = Vec::new();
        for (i, push) in pushes.iter().enumerate() {
            let (head, dir) = (push.chain[0], push.dir);
            if let Some(wall) = push.walled {
                self.log_blocked(head, "push_blocked", &push.chain, wall);
                blocked.push(wall);
            } else if pushes
                .iter()
                .enumerate()
                .any(|(j, other)| i != j && clash(push, other))
            {
                self.state
                    .log(Some(head), "push_cancelled", || detail! {"dir" => dir});
            } else {
                chains.push((push.chain.clone(), dir));
                // Front of the chain first, as a robot's own push tells them.
                for (k, &robot) in push.chain.iter().enumerate().rev() {
                    if !moves.iter().any(|(r, _, _, _)| *r == robot) {
                        let by = push.by.as_deref();
                        moves.push((robot, dir, (k > 0).then_some(head), by));
                    }
                }
            }
        }
        for &(id, dir, _, by) in &moves {
            let to = self.state.robots[id].at.step(dir);
            self.state.robots[id].at = to;
            self.state.log(Some(id), "pushed", || {
                let mut detail = detail! {"dir" => dir, "how" => "push", "to" => to};
                caused(&mut detail, by);
                detail
            });
        }
        let mut arrivals = Vec::with_capacity(moves.len());
        for (robot, dir, pusher, _) in moves {
            if !self.fell_off(robot) {
                let at = self.state.robots[robot].at;
                let how = How::Push;
                arrivals.push((
                    Arrival {
                        robot,
                        at,
                        dir,
                        how,
                    },
                    pusher,
                ));
            }
        }
        (arrivals, blocked, chains)
    }

    /// Destroys a robot standing off the board; true if it did.
    fn fell_off(&mut self, id: RobotId) -> bool {
        let off = !self.board.contains(self.state.robots[id].at);
        if off {
            self.destroy(id, "off the board");
        }
        off
    }

    /// Puts a robot on a square directly (teleports, slides, re-entry by scripts).
    /// `by` is what puts it there, when a script said (`ctx:place`'s cause).
    pub fn place(
        &mut self,
        id: RobotId,
        at: Pos,
        dir: Dir,
        how: How,
        by: Option<&str>,
    ) -> Option<Arrival> {
        self.state.robots[id].at = at;
        self.state.log(Some(id), "placed", || {
            let mut detail = detail! {"how" => how.name(), "to" => at};
            caused(&mut detail, by);
            detail
        });
        (!self.fell_off(id)).then_some(Arrival {
            robot: id,
            at,
            dir,
            how,
        })
    }

    pub fn rotate(&mut self, id: RobotId, rotation: Rotation) {
        let r = &mut self.state.robots[id];
        r.facing = r.facing.turned(rotation);
        let facing = r.facing;
        self.state.log(
            Some(id),
            "turned",
            || detail! {"facing" => facing, "rotation" => rotation.name()},
        );
    }

    pub fn face(&mut self, id: RobotId, dir: Dir) {
        self.state.robots[id].facing = dir;
        self.state
            .log(Some(id), "faced", || detail! {"facing" => dir});
    }

    pub fn destroy(&mut self, id: RobotId, cause: &str) {
        if self.state.robots[id].destroyed {
            return;
        }
        if !self.simultaneous {
            self.state.destructions += 1;
        }
        let order = self.state.destructions;
        let r = &mut self.state.robots[id];
        r.destroyed = true;
        r.lives = r.lives.saturating_sub(1);
        r.destroyed_order = Some(order);
        let lives = r.lives;
        self.destroyed_now.push(id);
        self.state.log(
            Some(id),
            "destroyed",
            || detail! {"cause" => cause.to_string(), "lives" => lives},
        );
    }

    /// Queues a hit, applied with the rest of the volley when the step ends (segment D).
    /// The engine decides between this and [`World::apply_damage`] (`Resolver::hit`),
    /// because applying damage asks the robot's options and the rules first.
    pub fn queue_hit(&mut self, hit: Hit) {
        self.hits.push(hit);
    }

    /// The queued hits, in the order they were fired.
    pub fn take_hits(&mut self) -> Vec<Hit> {
        std::mem::take(&mut self.hits)
    }

    /// Adds damage tokens (after options and rules had their say); 10 destroys. With
    /// `register`, the first token lies on that register and locks it, unless it is locked
    /// already (then it is an ordinary token). A powered-down robot's registers that lock
    /// empty get the top card of the deck at once (rules.md §7.4 item 5).
    pub fn apply_damage(&mut self, hit: &Hit, amount: i32) {
        let id = hit.robot;
        if amount <= 0 || self.state.robots[id].destroyed {
            return;
        }
        let r = &mut self.state.robots[id];
        let onto = hit
            .register
            .filter(|&n| !crate::deal::is_locked(r, (n as usize).wrapping_sub(1)));
        r.damage = r.damage.saturating_add(amount).min(LETHAL_DAMAGE);
        r.tokens.extend(onto);
        let total = r.damage;
        if !self.state.quiet {
            let mut detail =
                detail! {"amount" => amount, "cause" => hit.cause.clone(), "damage" => total};
            if let Some(n) = onto {
                detail.insert("in_register", n);
            }
            self.describe_shot(hit.shot, &mut detail);
            self.state.log(Some(id), "damaged", detail);
        }
        if total >= LETHAL_DAMAGE {
            self.destroy(id, &hit.cause);
        } else if self.state.robots[id].powered_down {
            crate::deal::fill_new_locks(&mut self.state, &[id]);
        }
    }

    /// Adds where a beam came from to a damage event: `source` (its first square) and
    /// `shooter` (the robot that fired it, if one did).
    pub fn describe_shot(&self, shot: Option<Shot>, detail: &mut Detail) {
        if let Some(shot) = shot {
            detail.insert("source", shot.from);
            if let Some(shooter) = shot.shooter {
                let name = &self.state.robots[shooter].name;
                detail.insert("shooter", name.clone());
            }
        }
    }

    /// Takes away up to `amount` damage tokens, each unlocking the lowest locked register
    /// (rules.md §1.3).
    pub fn repair(&mut self, id: RobotId, amount: i32) {
        let r = &mut self.state.robots[id];
        let before = r.damage;
        for _ in 0..amount.max(0) {
            if !crate::deal::repair_one(r) {
                break;
            }
        }
        let repaired = before - r.damage;
        if repaired > 0 {
            let damage = r.damage;
            self.state.log(
                Some(id),
                "repaired",
                || detail! {"amount" => repaired, "damage" => damage},
            );
        }
    }

    /// Sets how many lives a robot has left (house rules such as more lives); never below 0.
    pub fn set_lives(&mut self, id: RobotId, lives: i32) {
        let lives = lives.max(0);
        if self.state.robots[id].lives != lives {
            self.state.robots[id].lives = lives;
            self.state
                .log(Some(id), "lives", || detail! {"lives" => lives});
        }
    }

    /// Counts checkpoint `number` if it is the robot's next one (rules.md §7.1) and it has
    /// counted none yet this register: the next flag is available from the next register
    /// [prop.] (a Mechanical Arm reaches several flags at once).
    pub fn touch_flag(&mut self, id: RobotId, number: u32) -> bool {
        // A flag the course does not have is never touched (a save counting it is refused).
        if self.state.robots[id].flags.checked_add(1) != Some(number)
            || number as usize > self.board.flags().len()
            || self.counted_flag_this_register(id)
        {
            return false;
        }
        let r = &mut self.state.robots[id];
        r.flags = number;
        let total = self
            .board
            .flags()
            .iter()
            .map(|(n, _)| *n)
            .max()
            .unwrap_or(0);
        self.state
            .log(Some(id), "flag", || detail! {"number" => number});
        if number >= total {
            self.arrivals.push(id);
        }
        true
    }

    /// Ranks the robots that touched the last flag since the last ranking (rules.md §7.1):
    /// by the priority of their card this register, higher first (ruling #10), then in
    /// robot order. The first robot of the game to get there logs `won`; every later one
    /// `finished` with its `place`. A game is won once. The engine ranks at the end of every
    /// step.
    pub fn rank_arrivals(&mut self) {
        if self.arrivals.is_empty() {
            return;
        }
        let mut arrivals = std::mem::take(&mut self.arrivals);
        let register = self.state.register;
        let robots = &self.state.robots;
        arrivals.sort_by_key(|&id| {
            let priority = (register > 0)
                .then(|| robots[id].card(register).and_then(|c| c.priority))
                .flatten();
            (std::cmp::Reverse(priority), id)
        });
        for id in arrivals {
            let name = self.state.robots[id].name.clone();
            if self.state.finished.iter().any(|f| **f == *name) {
                continue;
            }
            self.state.finished.push(name.to_string());
            let place = self.state.finished.len();
            if place == 1 {
                self.state.log(Some(id), "won", || detail! {});
            } else {
                self.state
                    .log(Some(id), "finished", || detail! {"place" => place as u32});
            }
        }
    }

    /// Did the robot count a flag earlier in this register? The log of this register says.
    fn counted_flag_this_register(&self, id: RobotId) -> bool {
        let (turn, register) = (self.state.turn, self.state.register);
        let name = &*self.state.robots[id].name;
        self.state
            .events
            .iter()
            .rev()
            .take_while(|e| e.turn == turn && e.register == register)
            .any(|e| e.what == "flag" && e.robot.as_deref() == Some(name))
    }

    pub fn set_archive(&mut self, id: RobotId, at: Pos) {
        if self.state.robots[id].archive != at {
            self.state.robots[id].archive = at;
            self.state
                .log(Some(id), "archived", || detail! {"at" => at});
        }
    }

    /// Queues a belt move, resolved with all the others when the step ends.
    pub fn convey(&mut self, id: RobotId, dir: Dir) {
        if !self.conveys.iter().any(|(r, _)| *r == id) {
            self.conveys.push((id, dir));
        }
    }

    /// Resolves the queued belt moves at the same time (rules.md §5.2): moves across walls,
    /// into a square two robots want, and head-on swaps are cancelled; then, until nothing
    /// changes, a move into a square held by a robot that is not leaving is cancelled. Belts
    /// never push. Returns the arrivals.
    pub fn flush_conveys(&mut self) -> Vec<Arrival> {
        let moves = std::mem::take(&mut self.conveys);
        if moves.is_empty() {
            return Vec::new();
        }
        let robots = &self.state.robots;
        let from: Vec<Pos> = moves.iter().map(|(id, _)| robots[*id].at).collect();
        let to: Vec<Pos> = moves
            .iter()
            .map(|(id, d)| robots[*id].at.step(*d))
            .collect();
        let passable: Vec<bool> = moves
            .iter()
            .map(|&(id, d)| {
                let at = robots[id].at;
                self.board.robot_can_cross(at, d) && self.closed_by(id, at, d).is_none()
            })
            .collect();
        for &(id, d) in moves.iter().filter(|_| !self.closed.is_empty()) {
            if let Some(t) = self.closed_by(id, self.state.robots[id].at, d) {
                let detail = self.refusal(t, d);
                self.state.log(Some(id), "blocked", detail);
            }
        }
        // Two robots wanting one square, or swapping squares: both stay.
        let mut ok = passable.clone();
        for i in 0..moves.len() {
            for j in 0..moves.len() {
                let clash = to[i] == to[j] || (to[i] == from[j] && to[j] == from[i]);
                if i != j && passable[i] && passable[j] && clash {
                    ok[i] = false;
                }
            }
        }
        loop {
            let mut changed = false;
            for i in 0..moves.len() {
                if !ok[i] {
                    continue;
                }
                if let Some(holder) = self.robot_at(to[i]) {
                    let leaving = moves.iter().zip(&ok).any(|((r, _), &k)| *r == holder && k);
                    if !leaving {
                        ok[i] = false;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut arrivals = Vec::new();
        for (i, &(id, dir)) in moves.iter().enumerate() {
            if ok[i] {
                self.state.robots[id].at = to[i];
                self.state.log(
                    Some(id),
                    "conveyed",
                    || detail! {"dir" => dir, "to" => to[i]},
                );
            }
        }
        for (i, &(id, dir)) in moves.iter().enumerate() {
            if ok[i] && !self.fell_off(id) {
                arrivals.push(Arrival {
                    robot: id,
                    at: to[i],
                    dir,
                    how: How::Belt,
                });
            }
        }
        arrivals
    }

    /// The robots a beam from `from` in `dir` hits, in order ([`trace`] on this game).
    pub fn trace_beam(&self, from: Pos, dir: Dir, skip_start: bool, through: u32) -> Robots {
        trace(
            &self.board,
            &self.state.robots,
            from,
            dir,
            skip_start,
            through,
        )
        .hits
    }

    /// Is there a robot within `range` squares of `from` looking along `dir`? Walls block
    /// the line of sight as they block a laser (rules.md §7.5 item 5a [prop.]): a repulsor
    /// field or a ledge stops robots but not the view.
    fn robot_in_sight(&self, from: Pos, dir: Dir, range: i32) -> bool {
        self.look(from, dir, range).robot.is_some()
    }

    /// What a line of sight from `from` along `dir` meets within `range` squares (`ctx:trace`,
    /// the re-entry facing rule): it crosses edges as a laser beam does, and stops at the
    /// first robot, at a wall (what stops lasers) or at the board's edge.
    pub fn look(&self, from: Pos, dir: Dir, range: i32) -> Sight {
        let mut sight = Sight {
            squares: Vec::new(),
            robot: None,
            wall: None,
        };
        let mut p = from;
        for _ in 0..range {
            if !self.board.laser_can_cross(p, dir) {
                sight.wall = Some(p);
                break;
            }
            p = p.step(dir);
            if !self.board.contains(p) {
                break;
            }
            sight.squares.push(p);
            if let Some(r) = self.robot_at(p) {
                sight.robot = Some(r);
                break;
            }
        }
        sight
    }

    /// The robots waiting to re-enter: destroyed, with a life left, in order of destruction;
    /// robots destroyed at the same time in dock order (rules.md §7.5 item 5), which is the
    /// order of the robots (a game keeps its robots in dock order; a scenario lists them so).
    pub fn waiting_to_reenter(&self) -> Vec<RobotId> {
        let mut waiting: Vec<RobotId> = (0..self.state.robots.len())
            .filter(|&i| {
                let r = &self.state.robots[i];
                r.destroyed && r.lives > 0
            })
            .collect();
        waiting.sort_by_key(|&i| (self.state.robots[i].destroyed_order.unwrap_or(0), i));
        waiting
    }

    /// Where robot `id` may re-enter (rules.md §7.5): its archive if that is free; else the
    /// free squares of the nearest ring around it (clockwise from due north) that are not a
    /// hazard and allow a facing with no robot within 3 squares in sight, each with the
    /// facing it would have (its own if allowed, else the first of N, E, S, W). Its player
    /// chooses among several (`Resolver::reenter`); none: it cannot re-enter this turn.
    pub fn reentry_squares(&self, id: RobotId) -> Vec<(Pos, Dir)> {
        let (archive, facing) = (self.state.robots[id].archive, self.state.robots[id].facing);
        if self.robot_at(archive).is_none() && self.board.contains(archive) {
            return vec![(archive, facing)];
        }
        let reach = self.board.width.max(self.board.height);
        for ring in 1..=reach {
            let legal: Vec<(Pos, Dir)> = ring_squares(archive, ring)
                .into_iter()
                .filter(|&p| !self.board.is_hazard(p) && self.robot_at(p).is_none())
                .filter_map(|p| {
                    let facings = std::iter::once(facing).chain(Dir::ALL);
                    let f = facings
                        .into_iter()
                        .find(|&f| !self.robot_in_sight(p, f, 3))?;
                    Some((p, f))
                })
                .collect();
            if !legal.is_empty() {
                return legal;
            }
        }
        Vec::new()
    }

    /// Puts robot `id` back on the board at `at`, facing `facing`, with `damage` (rules.md
    /// §7.5), or logs `reentry_failed` when it has nowhere to go (`None`).
    pub fn reenter(&mut self, id: RobotId, spot: Option<(Pos, Dir)>, damage: i32) {
        let Some((at, facing)) = spot else {
            let archive = self.state.robots[id].archive;
            self.state.log(
                Some(id),
                "reentry_failed",
                || detail! {"archive" => archive},
            );
            return;
        };
        let damage = damage.clamp(0, LETHAL_DAMAGE - 1);
        let r = &mut self.state.robots[id];
        r.at = at;
        r.facing = facing;
        r.destroyed = false;
        r.destroyed_order = None;
        crate::deal::set_damage(r, damage);
        self.state.log(
            Some(id),
            "reentered",
            || detail! {"at" => at, "damage" => damage, "facing" => facing},
        );
    }
}

/// Option cards (rules.md §6.6, §7.3): the deck, the discards and what robots hold. Which
/// options exist is the scripts' business (`scripts/options/`); the engine passes the
/// catalogue in, as `(name, uses)` pairs.
impl World {
    /// Draws the top option for a robot and returns its name; `None` when the deck and the
    /// discards are both empty. The first draw of a game shuffles every catalogued option
    /// that no robot holds into the deck; an empty deck takes the discards, shuffled (game
    /// RNG both times, so a game replays the same).
    pub fn draw_option(
        &mut self,
        id: RobotId,
        catalogue: &[(String, Option<u32>)],
    ) -> Option<String> {
        let state = &mut self.state;
        if state.option_deck.is_none() {
            let held: Vec<&str> = state
                .robots
                .iter()
                .flat_map(|r| r.options.iter().map(|o| o.name.as_str()))
                .collect();
            let mut deck: Vec<String> = catalogue
                .iter()
                .map(|(n, _)| n.clone())
                .filter(|n| !held.contains(&n.as_str()))
                .collect();
            state.rng.shuffle(&mut deck);
            state.option_deck = Some(deck);
        }
        let deck = state.option_deck.get_or_insert_with(Vec::new);
        if deck.is_empty() && !state.option_discards.is_empty() {
            deck.append(&mut state.option_discards);
            state.rng.shuffle(deck);
        }
        let Some(name) = deck.pop() else {
            state.log(Some(id), "option_deck_empty", || detail! {});
            return None;
        };
        let uses_left = catalogue
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, uses)| *uses);
        state.robots[id].options.push(crate::state::HeldOption {
            name: name.clone(),
            uses_left,
        });
        state.log(
            Some(id),
            "option_drawn",
            || detail! {"option" => name.to_string()},
        );
        Some(name)
    }

    /// Scraps a held option onto the discards; `why` goes in the event ("absorbed",
    /// "destroyed", "swapped", "used up"...). False if the robot does not hold it.
    pub fn discard_option(&mut self, id: RobotId, name: &str, why: &str) -> bool {
        let Some(i) = self.state.robots[id].option(name) else {
            return false;
        };
        let option = self.state.robots[id].options.remove(i);
        self.state.option_discards.push(option.name);
        self.state.log(
            Some(id),
            "option_discarded",
            || detail! {"option" => name.to_string(), "why" => why.to_string()},
        );
        // A program card set aside on the option goes with it (Flywheel's).
        if let Some(kept) = self.state.robots[id].kept.remove(name) {
            self.state.log(
                Some(id),
                "card_unkept",
                || detail! {"card" => kept.card.text(), "key" => name.to_string()},
            );
        }
        true
    }

    /// Spends `n` ammunition of a held option. False (and nothing spent) if it is not held
    /// or has fewer uses left; an option without a limit always has enough.
    pub fn use_option(&mut self, id: RobotId, name: &str, n: u32) -> bool {
        let Some(i) = self.state.robots[id].option(name) else {
            return false;
        };
        let option = &mut self.state.robots[id].options[i];
        let left = match option.uses_left {
            None => return true,
            Some(left) if left < n => return false,
            Some(left) => left - n,
        };
        option.uses_left = Some(left);
        self.state.log(
            Some(id),
            "option_used",
            || detail! {"option" => name.to_string(), "uses_left" => left},
        );
        true
    }

    /// Refills a held option's ammunition to `full` (a chop shop's reload, rules.md §4.2).
    pub fn reload_option(&mut self, id: RobotId, name: &str, full: u32) -> bool {
        let Some(i) = self.state.robots[id].option(name) else {
            return false;
        };
        self.state.robots[id].options[i].uses_left = Some(full);
        self.state.log(
            Some(id),
            "option_reloaded",
            || detail! {"option" => name.to_string(), "uses_left" => full},
        );
        true
    }
}

/// Adds what caused a move to its event (`by`), when a script named it.
fn caused(detail: &mut Detail, by: Option<&str>) {
    if let Some(by) = by {
        detail.insert("by", by.to_string());
    }
}

/// What a line of sight met ([`World::look`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sight {
    /// The squares it reached, nearest first (the robot's included).
    pub squares: Vec<Pos>,
    /// The first robot in it.
    pub robot: Option<RobotId>,
    /// The square whose edge in the direction looked stopped it, when a wall did.
    pub wall: Option<Pos>,
}

/// Where a beam went: the robots it hit, in order, and the last square it reached (the
/// square of the robot that stopped it, or the last one before a wall or the board's edge).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beam {
    pub hits: Robots,
    pub end: Pos,
}

/// Traces a beam from `from` in `dir` among `robots` (rules.md §6.1, §6.2). The beam starts in
/// `from` itself (a board laser's emitter square) unless `skip_start` (a robot firing). Walls
/// and robots stop it, except that it goes on through the first `through` of them
/// (High-Power Laser: one wall or robot); a robot it goes through is hit too. The engine fires
/// with it and the pictures draw beams with it, so a drawn beam ends where a shot would.
pub fn trace(
    board: &Board,
    robots: &[Robot],
    from: Pos,
    dir: Dir,
    skip_start: bool,
    through: u32,
) -> Beam {
    // The robots on the beam's row or column: each square it reaches is checked against
    // those few only (a bit per robot; a crowd beyond 64 robots is checked in full).
    let line = |r: &Robot| {
        r.is_active()
            && if dir.is_vertical() {
                r.at.x == from.x
            } else {
                r.at.y == from.y
            }
    };
    let on_line: u64 = robots
        .iter()
        .take(64)
        .enumerate()
        .filter(|(_, r)| line(r))
        .fold(0, |bits, (i, _)| bits | 1 << i);
    let robot_at = |p: Pos| {
        if robots.len() > 64 {
            return robots.iter().position(|r| r.is_active() && r.at == p);
        }
        let mut bits = on_line;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            if robots[i].at == p {
                return Some(i);
            }
            bits &= bits - 1;
        }
        None
    };
    // The nearest robot on the line 1 to `reach` squares ahead of `p` (the first in robot
    // order if two share a square), and its square.
    let (dx, dy) = dir.delta();
    let nearest_ahead = |p: Pos, reach: u32| {
        let ahead = |r: &Robot| {
            let d = (r.at.x - p.x) * dx + (r.at.y - p.y) * dy;
            (d >= 1 && d as u32 <= reach).then_some(d)
        };
        let mut nearest: Option<(i32, RobotId)> = None;
        let mut consider = |i: RobotId| {
            if let Some(d) = ahead(&robots[i]) {
                if nearest.is_none_or(|(best, _)| d < best) {
                    nearest = Some((d, i));
                }
            }
        };
        if robots.len() > 64 {
            (0..robots.len())
                .filter(|&i| line(&robots[i]))
                .for_each(&mut consider);
        } else {
            let mut bits = on_line;
            while bits != 0 {
                consider(bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
        nearest.map(|(_, i)| (i, robots[i].at))
    };
    let mut hits = Robots::new();
    let mut passes = through;
    // Each obstacle either stops the beam or uses up one pass.
    let mut stops = || {
        if passes == 0 {
            return true;
        }
        passes -= 1;
        false
    };
    let mut p = from;
    if !skip_start {
        if let Some(r) = robot_at(p) {
            hits.push(r);
            if stops() {
                return Beam { hits, end: p };
            }
        }
    }
    // Stretch by stretch: from `p` the beam crosses `reach` squares unless a robot on the
    // way stops it; at the stretch's end a wall stops it (or uses up a pass), or the edge.
    loop {
        let reach = board.laser_reach(p, dir);
        if let Some((r, at)) = nearest_ahead(p, reach) {
            hits.push(r);
            p = at;
            if stops() {
                break;
            }
            continue;
        }
        p = p.offset(dir, reach as i32);
        let beyond = p.step(dir);
        if !board.contains(p) || !board.contains(beyond) || stops() {
            break;
        }
        p = beyond;
        if let Some(r) = robot_at(p) {
            hits.push(r);
            if stops() {
                break;
            }
        }
    }
    Beam { hits, end: p }
}

/// The squares at Chebyshev distance `ring` from `c`, clockwise starting due north.
fn ring_squares(c: Pos, ring: i32) -> Vec<Pos> {
    let mut out = Vec::with_capacity(8 * ring as usize);
    // Walk the square's perimeter clockwise from the top-left corner, then rotate the list so
    // it starts at the square due north of the centre.
    let (x0, y0, x1, y1) = (c.x - ring, c.y - ring, c.x + ring, c.y + ring);
    for x in x0..x1 {
        out.push(Pos::new(x, y0));
    }
    for y in y0..y1 {
        out.push(Pos::new(x1, y));
    }
    for x in (x0 + 1..=x1).rev() {
        out.push(Pos::new(x, y1));
    }
    for y in (y0 + 1..=y1).rev() {
        out.push(Pos::new(x0, y));
    }
    let north = out
        .iter()
        .position(|p| *p == Pos::new(c.x, y0))
        .unwrap_or(0);
    out.rotate_left(north);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_starts_north_and_goes_clockwise() {
        let r = ring_squares(Pos::new(5, 5), 1);
        assert_eq!(
            r,
            vec![
                Pos::new(5, 4),
                Pos::new(6, 4),
                Pos::new(6, 5),
                Pos::new(6, 6),
                Pos::new(5, 6),
                Pos::new(4, 6),
                Pos::new(4, 5),
                Pos::new(4, 4)
            ]
        );
        assert_eq!(ring_squares(Pos::new(0, 0), 2).len(), 16);
    }

    /// Laser beams (rules.md §6.1, §6.2) on random walled boards: [`trace`] follows a beam
    /// by stretches (each square's reach before a wall or the edge, kept with the board, and
    /// the robots on the beam's line), and must hit the same robots and end on the same
    /// square as a beam walked square by square, the way the rules describe it: on until a
    /// wall, a robot or the board's edge stops it, a pass (High-Power Laser) letting it
    /// through one of them. A fixed seed, so every run checks the same boards;
    /// `PROPTEST_CASES` searches longer.
    mod beams {
        use crate::board::{Board, Layout};
        use crate::geometry::{Dir, Pos};
        use crate::script::{Project, RuleSet, Sources};
        use crate::state::Robot;
        use crate::world::trace;
        use proptest::prelude::*;
        use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

        const SIZE: i32 = 6;

        /// The beam walked square by square: the robots it hits, in order, and its last square.
        fn walked(
            board: &Board,
            robots: &[Robot],
            from: Pos,
            dir: Dir,
            skip_start: bool,
            through: u32,
        ) -> (Vec<usize>, Pos) {
            let robot_at = |p: Pos| robots.iter().position(|r| r.is_active() && r.at == p);
            let mut passes = through;
            let mut stops = || {
                if passes == 0 {
                    return true;
                }
                passes -= 1;
                false
            };
            let mut hits = Vec::new();
            let mut p = from;
            if !skip_start {
                if let Some(r) = robot_at(p) {
                    hits.push(r);
                    if stops() {
                        return (hits, p);
                    }
                }
            }
            while board.contains(p) {
                if !board.laser_can_cross(p, dir) && stops() {
                    break;
                }
                let next = p.step(dir);
                if !board.contains(next) {
                    break;
                }
                p = next;
                if let Some(r) = robot_at(p) {
                    hits.push(r);
                    if stops() {
                        break;
                    }
                }
            }
            (hits, p)
        }

        /// A board file: `SIZE`×`SIZE`, each square bare or walled on the sides its bits name.
        fn board_file(walls: &[u8]) -> String {
            let mut grid = String::new();
            for row in walls.chunks(SIZE as usize) {
                let cells: Vec<String> = row
                    .iter()
                    .map(|&w| if w == 0 { ".".into() } else { format!("w{w}") })
                    .collect();
                grid.push_str(&cells.join(" "));
                grid.push('\n');
            }
            let mut legend = String::from("\".\" = \"floor\"\n");
            for w in 1..16u8 {
                let sides: Vec<String> = Dir::ALL
                    .into_iter()
                    .filter(|d| w & (1 << d.index()) != 0)
                    .map(|d| format!("\"{d}\""))
                    .collect();
                legend.push_str(&format!(
                    "\"w{w}\" = {{ element = \"wall\", sides = [{}] }}\n",
                    sides.join(", ")
                ));
            }
            format!("name = \"beams\"\ngrid = \"\"\"\n{grid}\"\"\"\n\n[legend]\n{legend}")
        }

        #[test]
        fn a_beam_traced_by_stretches_is_the_beam_walked_square_by_square() {
            let rules = RuleSet::load(&Sources {
                project: Project::folders("scripts", "variants"),
                choices: Vec::new(),
            })
            .unwrap();
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("beams.toml");
            let square = || (0..SIZE, 0..SIZE).prop_map(|(x, y)| Pos::new(x, y));
            let robot = (square(), any::<bool>()).prop_map(|(at, destroyed)| (at, destroyed));
            let case = (
                proptest::collection::vec(
                    prop_oneof![5 => Just(0u8), 1 => 1..16u8],
                    (SIZE * SIZE) as usize,
                ),
                proptest::collection::vec(robot, 0..10),
                // The beam may start one square off the board, as a robot's beam cannot but a
                // script's `ctx:fire_beam` may ask.
                (-1..=SIZE, -1..=SIZE).prop_map(|(x, y)| Pos::new(x, y)),
                0..4usize,
                any::<bool>(),
                0..3u32,
            );
            let config = Config {
                cases: std::env::var("PROPTEST_CASES")
                    .ok()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(512),
                failure_persistence: None,
                ..Config::default()
            };
            let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[26; 32]);
            let mut runner = TestRunner::new_with_rng(config, rng);
            let result = runner.run(
                &case,
                |(walls, placed, from, facing, skip_start, through)| {
                    std::fs::write(&path, board_file(&walls)).unwrap();
                    let board = Board::compile(&Layout::load(&path).unwrap(), &rules).unwrap();
                    let robots: Vec<Robot> = placed
                        .iter()
                        .enumerate()
                        .map(|(i, &(at, destroyed))| {
                            let mut r = Robot::new(format!("R{i}"), at, Dir::N);
                            r.destroyed = destroyed;
                            r
                        })
                        .collect();
                    let dir = Dir::ALL[facing];
                    let beam = trace(&board, &robots, from, dir, skip_start, through);
                    let (hits, end) = walked(&board, &robots, from, dir, skip_start, through);
                    prop_assert_eq!(
                        &beam.hits[..],
                        &hits[..],
                        "from {} {} through {}",
                        from,
                        dir,
                        through
                    );
                    prop_assert_eq!(beam.end, end, "from {} {} through {}", from, dir, through);
                    Ok(())
                },
            );
            if let Err(e) = result {
                panic!("{e}");
            }
        }
    }
}
