//! The phase engine: walks the order of play (`order.rs`) for a register or a turn, calls the
//! scripts attached to each step, and resolves the native parts (revealing and executing
//! cards, re-entry). A register is a transaction: if any script fails, the state goes back to
//! what it was before the register (design.md principle 5).
//!
//! This file holds what every part shares: `Link` (how a rule set reaches the game it is
//! attached to), the `Resolver` borrowed for one call (`Resolver::call`: budget and error
//! context for every script call) and the step loop. The parts: `cards` (segments A and B),
//! `movement` (steps, pushes, edges, belts, re-entry), `damage` (lasers, hits, destruction),
//! `options` (option cards and player choices), `program` (programming-time hooks), `shots`
//! (options fired instead of the main laser), `transaction` (the [`Engine`] everything above
//! runs registers on). What scripts see of the engine, its Lua face: `ctx` and robot views
//! (`ctx`), their hot fields and primitives as plain C functions (`native`), the tables
//! handlers receive (`values`). `Link` and its fields are private to this module and those
//! parts.

use crate::board::{Board, Layout};
use crate::cards::Card;
use crate::decision::{Chooser, Defaults, Question, Words};
use crate::detail;
use crate::error::{Error, Result};
use crate::geometry::{Dir, Pos, Rotation};
use crate::hooks::{Hook, Listener};
use crate::order::{Native, Segment};
use crate::script::decl::{Does, Effect, Handlers, Step, When};
use crate::script::sandbox::{Attached, Budget};
use crate::script::store::Quota;
use crate::script::{lua_message, Defs, RuleSet};
use crate::state::{RobotId, State, StepSnapshot, REENTRY_DAMAGE};
use crate::world::{Arrival, Blocked, Hit, How, Shot, World};
use ctx::{card_table, Ctx, RobotView};
use hooks::{About, Flow, Listening, Who};
use mlua::{AnyUserData, Function, IntoLuaMulti, Lua, Table, Value};
use std::cell::{Cell, Ref, RefCell};
use std::rc::Rc;
use values::Interned;

mod cards;
mod ctx;
mod damage;
mod hooks;
mod movement;
mod native;
mod options;
mod probe;
mod program;
mod shots;
mod transaction;
mod values;

pub use ctx::ROBOT_FIELDS;
pub use native::CTX_FIELDS;
pub use probe::{Context, HandlerCall};
pub use program::Programming;
pub use transaction::{Engine, RolledBack};

/// What a rule set needs to reach the game it is attached to. Lives in the Lua state's app
/// data, so that `ctx:` primitives called from scripts can find the world.
struct Link {
    world: Rc<RefCell<World>>,
    defs: Rc<Defs>,
    budget: Rc<Budget>,
    ctx: AnyUserData,
    /// One view per robot, made once, so `robot == other` compares identity.
    robots: Vec<AnyUserData>,
    /// Their addresses, and ctx's, by which the native readers and methods know them
    /// (`engine/native.rs`).
    robot_views: Vec<usize>,
    ctx_view: usize,
    /// One read-only table per tile.
    tiles: Vec<Table>,
    /// Each tile's `at` table (by address; they live as long as the link) and its square, so
    /// that a primitive given `tile.at` knows the square without reading through the view.
    squares: std::collections::HashMap<usize, Pos>,
    /// Per step: who acts in it on this board, found once per game (most steps of most
    /// boards have nobody, and cost a few comparisons).
    plans: Vec<StepPlan>,
    /// Which kinds of listener hear which hooks (`hooks.rs`).
    listening: Listening,
    /// Does a tile of this board have an element that may refuse a crossing (`blocks`)? If
    /// not, no move asks before it is made.
    any_blocking: bool,
    handled: Table,
    depth: Cell<u32>,
    /// The step of the order of play being resolved (by its index), `None` outside a step:
    /// what a failure reports as its moment (`Engine::rolled_back`).
    step: Cell<Option<usize>>,
    /// The handler calls noted for `--trace` and `--profile`, while on.
    probe: probe::Probe,
    /// What scripts may still store in the register in progress (reset by each transaction).
    quota: Quota,
    /// The cards revealed this register, per robot (a randomizer may have swapped one).
    revealed: RefCell<Vec<Option<Card>>>,
    /// Shots chosen instead of main lasers this step, resolved after its volley (`shots`).
    shots: RefCell<Vec<shots::QueuedShot>>,
    /// Lua strings made once for the names handlers get again and again.
    names: Interned,
    /// (turn, register) of the last reveal: registers up to it have shown their cards, which
    /// `ctx:set_card` may no longer change.
    revealed_at: Cell<(u32, u8)>,
    /// The robot executing its card right now, and that card: squares it enters by the card
    /// are told which card moved it (`info.card` in `on_enter`; the ice needs its distance).
    executing: Cell<Option<(RobotId, Card)>>,
    /// The direction of the executing robot's last step during its card (`info.dir` in
    /// `on_card_end`: where an oil slide goes).
    last_step: Cell<Option<Dir>>,
    /// Who answers `ctx:choose` (kept by the [`Engine`] across hot reloads).
    chooser: SharedChooser,
    /// Set while a bot tries programs out: questions say so (`Question::rehearsal`).
    rehearsal: Rc<Cell<bool>>,
}

/// The chooser a game and its current rule set share.
type SharedChooser = Rc<RefCell<Box<dyn Chooser>>>;

/// Who acts in one step of the order of play on one board, so that the step loop visits
/// only them (design.md principle 8: the core calls Lua only where a handler exists).
struct StepPlan {
    /// The rules with a handler for the step, in load order: functions or a game's effect.
    rules: Vec<(usize, Step)>,
    /// Does any option have a handler for the step (asked of the robots holding one)?
    options: bool,
    /// The tiles whose element has a `tile_steps` handler for it, in board order.
    tiles: Vec<(usize, Act)>,
    /// Per tile, what its element does to the robots standing on it (`steps`); empty when
    /// no element on the board does anything, so the step never looks at the robots.
    standing: Vec<Option<Act>>,
    /// Per square (`Board::index`), whether a tile there acts on a robot standing on it: a
    /// robot elsewhere is passed over at a glance.
    acting: Vec<bool>,
}

/// What a tile does in a step: call its element's function, or a declared effect
/// (`rally.effect.*`) with the tile's parameters read once, here.
struct Act {
    does: Deed,
    /// The registers (bit `r` for register `r`) it acts in: every one, or those its `when`
    /// lists (a pusher's phases). Outside the registers (bit 0) only an effect without one.
    registers: u8,
}

enum Deed {
    Lua(Function),
    Convey(Dir),
    Rotate(Rotation, Rc<str>),
    Push(Dir, Option<String>),
    Checkpoint(u32),
    Archive,
    Destroy(Rc<str>),
    Beam {
        dir: Dir,
        strength: i32,
        cause: std::sync::Arc<str>,
    },
}

impl Act {
    /// The tile's act for `step`; `None` when it does nothing there (an effect whose `when`
    /// parameter is false on this tile, or lists no register).
    fn new(step: &Step, tile: &crate::board::Tile) -> Option<Act> {
        let effect = match step {
            Step::Lua(f) => {
                return Some(Act {
                    does: Deed::Lua(f.clone()),
                    registers: u8::MAX,
                })
            }
            Step::Effect(e) => e,
        };
        // The parameters an effect names are checked against its kind when the script
        // loads, and every tile has them (required or defaulted).
        let param = |name: &str| &tile.params[name];
        let text = || {
            let name = effect
                .param
                .as_deref()
                .expect("the effect names its parameter");
            param(name).as_str().expect("a checked parameter")
        };
        let registers = match &effect.when {
            None => u8::MAX,
            Some(When::Tile(name)) if param(name).as_bool() == Some(true) => u8::MAX,
            Some(When::Tile(_)) => return None,
            Some(When::Registers(name)) => param(name)
                .as_array()
                .expect("a checked list")
                .iter()
                .filter_map(serde_json::Value::as_u64)
                .filter(|&r| (1..8).contains(&r))
                .fold(0, |bits, r| bits | 1 << r),
        };
        if registers == 0 {
            return None;
        }
        let does = match &effect.does {
            Does::Convey => Deed::Convey(Dir::parse(text()).expect("a checked direction")),
            Does::Rotate { by } => Deed::Rotate(
                Rotation::parse(text()).expect("a checked rotation"),
                by.as_str().into(),
            ),
            Does::Push { by } => {
                Deed::Push(Dir::parse(text()).expect("a checked direction"), by.clone())
            }
            Does::Checkpoint => {
                let name = effect
                    .param
                    .as_deref()
                    .expect("the effect names its parameter");
                let number = param(name).as_u64().expect("a checked whole number");
                Deed::Checkpoint(u32::try_from(number).unwrap_or(u32::MAX))
            }
            Does::Archive => Deed::Archive,
            Does::Destroy { cause } => Deed::Destroy(cause.as_str().into()),
            Does::RobotLasers => unreachable!("a game's effect is checked to be a rule's step"),
            Does::Beam { strength, cause } => Deed::Beam {
                dir: Dir::parse(text()).expect("a checked direction"),
                strength: strength
                    .as_deref()
                    .and_then(|name| param(name).as_i64())
                    .map_or(1, |n| i32::try_from(n).unwrap_or(i32::MAX)),
                cause: cause.as_str().into(),
            },
        };
        Some(Act { does, registers })
    }

    /// Does it act in `register` (0: outside the registers)?
    fn acts_in(&self, register: u8) -> bool {
        self.registers & (1 << register.min(7)) != 0
    }
}

impl StepPlan {
    /// Nobody on this board acts in the step.
    fn is_idle(&self) -> bool {
        self.rules.is_empty() && !self.options && self.tiles.is_empty() && self.standing.is_empty()
    }

    fn new(rules: &RuleSet, board: &Board, step: usize) -> StepPlan {
        let element = |t: &crate::board::Tile| &rules.elements[t.element];
        let standing: Vec<Option<Act>> = board
            .tiles
            .iter()
            .map(|t| Act::new(element(t).steps.get(&step)?, t))
            .collect();
        let acting = match standing.iter().any(Option::is_some) {
            true => (0..board.width * board.height)
                .map(|i| {
                    let at = Pos::new(i % board.width, i / board.width);
                    board.tiles_at(at).iter().any(|&t| standing[t].is_some())
                })
                .collect(),
            false => Vec::new(),
        };
        StepPlan {
            rules: rules
                .rules
                .iter()
                .enumerate()
                .filter_map(|(i, r)| Some((i, r.steps.get(&step)?.clone())))
                .collect(),
            options: rules.options.iter().any(|o| o.steps.contains_key(&step)),
            tiles: board
                .tiles
                .iter()
                .enumerate()
                .filter_map(|(i, t)| Some((i, Act::new(element(t).tile_steps.get(&step)?, t)?)))
                .collect(),
            standing: if acting.is_empty() {
                Vec::new()
            } else {
                standing
            },
            acting,
        }
    }
}

impl Link {
    fn new(
        rules: &RuleSet,
        world: Rc<RefCell<World>>,
        chooser: SharedChooser,
        rehearsal: Rc<Cell<bool>>,
    ) -> mlua::Result<Rc<Link>> {
        let lua = &rules.lua;
        let (board, count) = {
            let w = world.borrow();
            (w.board.clone(), w.state.robots.len())
        };
        let tiles: Vec<Table> = board
            .tiles
            .iter()
            .map(|t| rules.tile_table(t))
            .collect::<mlua::Result<_>>()?;
        let squares = tiles
            .iter()
            .zip(&board.tiles)
            .map(|(t, tile)| {
                let at: Table = t.get("at")?;
                Ok((at.to_pointer() as usize, tile.at))
            })
            .collect::<mlua::Result<_>>()?;
        let robots: Vec<AnyUserData> = (0..count)
            .map(|id| lua.create_userdata(RobotView(id)))
            .collect::<mlua::Result<_>>()?;
        let robot_views = robots.iter().map(|r| r.to_pointer() as usize).collect();
        lua.set_named_registry_value(
            native::ROBOT_VIEWS.to_str().expect("ASCII"),
            lua.create_sequence_from(robots.iter().cloned())?,
        )?;
        let plans = (0..rules.order.len())
            .map(|step| StepPlan::new(rules, &board, step))
            .collect();
        let ctx = lua.create_userdata(Ctx)?;
        install_once(lua, &ctx)?;
        let rally: Table = lua.globals().get("rally")?;
        let any_blocking = world.borrow().board.tiles.iter().any(|t| {
            let def = &rules.defs.elements[t.element];
            def.blocks.is_some() && def.hooks.contains_key(&Hook::Cross)
        });
        let link = Rc::new(Link {
            world,
            defs: rules.defs.clone(),
            budget: rules.budget.clone(),
            ctx_view: ctx.to_pointer() as usize,
            ctx,
            robots,
            robot_views,
            tiles,
            squares,
            plans,
            listening: Listening::new(&rules.defs, &board),
            any_blocking,
            handled: rally.get("HANDLED")?,
            // Host code: it runs without the count hook, whatever the budget says.
            names: rules.budget.unhooked(|| Interned::new(lua))?,
            depth: Cell::new(0),
            step: Cell::new(None),
            probe: probe::Probe::default(),
            quota: Quota::default(),
            revealed: RefCell::new(vec![None; count]),
            revealed_at: Cell::new((0, 0)),
            shots: RefCell::new(Vec::new()),
            executing: Cell::new(None),
            last_step: Cell::new(None),
            chooser,
            rehearsal,
        });
        lua.set_app_data(link.clone());
        let attached: Rc<dyn Attached> = link.clone();
        rules.budget.attach(Rc::downgrade(&attached));
        Ok(link)
    }
}

impl Attached for Link {
    /// Asked by the budget's hook, which sees every loop a script runs.
    fn over_quota(&self) -> Option<String> {
        let events = self.world.try_borrow().ok()?.state.events.len();
        self.quota.events_over(events)
    }
}

/// Marks a Lua state the engine has put its own functions in.
struct Installed;

/// Puts the engine's functions into a rule set's Lua state the first time a game is attached
/// to it: the native ctx methods (`native.rs`) and `math.random` drawing from the game's RNG
/// (`ctx.rs`; until then the sandbox's says no game is attached).
fn install_once(lua: &Lua, ctx: &AnyUserData) -> mlua::Result<()> {
    if lua.app_data_ref::<Installed>().is_some() {
        return Ok(());
    }
    native::install_methods(lua, &ctx.metatable()?.get("__index")?)?;
    ctx::install_random(lua)?;
    lua.set_app_data(Installed);
    Ok(())
}

/// What resolves registers and the turn's ends, borrowed for one call into the engine (a
/// transaction, or a `ctx:` primitive a script calls): the Lua state and the game it is
/// attached to. Every step, card, move and hit is one of its methods.
struct Resolver<'a> {
    lua: &'a Lua,
    link: &'a Link,
}

impl<'a> Resolver<'a> {
    pub fn world(&self) -> std::cell::RefMut<'a, World> {
        self.link.world.borrow_mut()
    }

    fn board(&self) -> Rc<Board> {
        self.link.world.borrow().board.clone()
    }

    fn robot(&self, id: RobotId) -> &'a AnyUserData {
        &self.link.robots[id]
    }

    fn is_active(&self, id: RobotId) -> bool {
        !self.link.world.borrow().state.robots[id].destroyed
    }

    fn robot_name(&self, id: RobotId) -> String {
        self.link.world.borrow().state.robots[id].name.to_string()
    }

    /// Calls a script handler under the instruction budget (shared by nested calls) and turns
    /// a failure into a message that says which script, where and when.
    pub fn call(
        &self,
        f: &Function,
        args: impl IntoLuaMulti,
        what: impl Fn() -> Context,
    ) -> Result<Value> {
        let depth = self.link.depth.get();
        // `--trace` and `--profile` (`probe.rs`): off, this flag is all they cost.
        let probed = self
            .link
            .probe
            .on
            .get()
            .then(|| self.probe_begin(what(), depth));
        self.link.depth.set(depth + 1);
        let result = if depth == 0 {
            self.link.budget.call(|| f.call::<Value>(args))
        } else {
            f.call::<Value>(args)
        };
        self.link.depth.set(depth);
        if let Some(begun) = probed {
            self.probe_end(begun);
        }
        // Stopped by the budget: that is the error, whatever the script made of it.
        if depth == 0 {
            if let Some(why) = self.link.budget.spent() {
                return Err(Error::Script(format!(
                    "{}: {why}",
                    self.when(&what().to_string())
                )));
            }
        }
        result.map_err(|e| match &e {
            mlua::Error::ExternalError(inner) if inner.downcast_ref::<Error>().is_some() => {
                Error::Script(inner.to_string())
            }
            _ => Error::Script(format!(
                "{}: {}",
                self.when(&what().to_string()),
                lua_message(&e)
            )),
        })
    }

    /// An error in what a handler returned, at the line the handler is defined.
    fn returned(&self, f: &Function, what: &str, message: &str) -> Error {
        let info = f.info();
        let place = match (info.short_src, info.line_defined) {
            (Some(src), Some(line)) => format!("{src}:{line}: "),
            _ => String::new(),
        };
        Error::Script(format!("{}: {place}{message}", self.when(what)))
    }

    /// `what` (which handler, for which robot) and when: the register (and its turn after
    /// the first, in a game or a scenario of several turns), or the turn.
    fn when(&self, what: &str) -> String {
        let (turn, register) = {
            let w = self.link.world.borrow();
            (w.state.turn, w.state.register)
        };
        match (turn, register) {
            (_, 0) => format!("{what}, turn {turn}"),
            (1, r) => format!("{what}, register {r}"),
            (t, r) => format!("{what}, turn {t}, register {r}"),
        }
    }

    /// Resolves register `register` (1..=5): every step of segments A to E.
    fn run_register(&self, register: u8) -> Result<()> {
        let turn = {
            let mut w = self.world();
            w.state.register = register;
            w.state.turn
        };
        self.link.revealed_at.set((turn, register - 1));
        self.run_steps(true, None)
    }

    /// Runs every step of one segment range: a register (A..E) or the turn's ends.
    pub fn run_steps(&self, per_register: bool, only: Option<Segment>) -> Result<()> {
        let defs = self.link.defs.clone();
        for (id, step) in defs.order.iter().enumerate() {
            if step.segment.per_register() != per_register {
                continue;
            }
            if only.is_some_and(|s| s != step.segment) {
                continue;
            }
            self.run_step(id)?;
        }
        Ok(())
    }

    /// Does nobody act in any step of `segment`, nor wait to be told of a destruction? Its
    /// steps then only mark the moment ([`Resolver::run_step`]'s idle path), which cannot fail.
    pub fn idle(&self, segment: Segment) -> bool {
        let defs = &self.link.defs;
        self.link.world.borrow().destroyed_now.is_empty()
            && defs.order.iter().zip(&self.link.plans).all(|(step, plan)| {
                step.segment != segment || (plan.is_idle() && step.native.is_none())
            })
    }

    fn run_step(&self, step: usize) -> Result<()> {
        let defs = &self.link.defs;
        let info = &defs.order[step];
        let plan = &self.link.plans[step];
        {
            let mut w = self.world();
            w.state.segment = info.segment.name().into();
            // What a step destroys, it destroys at the same time (cards excepted, which
            // resolve one at a time: `execute_cards`).
            w.begin_moment(true);
            if plan.is_idle() && info.native.is_none() && w.destroyed_now.is_empty() {
                // Nobody acts and nobody is waiting to be told of a destruction: nothing can
                // be queued, destroyed or change (a step that changes nothing is not noted).
                return Ok(());
            }
            w.defer_damage = info.segment == Segment::Lasers;
        }
        self.link.step.set(Some(step));
        // Who acts in a step, in the order the table of hooks gives (`src/hooks.rs`).
        for listener in Hook::Step.spec().listeners {
            match listener {
                Listener::Rules => {
                    for (r, handler) in &plan.rules {
                        let what = |effect: &'static str| {
                            move || {
                                let hook = format!("step `{}`{effect}", info.name);
                                self.context(Who::Rule(*r), &hook, None)
                            }
                        };
                        match handler {
                            Step::Lua(f) => self.call(f, &self.link.ctx, what("")).map(drop)?,
                            Step::Effect(effect) => match effect.does {
                                Does::RobotLasers => self
                                    .native_effect(what(" (effect)"), || {
                                        self.fire_robot_lasers()
                                    })?,
                                _ => unreachable!("a rule's effect is checked to be the game's"),
                            },
                        }
                    }
                }
                Listener::Options => {
                    if plan.options {
                        self.option_steps(step)?;
                    }
                }
                Listener::Board => {
                    for (t, act) in &plan.tiles {
                        self.tile_step(step, *t, act)?;
                    }
                }
                Listener::Square => {
                    if !plan.standing.is_empty() {
                        self.standing_steps(step, plan)?;
                    }
                }
            }
        }
        match info.native {
            Some(Native::RevealCards) => self.reveal_cards()?,
            Some(Native::ExecuteCards) => self.execute_cards()?,
            Some(Native::Reenter) => self.reenter()?,
            None => {}
        }
        if self.link.world.borrow().has_queued() {
            self.flush_pushes()?;
            self.flush_conveys()?;
            self.flush_damage()?;
        }
        self.world().defer_damage = false;
        self.tell_destroyed()?;
        self.resolve_shots()?;
        // Robots reaching the last flag in one step (segment E's `touch`: flags and Mechanical
        // Arms alike) are ranked together (rules.md §7.1).
        self.world().rank_arrivals();
        self.world().note(&info.name, None);
        self.link.step.set(None);
        Ok(())
    }

    /// Calls the handlers of a step for the robots standing on tiles that have one, robots in
    /// board order; a robot moved during the step is not visited again on its new square.
    fn standing_steps(&self, step: usize, plan: &StepPlan) -> Result<()> {
        let board = self.board();
        let standing: smallvec::SmallVec<[(RobotId, Pos); 8]> = {
            let w = self.link.world.borrow();
            let mut v: smallvec::SmallVec<[(RobotId, Pos); 8]> = w
                .state
                .robots
                .iter()
                .enumerate()
                .filter(|(_, r)| r.is_active() && board.index(r.at).is_some_and(|i| plan.acting[i]))
                .map(|(i, r)| (i, r.at))
                .collect();
            v.sort_unstable_by_key(|&(i, p)| (p.y, p.x, i));
            v
        };
        for (id, at) in standing {
            for &t in board.tiles_at(at) {
                let Some(act) = &plan.standing[t] else {
                    continue;
                };
                if !self.is_at(id, at) {
                    continue;
                }
                self.standing_step(step, t, act, id)?;
            }
        }
        Ok(())
    }

    /// A tile's act in a step for the robot `id` standing on it.
    fn standing_step(&self, step: usize, t: usize, act: &Act, id: RobotId) -> Result<()> {
        let register = self.link.world.borrow().state.register;
        if !act.acts_in(register) {
            return Ok(());
        }
        let name = &self.link.defs.order[step].name;
        let what = |effect: &'static str| {
            move || self.context(Who::Tile(t), &format!("step `{name}`{effect}"), Some(id))
        };
        match &act.does {
            Deed::Lua(f) => {
                let args = (&self.link.ctx, &self.link.tiles[t], self.robot(id));
                self.call(f, args, what(""))?;
            }
            Deed::Convey(dir) => self.native_effect(what(" (effect)"), || {
                self.world().convey(id, *dir);
                Ok(())
            })?,
            Deed::Rotate(rotation, by) => self.native_effect(what(" (effect)"), || {
                self.rotate(id, *rotation, by).map(drop)
            })?,
            Deed::Push(dir, by) => self.native_effect(what(" (effect)"), || {
                self.world().queue_push(id, *dir, by.clone());
                Ok(())
            })?,
            Deed::Checkpoint(number) => self.native_effect(what(" (effect)"), || {
                let at = self.board().tiles[t].at;
                let mut w = self.world();
                w.touch_flag(id, *number);
                w.set_archive(id, at);
                Ok(())
            })?,
            Deed::Archive => self.native_effect(what(" (effect)"), || {
                let at = self.board().tiles[t].at;
                self.world().set_archive(id, at);
                Ok(())
            })?,
            Deed::Destroy(cause) => self.native_effect(what(" (effect)"), || {
                self.world().destroy(id, cause);
                Ok(())
            })?,
            Deed::Beam { .. } => unreachable!("a beam is checked to be a tile step"),
        }
        Ok(())
    }

    /// A tile's act in a step of its own (`tile_steps`), robot or not.
    fn tile_step(&self, step: usize, t: usize, act: &Act) -> Result<()> {
        let register = self.link.world.borrow().state.register;
        if !act.acts_in(register) {
            return Ok(());
        }
        let name = &self.link.defs.order[step].name;
        let what = |effect: &'static str| {
            move || self.context(Who::Tile(t), &format!("step `{name}`{effect}"), None)
        };
        match &act.does {
            Deed::Lua(f) => self
                .call(f, (&self.link.ctx, &self.link.tiles[t]), what(""))
                .map(drop),
            Deed::Beam {
                dir,
                strength,
                cause,
            } => self.native_effect(what(" (effect)"), || {
                let at = self.board().tiles[t].at;
                self.fire_beam(at, *dir, *strength, cause, None, 0)
                    .map(drop)
            }),
            _ => unreachable!("only a beam is checked to be a tile step's effect"),
        }
    }

    /// Tells a hook to a robot's listeners when the first element of its square that
    /// answers (returns something other than nil) is the only one that does (`on_reveal`,
    /// `on_card_end`, `on_conveyed`, `on_deal`...); returns what `read` makes of that answer.
    fn first_answer<P: hooks::Payload, T>(
        &self,
        hook: Hook,
        id: RobotId,
        payload: impl Fn(&hooks::Heard) -> mlua::Result<P>,
        read: impl Fn(Value) -> std::result::Result<T, String>,
    ) -> Result<Option<T>> {
        let mut answer = None;
        self.hear(hook, About::robot(&id), None, payload, |heard, v| {
            if heard.at.is_none() || v.is_nil() {
                return Ok(Flow::Go);
            }
            answer = Some(read(v)?);
            Ok(Flow::Done)
        })?;
        Ok(answer)
    }
}
