//! The phase engine: walks the order of play (`order.rs`) for a register or a turn, calls the
//! scripts attached to each step, and resolves the native parts (revealing and executing
//! cards, re-entry). A register is a transaction: if any script fails, the state goes back to
//! what it was before the register (design.md principle 5).

use crate::board::{Board, Layout};
use crate::cards::Card;
use crate::decision::{Chooser, Defaults, Question};
use crate::detail;
use crate::error::{Error, Result};
use crate::geometry::{Dir, Pos};
use crate::order::{Native, Segment};
use crate::script::ctx::{card_table, Ctx, RobotView};
use crate::script::sandbox::{Budget, BUDGET_MESSAGE, INSTRUCTION_BUDGET};
use crate::script::{lua_message, Defs, RuleEvent, RuleSet, TileEvent};
use crate::state::{GameState, RobotId, REENTRY_DAMAGE};
use crate::world::{Arrival, Blocked, Hit, How, World};
use mlua::{AnyUserData, Function, IntoLuaMulti, Lua, Table, Value};
use std::cell::{Cell, Ref, RefCell};
use std::rc::Rc;

/// What a rule set needs to reach the game it is attached to. Lives in the Lua state's app
/// data, so that `ctx:` primitives called from scripts can find the world.
pub struct Link {
    pub world: Rc<RefCell<World>>,
    pub defs: Rc<Defs>,
    budget: Rc<Budget>,
    pub ctx: AnyUserData,
    /// One view per robot, made once, so `robot == other` compares identity.
    pub robots: Vec<AnyUserData>,
    /// One read-only table per tile.
    pub tiles: Vec<Table>,
    /// Per step: the tiles whose element has a `tile_steps` handler for it.
    tile_steps: Vec<Vec<usize>>,
    /// Per step: does any element on this board act on the robots standing on it then?
    /// (Most steps have no such handler; they skip looking at the robots at all.)
    robot_steps: Vec<bool>,
    handled: Table,
    depth: Cell<u32>,
    /// The cards revealed this register, per robot (a randomizer may have swapped one).
    pub(crate) revealed: RefCell<Vec<Option<Card>>>,
    /// The robot executing its card right now, and that card: squares it enters by the card
    /// are told which card moved it (`info.card` in `on_enter`; the ice needs its distance).
    executing: Cell<Option<(RobotId, Card)>>,
    /// The direction of the executing robot's last step during its card (`info.dir` in
    /// `on_card_end`: where an oil slide goes).
    last_step: Cell<Option<Dir>>,
    /// Who answers `ctx:choose` (kept by the [`Game`] across hot reloads).
    chooser: SharedChooser,
    /// Set while a bot tries programs out: questions say so (`Question::rehearsal`).
    rehearsal: Rc<Cell<bool>>,
}

/// The chooser a game and its current rule set share.
type SharedChooser = Rc<RefCell<Box<dyn Chooser>>>;

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
        let tiles = board
            .tiles
            .iter()
            .map(|t| rules.tile_table(t))
            .collect::<mlua::Result<_>>()?;
        let robots = (0..count)
            .map(|id| lua.create_userdata(RobotView(id)))
            .collect::<mlua::Result<_>>()?;
        let tile_steps = (0..rules.order.len())
            .map(|step| {
                (0..board.tiles.len())
                    .filter(|&t| {
                        rules.elements[board.tiles[t].element]
                            .tile_steps
                            .contains_key(&step)
                    })
                    .collect()
            })
            .collect();
        let robot_steps = (0..rules.order.len())
            .map(|step| {
                board
                    .tiles
                    .iter()
                    .any(|t| rules.elements[t.element].steps.contains_key(&step))
            })
            .collect();
        let rally: Table = lua.globals().get("rally")?;
        let link = Rc::new(Link {
            world,
            defs: rules.defs.clone(),
            budget: rules.budget.clone(),
            ctx: lua.create_userdata(Ctx)?,
            robots,
            tiles,
            tile_steps,
            robot_steps,
            handled: rally.get("HANDLED")?,
            depth: Cell::new(0),
            revealed: RefCell::new(vec![None; count]),
            executing: Cell::new(None),
            last_step: Cell::new(None),
            chooser,
            rehearsal,
        });
        lua.set_app_data(link.clone());
        Ok(link)
    }
}

/// The engine as seen from one call: the Lua state and the game it is attached to.
pub struct Engine<'a> {
    pub lua: &'a Lua,
    pub link: &'a Link,
}

impl<'a> Engine<'a> {
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
        self.link.world.borrow().state.robots[id].name.clone()
    }

    /// Calls a script handler under the instruction budget (shared by nested calls) and turns
    /// a failure into a message that says which script, where and when.
    pub fn call(
        &self,
        f: &Function,
        args: impl IntoLuaMulti,
        what: impl Fn() -> String,
    ) -> Result<Value> {
        let depth = self.link.depth.get();
        if depth == 0 {
            self.link.budget.reset(INSTRUCTION_BUDGET);
        }
        self.link.depth.set(depth + 1);
        let result = f.call::<Value>(args);
        self.link.depth.set(depth);
        let describe = || {
            let (turn, register) = {
                let w = self.link.world.borrow();
                (w.state.turn, w.state.register)
            };
            let when = if register > 0 {
                format!("register {register}")
            } else {
                format!("turn {turn}")
            };
            format!("{}, {when}", what())
        };
        if self.link.budget.is_spent() && depth == 0 {
            let place = match &result {
                Err(e) => lua_message(e),
                Ok(_) => BUDGET_MESSAGE.to_string(),
            };
            return Err(Error::Script(format!("{}: {place}", describe())));
        }
        result.map_err(|e| match &e {
            mlua::Error::ExternalError(inner) if inner.downcast_ref::<Error>().is_some() => {
                Error::Script(inner.to_string())
            }
            _ => Error::Script(format!("{}: {}", describe(), lua_message(&e))),
        })
    }

    fn tile_handler_context(&self, tile: usize, hook: &str, robot: Option<RobotId>) -> String {
        let board = self.board();
        let t = &board.tiles[tile];
        let file = &self.link.defs.elements[t.element].file;
        let who = robot
            .map(|r| format!(", robot {}", self.robot_name(r)))
            .unwrap_or_default();
        format!("element `{}` at {} ({file}), {hook}{who}", t.name, t.at)
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

    fn run_step(&self, step: usize) -> Result<()> {
        let defs = self.link.defs.clone();
        let info = &defs.order[step];
        {
            let mut w = self.world();
            w.state.segment = info.segment.name().into();
            w.defer_damage = info.segment == Segment::Lasers;
        }
        for rule in &defs.rules {
            if let Some(f) = rule.steps.get(&step) {
                let what = || format!("rule `{}` ({}), step `{}`", rule.name, rule.file, info.name);
                self.call(f, &self.link.ctx, what)?;
            }
        }
        self.option_steps(step)?;
        let board = self.board();
        for &t in &self.link.tile_steps[step] {
            let Some(f) = defs.elements[board.tiles[t].element].tile_steps.get(&step) else {
                continue;
            };
            let what = || self.tile_handler_context(t, &format!("step `{}`", info.name), None);
            self.call(f, (&self.link.ctx, &self.link.tiles[t]), what)?;
        }
        // Robots on tiles with a handler for this step, in board order; a robot moved during
        // the step is not visited again on its new square.
        let standing: Vec<(RobotId, Pos)> = if !self.link.robot_steps[step] {
            Vec::new()
        } else {
            let w = self.link.world.borrow();
            let mut v: Vec<(RobotId, Pos)> = w
                .state
                .robots
                .iter()
                .enumerate()
                .filter(|(_, r)| r.is_active())
                .map(|(i, r)| (i, r.at))
                .collect();
            v.sort_by_key(|(i, p)| (p.y, p.x, *i));
            v
        };
        for (id, at) in standing {
            for &t in board.tiles_at(at) {
                let Some(f) = defs.elements[board.tiles[t].element].steps.get(&step) else {
                    continue;
                };
                let still_there = {
                    let w = self.link.world.borrow();
                    !w.state.robots[id].destroyed && w.state.robots[id].at == at
                };
                if still_there {
                    let what =
                        || self.tile_handler_context(t, &format!("step `{}`", info.name), Some(id));
                    self.call(
                        f,
                        (&self.link.ctx, &self.link.tiles[t], self.robot(id)),
                        what,
                    )?;
                }
            }
        }
        match info.native {
            Some(Native::RevealCards) => self.reveal_cards()?,
            Some(Native::ExecuteCards) => self.execute_cards()?,
            Some(Native::Reenter) => self.reenter()?,
            None => {}
        }
        self.flush_conveys()?;
        self.flush_damage()?;
        self.world().defer_damage = false;
        self.tell_destroyed()
    }

    /// Calls the step's handlers of every option held by a robot on the board: robots in
    /// the order they are listed, options in the order they were drawn.
    fn option_steps(&self, step: usize) -> Result<()> {
        let defs = self.link.defs.clone();
        if defs.options.iter().all(|o| o.steps.is_empty()) {
            return Ok(());
        }
        let count = self.link.world.borrow().state.robots.len();
        for id in 0..count {
            for (def, name) in self.held_options(id) {
                let Some(f) = defs.options[def].steps.get(&step) else {
                    continue;
                };
                // An earlier handler may have destroyed the robot or spent the option.
                let Some(option) = self.option_arg(id, &name)? else {
                    continue;
                };
                if !self.is_active(id) {
                    break;
                }
                let what = || self.option_context(def, &defs.order[step].name, id);
                self.call(f, (&self.link.ctx, self.robot(id), option), what)?;
            }
        }
        Ok(())
    }

    /// The options a robot holds that the rule set defines, as (definition, name), in the
    /// order they were drawn. (One a hot reload removed is skipped.)
    fn held_options(&self, id: RobotId) -> Vec<(usize, String)> {
        let w = self.link.world.borrow();
        w.state.robots[id]
            .options
            .iter()
            .filter_map(|o| {
                let def = self
                    .link
                    .defs
                    .options
                    .iter()
                    .position(|d| d.name == o.name)?;
                Some((def, o.name.clone()))
            })
            .collect()
    }

    /// The option as its handlers get it: `{ name =, uses =, max_uses = }`; `None` if the
    /// robot no longer holds it.
    fn option_arg(&self, id: RobotId, name: &str) -> Result<Option<Table>> {
        let held = {
            let w = self.link.world.borrow();
            let r = &w.state.robots[id];
            r.option(name).map(|i| r.options[i].uses_left)
        };
        let Some(uses) = held else { return Ok(None) };
        let max = self.link.defs.option_def(name).and_then(|d| d.uses);
        let table = || -> mlua::Result<Table> {
            let t = self.lua.create_table()?;
            t.raw_set("name", name)?;
            t.raw_set("uses", uses)?;
            t.raw_set("max_uses", max)?;
            Ok(t)
        };
        table()
            .map(Some)
            .map_err(|e| Error::Script(lua_message(&e)))
    }

    fn option_context(&self, def: usize, hook: &str, id: RobotId) -> String {
        let o = &self.link.defs.options[def];
        format!(
            "option `{}` ({}), {hook}, robot {}",
            o.name,
            o.file,
            self.robot_name(id)
        )
    }

    /// Runs every held option's `modify[key]` on `value` (held order) and returns the
    /// result: how the core and scripts ask "what do this robot's options make of it?"
    /// (`hand_size`, `reentry_damage`, `main_laser`).
    pub fn modify(&self, id: RobotId, key: &str, mut value: Value) -> Result<Value> {
        let defs = self.link.defs.clone();
        for (def, name) in self.held_options(id) {
            let Some(f) = defs.options[def].modifier(key) else {
                continue;
            };
            let Some(option) = self.option_arg(id, &name)? else {
                continue;
            };
            let what = || self.option_context(def, &format!("modify.{key}"), id);
            let result = self.call(
                f,
                (&self.link.ctx, self.robot(id), value.clone(), option),
                what,
            )?;
            if !result.is_nil() {
                value = result;
            }
        }
        Ok(value)
    }

    /// [`Engine::modify`] for a number: a script returning anything else is an error.
    pub fn modify_number(&self, id: RobotId, key: &str, value: i32) -> Result<i32> {
        match self.modify(id, key, Value::Integer(value.into()))? {
            Value::Integer(n) => Ok(n as i32),
            Value::Number(n) if n.fract() == 0.0 => Ok(n as i32),
            other => Err(Error::Script(format!(
                "robot {}: the options' `modify.{key}` must give a whole number, not {other:?}",
                self.robot_name(id)
            ))),
        }
    }

    /// Asks the robot's player a question (the decision interface, `crate::decision`) and
    /// logs `chose` with the answer. No answer from the chooser means the first choice.
    pub fn choose(
        &self,
        id: RobotId,
        key: &str,
        choices: Vec<String>,
        text: String,
        detail: serde_json::Map<String, serde_json::Value>,
    ) -> Result<String> {
        let name = self.robot_name(id);
        if choices.is_empty() {
            return Err(Error::Script(format!(
                "robot {name}: question `{key}` has no choices"
            )));
        }
        let question = Question {
            robot: id,
            robot_name: name.clone(),
            key: key.to_string(),
            choices,
            text,
            detail,
            rehearsal: self.link.rehearsal.get(),
        };
        let given = self.link.chooser.borrow_mut().choose(&question);
        let (answer, default) = match given {
            None => (question.default_answer().to_string(), true),
            Some(a) if question.choices.contains(&a) => (a, false),
            Some(a) => {
                return Err(Error::Script(format!(
                    "robot {name}: `{a}` is not an answer to `{key}`; expected one of {}",
                    question.choices.join(", ")
                )))
            }
        };
        self.world().state.log(
            Some(id),
            "chose",
            detail! {"question" => key, "answer" => answer.clone(), "default" => default},
        );
        Ok(answer)
    }

    /// Every robot on the board that is not powered down fires its main laser forward
    /// (rules.md §6.2): the first robot in line takes 1 damage, walls stop the beam. A robot's
    /// options may change the shot (`modify.main_laser` gets and returns `{ strength, through }`).
    /// One primitive for the whole volley: it is the hottest path of a turn.
    pub fn fire_robot_lasers(&self) -> Result<()> {
        let count = self.link.world.borrow().state.robots.len();
        for id in 0..count {
            let (at, facing, holds_options) = {
                let w = self.link.world.borrow();
                let r = &w.state.robots[id];
                if r.destroyed || r.powered_down {
                    continue;
                }
                (r.at, r.facing, !r.options.is_empty())
            };
            let (strength, through) = if holds_options {
                self.main_laser(id)?
            } else {
                (1, 0)
            };
            let hits = self
                .link
                .world
                .borrow()
                .trace_beam(at, facing, true, through);
            for target in hits {
                self.damage(target, strength, "robot laser", Some(facing.opposite()))?;
            }
        }
        Ok(())
    }

    /// What a robot's options make of its main laser: `(strength, through)`.
    fn main_laser(&self, id: RobotId) -> Result<(i32, u32)> {
        let shot = self
            .lua
            .create_table_from([("strength", 1), ("through", 0)])
            .map_err(|e| Error::Script(lua_message(&e)))?;
        let shot = self.modify(id, "main_laser", Value::Table(shot))?;
        let read = |t: &Table| -> mlua::Result<(i32, u32)> {
            Ok((
                t.get::<Option<i32>>("strength")?.unwrap_or(1),
                t.get::<Option<u32>>("through")?.unwrap_or(0),
            ))
        };
        match &shot {
            Value::Table(t) => read(t).map_err(|e| Error::Script(lua_message(&e))),
            other => Err(Error::Script(format!(
                "robot {}: the options' `modify.main_laser` must give a table {{ strength, through }}, not a {}",
                self.robot_name(id),
                other.type_name()
            ))),
        }
    }

    /// Deals damage: queued while the step fires a volley (segment D), otherwise at once.
    /// `from` is the side of the robot it comes from, when it has one (a beam).
    pub fn damage(&self, id: RobotId, amount: i32, cause: &str, from: Option<Dir>) -> Result<()> {
        let hit = Hit {
            robot: id,
            amount,
            cause: cause.to_string(),
            from,
        };
        if self.link.world.borrow().defer_damage {
            self.world().queue_hit(hit);
            Ok(())
        } else {
            self.apply_hit(hit)
        }
    }

    /// Applies the queued volley, hit by hit: robots destroyed by it still fired in it.
    fn flush_damage(&self) -> Result<()> {
        loop {
            let hits = self.world().take_hits();
            if hits.is_empty() {
                return Ok(());
            }
            for hit in hits {
                self.apply_hit(hit)?;
            }
        }
    }

    /// Damage as the robot takes it: first its options' `on_damage` (held order), then the
    /// rules' `on_damage`, each may lower it (logged as `damage_prevented`); then the tokens.
    fn apply_hit(&self, hit: Hit) -> Result<()> {
        let id = hit.robot;
        let mut amount = hit.amount;
        if amount <= 0 || !self.is_active(id) {
            return Ok(());
        }
        let defs = self.link.defs.clone();
        let info = || -> Result<Table> {
            let make = || -> mlua::Result<Table> {
                let t = self.lua.create_table()?;
                t.raw_set("cause", hit.cause.as_str())?;
                t.raw_set("from", hit.from.map(Dir::name))?;
                Ok(t)
            };
            make().map_err(|e| Error::Script(lua_message(&e)))
        };
        // The robot's options first (held order), then the rules, each seeing what the
        // handlers before it left of the damage.
        let options = self.held_options(id).into_iter().filter_map(|(def, name)| {
            let f = defs.options[def].on_damage.as_ref()?;
            Some((f, DamageHandler::Option(def, name)))
        });
        let rules = defs.rules.iter().filter_map(|rule| {
            let f = rule.events.get(&RuleEvent::Damage)?;
            Some((f, DamageHandler::Rule(rule)))
        });
        for (f, handler) in options.collect::<Vec<_>>().into_iter().chain(rules) {
            if amount <= 0 || !self.is_active(id) {
                break;
            }
            let option = match &handler {
                DamageHandler::Option(_, name) => match self.option_arg(id, name)? {
                    Some(option) => Some(option),
                    None => continue, // an option spent by an earlier handler
                },
                DamageHandler::Rule(_) => None,
            };
            let what = || match &handler {
                DamageHandler::Option(def, _) => self.option_context(*def, "on_damage", id),
                DamageHandler::Rule(rule) => format!(
                    "rule `{}` ({}), on_damage, robot {}",
                    rule.name,
                    rule.file,
                    self.robot_name(id)
                ),
            };
            let args = (&self.link.ctx, self.robot(id), amount, info()?, option);
            let new = match self.call(f, args, what)? {
                Value::Nil => amount,
                Value::Integer(n) => n as i32,
                Value::Number(n) => n as i32,
                other => {
                    return Err(Error::Script(format!(
                        "{}: on_damage must return nil or a number, not a {}",
                        what(),
                        other.type_name()
                    )))
                }
            }
            .clamp(0, amount);
            if new < amount {
                let by = match &handler {
                    DamageHandler::Option(_, name) => name.clone(),
                    DamageHandler::Rule(rule) => rule.name.clone(),
                };
                self.world().state.log(
                    Some(id),
                    "damage_prevented",
                    detail! {"amount" => amount - new, "by" => by, "cause" => hit.cause.clone()},
                );
            }
            amount = new;
        }
        if self.is_active(id) {
            self.world().apply_damage(id, amount, &hit.cause);
        }
        Ok(())
    }

    /// Tells the rules' `on_destroyed` about every robot destroyed since the last time, in
    /// order of destruction (a destroyed robot scraps an option there, rules.md §6.5).
    fn tell_destroyed(&self) -> Result<()> {
        let defs = self.link.defs.clone();
        loop {
            let ids = std::mem::take(&mut self.world().destroyed_now);
            if ids.is_empty() {
                return Ok(());
            }
            for id in ids {
                for rule in &defs.rules {
                    let Some(f) = rule.events.get(&RuleEvent::Destroyed) else {
                        continue;
                    };
                    if self.is_active(id) {
                        break;
                    }
                    let what = || {
                        format!(
                            "rule `{}` ({}), on_destroyed, robot {}",
                            rule.name,
                            rule.file,
                            self.robot_name(id)
                        )
                    };
                    self.call(f, (&self.link.ctx, self.robot(id)), what)?;
                }
            }
        }
    }

    /// Calls a tile event on every element of the robot's square; stops at the first handler
    /// that returns something other than nil, and returns that.
    fn tile_event(
        &self,
        event: TileEvent,
        id: RobotId,
        args: impl Fn(&Table) -> mlua::Result<mlua::MultiValue>,
    ) -> Result<Value> {
        let board = self.board();
        let at = self.link.world.borrow().state.robots[id].at;
        for &t in board.tiles_at(at) {
            let Some(f) = self.link.defs.elements[board.tiles[t].element]
                .events
                .get(&event)
            else {
                continue;
            };
            if !self.is_active(id) || self.link.world.borrow().state.robots[id].at != at {
                break;
            }
            let args = args(&self.link.tiles[t]).map_err(|e| Error::Script(lua_message(&e)))?;
            let what = || self.tile_handler_context(t, event.name(), Some(id));
            let result = self.call(f, args, what)?;
            if !result.is_nil() {
                return Ok(result);
            }
        }
        Ok(Value::Nil)
    }

    fn reveal_cards(&self) -> Result<()> {
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
    fn execute_cards(&self) -> Result<()> {
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
                Ok(arrivals) => arrivals,
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

    /// Is the robot on the board, on square `at`? (A script may have moved it meanwhile.)
    fn is_at(&self, id: RobotId, at: Pos) -> bool {
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
                    let info = self.lua.create_table()?;
                    info.raw_set("dir", dir.name())?;
                    info.raw_set("side", side.name())?;
                    info.raw_set("how", c.how.name())?;
                    info.raw_set("leaving", leaving)?;
                    info.raw_set("blocked", c.blocked)?;
                    info.raw_set("remaining", c.remaining)?;
                    if let Some(card) = &c.card {
                        info.raw_set("card", card_table(self.lua, card)?)?;
                    }
                    if let Some(p) = c.pusher {
                        info.raw_set("pusher", self.robot(p))?;
                    }
                    Ok(info)
                };
                let info = info().map_err(|e| Error::Script(lua_message(&e)))?;
                let what = || self.tile_handler_context(t, "on_cross", Some(robot));
                let result = self.call(
                    f,
                    (&self.link.ctx, &self.link.tiles[t], self.robot(robot), info),
                    what,
                )?;
                cost += match result {
                    Value::Nil => 0,
                    Value::Table(t) => t
                        .get::<Option<i32>>("cost")
                        .ok()
                        .flatten()
                        .filter(|n| *n >= 0)
                        .ok_or_else(|| {
                            Error::Script(format!(
                                "{}: on_cross must return nil or {{ cost = n }} (n >= 0)",
                                what()
                            ))
                        })?,
                    other => {
                        return Err(Error::Script(format!(
                            "{}: on_cross must return nil or {{ cost = n }}, not a {}",
                            what(),
                            other.type_name()
                        )))
                    }
                };
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
    /// arrived. `info` is `{ how =, dir = }`, plus `card` when the robot moved by its card.
    pub fn arrive(&self, arrivals: &[Arrival]) -> Result<()> {
        let info = |a: &Arrival| -> mlua::Result<Table> {
            let info = self.lua.create_table()?;
            info.raw_set("how", a.how.name())?;
            info.raw_set("dir", a.dir.name())?;
            if let Some((id, card)) = self.link.executing.get() {
                if a.how == How::Card && id == a.robot {
                    info.raw_set("card", card_table(self.lua, &card)?)?;
                }
            }
            Ok(info)
        };
        let defs = self.link.defs.clone();
        for a in arrivals {
            self.tile_event(TileEvent::Enter, a.robot, |tile| {
                (&self.link.ctx, tile, self.robot(a.robot), info(a)?).into_lua_multi(self.lua)
            })?;
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

    fn flush_conveys(&self) -> Result<()> {
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
            self.tile_event(TileEvent::Conveyed, a.robot, |tile| {
                (&self.link.ctx, tile, self.robot(a.robot), a.dir.name()).into_lua_multi(self.lua)
            })?;
        }
        self.arrive(&arrivals)
    }

    fn reenter(&self) -> Result<()> {
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

/// Who may reduce a hit: one of the robot's options, or a rule.
enum DamageHandler<'a> {
    Option(usize, String),
    Rule(&'a crate::script::RuleDef),
}

enum CardResult {
    Normal,
    Handled,
    Distance(i32),
}

/// A game in progress: the world, and the rule set currently attached to it.
pub struct Game {
    world: Rc<RefCell<World>>,
    rules: RuleSet,
    link: Rc<Link>,
    layout: Layout,
    chooser: SharedChooser,
    rehearsal: Rc<Cell<bool>>,
}

impl Game {
    /// Compiles the board against the rules and checks the robots stand on it.
    pub fn new(layout: Layout, state: GameState, rules: RuleSet) -> Result<Game> {
        let board = Rc::new(Board::compile(&layout, &rules)?);
        let world = Rc::new(RefCell::new(World::new(board, state)));
        let chooser: SharedChooser = Rc::new(RefCell::new(Box::new(Defaults)));
        let rehearsal = Rc::new(Cell::new(false));
        let link = Link::new(&rules, world.clone(), chooser.clone(), rehearsal.clone())
            .map_err(|e| Error::Script(lua_message(&e)))?;
        Ok(Game {
            world,
            rules,
            link,
            layout,
            chooser,
            rehearsal,
        })
    }

    /// Swaps in a new rule set, keeping the state (hot reload). The board is compiled again
    /// against the new element declarations; if that fails, nothing changes.
    pub fn swap_rules(&mut self, rules: RuleSet) -> Result<()> {
        let board = Rc::new(Board::compile(&self.layout, &rules)?);
        let state = self.world.borrow().state.clone();
        let world = Rc::new(RefCell::new(World::new(board, state)));
        let link = Link::new(
            &rules,
            world.clone(),
            self.chooser.clone(),
            self.rehearsal.clone(),
        )
        .map_err(|e| Error::Script(lua_message(&e)))?;
        self.rules.lua.remove_app_data::<Rc<Link>>();
        (self.world, self.rules, self.link) = (world, rules, link);
        Ok(())
    }

    /// Ends the game and hands back its rule set, detached, to start another game with it
    /// (`rally watch` re-runs an edited scenario with the last good rules this way).
    pub fn into_rules(self) -> RuleSet {
        self.rules.lua.remove_app_data::<Rc<Link>>();
        self.rules
    }

    /// Puts the game back in `state` (replaying from a saved position, `--repeat`).
    pub fn restore(&mut self, state: GameState) {
        self.world.borrow_mut().state = state;
    }

    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// Who answers the players' questions from now on (`crate::decision`): fixed answers
    /// in a scenario, bots and people in a game. The default chooser takes every default.
    pub fn set_chooser(&mut self, chooser: Box<dyn Chooser>) {
        *self.chooser.borrow_mut() = chooser;
    }

    /// Marks what runs next as a rehearsal (a bot trying programs out) or not; returns the
    /// previous setting. Questions asked meanwhile carry `rehearsal = true`, so a chooser
    /// for people answers them as a bot would instead of asking.
    pub fn set_rehearsal(&mut self, on: bool) -> bool {
        self.rehearsal.replace(on)
    }

    /// Cards to deal this robot with its damage and options (rules.md §1.3: 9 − damage,
    /// never below 0, Extra Memory +1): the options' `modify.hand_size` applied to
    /// `deal::hand_size`. The dealer asks this for every robot it deals to.
    pub fn hand_size(&self, robot: RobotId) -> Result<usize> {
        let damage = self.state().robots[robot].damage;
        let base = crate::game::deal::hand_size(damage) as i32;
        let n = self.engine().modify_number(robot, "hand_size", base)?;
        Ok(n.max(0) as usize)
    }

    pub fn state(&self) -> Ref<'_, GameState> {
        Ref::map(self.world.borrow(), |w| &w.state)
    }

    /// The state, to change between registers from native code: the turn loop deals cards,
    /// installs programs and applies power down here (`game::Match`). Scripts never get it.
    pub fn state_mut(&self) -> std::cell::RefMut<'_, GameState> {
        std::cell::RefMut::map(self.world.borrow_mut(), |w| &mut w.state)
    }

    pub fn board(&self) -> Rc<Board> {
        self.world.borrow().board.clone()
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    fn engine(&self) -> Engine<'_> {
        Engine {
            lua: &self.rules.lua,
            link: &self.link,
        }
    }

    /// Runs `f` as a transaction: on error the state is restored as it was. The event log
    /// only grows, so it is cut back to its length instead of being copied.
    fn transaction(&mut self, f: impl FnOnce(&Engine) -> Result<()>) -> Result<()> {
        let (before, logged) = {
            let mut w = self.world.borrow_mut();
            let events = std::mem::take(&mut w.state.events);
            let before = w.state.clone();
            w.state.events = events;
            (before, w.state.events.len())
        };
        let result = f(&self.engine());
        if let Err(e) = &result {
            let mut w = self.world.borrow_mut();
            let mut events = std::mem::take(&mut w.state.events);
            events.truncate(logged);
            w.state = before;
            w.state.events = events;
            // What the failed register queued belongs to it.
            w.take_hits();
            w.destroyed_now.clear();
            tracing::debug!("rolled back: {e}");
        }
        result
    }

    pub fn start_turn(&mut self) -> Result<()> {
        self.transaction(|e| {
            e.world().state.register = 0;
            e.run_steps(false, Some(Segment::TurnStart))
        })
    }

    /// Resolves register `register` (1..=5).
    pub fn run_register(&mut self, register: u8) -> Result<()> {
        self.transaction(|e| {
            e.world().state.register = register;
            e.run_steps(true, None)
        })
    }

    /// Repairs, re-entry and the other end-of-turn steps; the next turn begins.
    pub fn end_turn(&mut self) -> Result<()> {
        self.transaction(|e| {
            e.world().state.register = 0;
            e.run_steps(false, Some(Segment::EndOfTurn))
        })
    }
}
