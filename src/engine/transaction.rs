//! [`Engine`]: a world with a rule set attached, what the turn loop, scenarios and commands
//! resolve registers on. Every register and turn end is a transaction: a failing script
//! leaves the state as it was.

use super::*;

/// The engine of one game or scenario: the world, and the rule set currently attached to it
/// (hot reload swaps it). A whole game's turn loop runs on top of it (`game::Game`).
pub struct Engine {
    world: Rc<RefCell<World>>,
    rules: RuleSet,
    link: Rc<Link>,
    layout: Layout,
    chooser: SharedChooser,
    rehearsal: Rc<Cell<bool>>,
    /// The state as the transaction in progress found it (its buffers reused from one
    /// transaction to the next).
    snapshot: State,
    /// Where the last transaction that failed stopped, and what it had logged.
    rolled_back: Option<RolledBack>,
}

/// A register (or a turn's end, or programming time) that failed and was rolled back: the
/// moment it stopped at and the events it had logged by then, which the rollback took out of
/// the state (docs/debugging.md: the state at a failure).
#[derive(Clone, Debug)]
pub struct RolledBack {
    pub turn: u32,
    /// 1..=5, 0 outside the registers.
    pub register: u8,
    /// The step of the order of play that failed, if it was in one.
    pub step: Option<String>,
    pub events: Vec<crate::state::Event>,
}

impl RolledBack {
    /// `turn 2, register 3, step gears`; `turn 2, step repairs` at a turn's end.
    pub fn moment(&self) -> String {
        let mut out = format!("turn {}", self.turn);
        if self.register > 0 {
            out.push_str(&format!(", register {}", self.register));
        }
        if let Some(step) = &self.step {
            out.push_str(&format!(", step {step}"));
        }
        out
    }
}

impl Engine {
    /// Compiles the board against the rules and checks the robots stand on it.
    pub fn new(layout: Layout, state: State, rules: RuleSet) -> Result<Engine> {
        let board = Rc::new(Board::compile(&layout, &rules)?);
        let world = Rc::new(RefCell::new(World::new(board, state)));
        let chooser: SharedChooser = Rc::new(RefCell::new(Box::new(Defaults)));
        let rehearsal = Rc::new(Cell::new(false));
        let link = Link::new(&rules, world.clone(), chooser.clone(), rehearsal.clone())
            .map_err(|e| Error::Script(lua_message(&e)))?;
        Ok(Engine {
            world,
            rules,
            link,
            layout,
            chooser,
            rehearsal,
            snapshot: State::new(Vec::new(), 0),
            rolled_back: None,
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
        link.probe.on.set(self.link.probe.on.get());
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
    /// Returns the state it replaces.
    pub fn restore(&mut self, state: State) -> State {
        std::mem::replace(&mut self.world.borrow_mut().state, state)
    }

    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// Notes every handler call from now on, or stops (`--trace`, `--profile`;
    /// [`Engine::take_calls`]). Off, as a game starts, it costs nothing but a flag's test.
    pub fn set_probe(&mut self, on: bool) {
        self.link.probe.on.set(on);
    }

    /// The handler calls noted since the last take, in the order they began.
    pub fn take_calls(&self) -> Vec<HandlerCall> {
        std::mem::take(&mut *self.link.probe.calls.borrow_mut())
    }

    /// Where the last failed transaction stopped and what it had logged, taken (so that a
    /// later failure outside a transaction is not reported with an old one's moment).
    pub fn take_rolled_back(&mut self) -> Option<RolledBack> {
        self.rolled_back.take()
    }

    /// Who answers the players' questions from now on (`crate::decision`): fixed answers
    /// in a scenario, bots and people in a game. The default chooser takes every default.
    pub fn set_chooser(&mut self, chooser: Box<dyn Chooser>) {
        *self.chooser.borrow_mut() = chooser;
    }

    /// The questions asked so far, if the chooser keeps them (a scenario's).
    pub fn asked(&self) -> Vec<crate::decision::Asked> {
        self.chooser.borrow().asked().to_vec()
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
        let base = crate::deal::hand_size(damage) as i32;
        let n = self.resolver().modify_number(robot, "hand_size", base)?;
        Ok(n.max(0) as usize)
    }

    /// Whether the robot's options make `flag` true or false (`modify[key]` on a boolean):
    /// the turn loop asks `power_down` at the end of the turn (Circuit Breaker).
    pub fn modify_flag(&self, robot: RobotId, key: &str, flag: bool) -> Result<bool> {
        self.resolver().modify_flag(robot, key, flag)
    }

    /// Asks the robot's player through the decision interface, outside the registers (the
    /// turn loop's decisions: power down, re-entry, `game::questions`); `words` makes the
    /// question's text and hints for bots, if the chooser reads them. Logged as `chose`.
    pub fn choose(
        &self,
        robot: RobotId,
        key: &str,
        choices: Vec<String>,
        words: impl FnOnce() -> Words,
    ) -> Result<String> {
        self.resolver().choose(robot, key, choices, false, words)
    }

    /// Runs the programming-time hooks (`on_deal`, `on_program`) for the robots dealt cards
    /// this turn, as a transaction.
    pub fn programming(&mut self, robots: &[RobotId], when: Programming) -> Result<()> {
        self.transaction(|e| e.programming(robots, when))
    }

    pub fn state(&self) -> Ref<'_, State> {
        Ref::map(self.world.borrow(), |w| &w.state)
    }

    /// The state, to change between registers from native code: the turn loop deals cards,
    /// installs programs and applies power down here (`game::Game`). Scripts never get it.
    pub fn state_mut(&self) -> std::cell::RefMut<'_, State> {
        std::cell::RefMut::map(self.world.borrow_mut(), |w| &mut w.state)
    }

    pub fn board(&self) -> Rc<Board> {
        self.world.borrow().board.clone()
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    fn resolver(&self) -> Resolver<'_> {
        Resolver {
            lua: &self.rules.lua,
            link: &self.link,
        }
    }

    /// Runs `f` as a transaction: on error the state is restored as it was. The event log
    /// only grows, so it is cut back to its length instead of being copied.
    fn transaction(&mut self, f: impl FnOnce(&Resolver) -> Result<()>) -> Result<()> {
        let logged = {
            let mut w = self.world.borrow_mut();
            let events = std::mem::take(&mut w.state.events);
            self.snapshot.clone_from(&w.state);
            w.state.events = events;
            w.state.events.len()
        };
        self.link.quota.reset(logged);
        self.link.step.set(None);
        self.rolled_back = None;
        let result = f(&self.resolver());
        if let Err(e) = &result {
            let mut w = self.world.borrow_mut();
            let mut events = std::mem::take(&mut w.state.events);
            self.rolled_back = Some(RolledBack {
                turn: w.state.turn,
                register: w.state.register,
                step: self
                    .link
                    .step
                    .get()
                    .map(|s| self.link.defs.order[s].name.clone()),
                events: events.split_off(logged.min(events.len())),
            });
            std::mem::swap(&mut w.state, &mut self.snapshot);
            w.state.events = events;
            // What the failed register queued belongs to it.
            w.forget_queued();
            self.link.shots.borrow_mut().clear();
            tracing::debug!("rolled back: {e}");
        }
        result
    }

    pub fn start_turn(&mut self) -> Result<()> {
        let start = |e: &Resolver| {
            e.world().state.register = 0;
            e.run_steps(false, Some(Segment::TurnStart))
        };
        // Where nothing acts at the start of a turn (most boards), nothing can fail: there is
        // no copy of the state to make for a rollback.
        if self.resolver().idle(Segment::TurnStart) {
            self.rolled_back = None;
            return start(&self.resolver());
        }
        self.transaction(start)
    }

    /// Resolves register `register` (1..=5).
    pub fn run_register(&mut self, register: u8) -> Result<()> {
        self.transaction(|e| e.run_register(register))
    }

    /// Resolves register `register` as [`Engine::run_register`] does, but without keeping a
    /// copy of the state to roll back to: for a bot trying programs out, which keeps its own
    /// copies and puts the game back itself, whatever happens.
    pub fn rehearse_register(&mut self, register: u8) -> Result<()> {
        self.link.quota.reset(self.state().events.len());
        let result = self.resolver().run_register(register);
        if result.is_err() {
            self.world.borrow_mut().forget_queued();
            self.link.shots.borrow_mut().clear();
        }
        result
    }

    /// Resolves register `register` as [`Engine::run_register`] does, and returns the robots
    /// after every step and card in which something happened, in order (the frames of the
    /// replay viewer and the playtest table).
    pub fn run_register_noted(&mut self, register: u8) -> Result<Vec<StepSnapshot>> {
        {
            let mut w = self.world.borrow_mut();
            let start = StepSnapshot {
                step: String::new(),
                robot: None,
                events: w.state.events.len(),
                robots: w.state.robots.clone(),
            };
            w.noted = Some(vec![start]);
        }
        let result = self.run_register(register);
        let noted = self.world.borrow_mut().noted.take().unwrap_or_default();
        result.map(|()| noted.into_iter().skip(1).collect())
    }

    /// Repairs, re-entry and the other end-of-turn steps; the next turn begins.
    pub fn end_turn(&mut self) -> Result<()> {
        self.transaction(|e| {
            e.world().state.register = 0;
            e.run_steps(false, Some(Segment::EndOfTurn))
        })
    }
}
