//! The one dispatcher of the hooks: asks a hook's listeners in the order `src/hooks.rs`
//! declares (the rules, the robot's options, its square's elements), stops asking as the
//! table's guard says, and names the listener in an error the same way for every hook. What
//! a hook gives its handlers and what their answers do is the caller's: a payload made for
//! each listener (it may depend on what the ones before answered) and a reader of answers.

use super::*;
use crate::hooks::{Guard, Hook, Listener};
use crate::script::decl::Hears;

/// Who a listener is: a rule, an option card (by definition) or a tile's element.
#[derive(Clone, Copy, Debug)]
pub(super) enum Who {
    Rule(usize),
    Option(usize),
    Tile(usize),
}

/// What a hook is about: its robot, and the squares whose elements hear it.
pub(super) struct About<'s> {
    /// The robot the rules and the square hear of (the first), and the robots whose options
    /// hear it, in order (`on_push`: the pusher's, then the pushed robot's).
    pub robots: &'s [RobotId],
    /// The squares whose elements hear it, in order; `None`: the robot's own.
    pub squares: Option<&'s [Pos]>,
    /// Of the squares' elements, only those that declare `blocks` (`Some(true)`: they are
    /// asked before a crossing) or only the others (`Some(false)`); `None`: all.
    pub blocking: Option<bool>,
}

impl<'s> About<'s> {
    pub fn robot(id: &'s RobotId) -> About<'s> {
        About {
            robots: std::slice::from_ref(id),
            squares: None,
            blocking: None,
        }
    }
}

/// The listener being asked.
pub(super) struct Heard<'h> {
    pub who: Who,
    /// The robot it hears of (an option's: its holder).
    pub robot: RobotId,
    /// A square's element: its square.
    pub at: Option<Pos>,
    f: &'h Function,
    /// An option's own table (`{ name, uses, max_uses }`), its handlers' last argument.
    option: Option<Table>,
}

/// What the dispatcher does after an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flow {
    /// Ask the next listener.
    Go,
    /// This kind of listener is done; the next kind is asked.
    Done,
    /// No one else hears it.
    Stop,
}

/// Which kinds of listener have a handler for which hooks in a rule set: those with none
/// are not looked through (most hooks have no listener of most kinds).
#[derive(Default)]
pub(super) struct Listening {
    rules: u32,
    options: u32,
    squares: u32,
}

fn bit(hook: Hook) -> u32 {
    1 << hook as u32
}

/// The hooks any of `handlers` has a handler for, as bits.
fn mask<'h, F: 'h>(handlers: impl Iterator<Item = &'h Handlers<Hook, F>>) -> u32 {
    handlers.fold(0, |m, h| m | h.keys().fold(0, |m, &k| m | bit(k)))
}

impl Listening {
    /// The rule set's listeners on `board`: the squares' are those of the tiles on it, less
    /// the hooks a tile ignores (an element loaded but on no square of this board listens
    /// to nothing).
    pub fn new(defs: &Defs, board: &Board) -> Listening {
        let heard = |t: usize| {
            let hooks = defs.elements[board.tiles[t].element].hooks.keys();
            hooks
                .filter(|&&hook| board.hears(t, hook))
                .fold(0, |m, &hook| m | bit(hook))
        };
        Listening {
            rules: mask(defs.rules.iter().map(|r| &r.hooks)),
            options: mask(defs.options.iter().map(|o| &o.hooks)),
            squares: (0..board.tiles.len()).fold(0, |m, t| m | heard(t)),
        }
    }

    /// Does any listener of this kind have a handler for `hook`?
    pub fn any(&self, listener: Listener, hook: Hook) -> bool {
        let mask = match listener {
            Listener::Rules => self.rules,
            Listener::Options => self.options,
            Listener::Square => self.squares,
            Listener::Board => 0,
        };
        mask & bit(hook) != 0
    }
}

/// What a hook gives its handlers besides `ctx`, the robot, a square's tile and an option's
/// table: a tuple of 0 to 4 values, put where each kind of listener takes them.
pub(super) trait Payload {
    fn call(
        self,
        r: &Resolver,
        to: &Heard,
        via: Option<&Function>,
        what: &dyn Fn() -> Context,
    ) -> Result<Value>;
}

macro_rules! payload {
    ($($a:ident)*) => {
        impl<$($a: mlua::IntoLua),*> Payload for ($($a,)*) {
            #[allow(non_snake_case)]
            fn call(
                self,
                r: &Resolver,
                to: &Heard,
                via: Option<&Function>,
                what: &dyn Fn() -> Context,
            ) -> Result<Value> {
                let ($($a,)*) = self;
                let (ctx, robot) = (&r.link.ctx, r.robot(to.robot));
                match (to.who, via) {
                    (_, Some(via)) => r.call(via, (to.f, ctx, robot, $($a,)* to.option.as_ref()), what),
                    (Who::Rule(_), None) => r.call(to.f, (ctx, robot, $($a,)*), what),
                    (Who::Option(_), None) => r.call(to.f, (ctx, robot, $($a,)* to.option.as_ref()), what),
                    (Who::Tile(t), None) => r.call(to.f, (ctx, &r.link.tiles[t], robot, $($a,)*), what),
                }
            }
        }
    };
}

payload!();
payload!(A);
payload!(A B);
payload!(A B C D);

impl<'a> Resolver<'a> {
    /// Tells `hook` to its listeners, in the table's order. Each gets what `payload` makes
    /// for it (called through `via`, a Lua function given the handler first, when there is
    /// one); `answer` reads what it returned, or says what is wrong with it (the error then
    /// names the handler's own line).
    pub(super) fn hear<P: Payload>(
        &self,
        hook: Hook,
        about: About,
        via: Option<&Function>,
        payload: impl Fn(&Heard) -> mlua::Result<P>,
        mut answer: impl FnMut(&Heard, Value) -> std::result::Result<Flow, String>,
    ) -> Result<()> {
        let spec = hook.spec();
        let defs = self.link.defs.clone();
        let subject = about.robots[0];
        let asked = |id: RobotId| match spec.guard {
            Guard::Always => true,
            Guard::OnBoard => self.is_active(id),
            Guard::Destroyed => !self.is_active(id),
        };
        let mut ask = |heard: Heard| -> Result<Flow> {
            let what = || self.context(heard.who, spec.key, Some(heard.robot));
            let args = payload(&heard).map_err(|e| Error::Script(lua_message(&e)))?;
            let returned = args.call(self, &heard, via, &what)?;
            answer(&heard, returned).map_err(|m| self.returned(heard.f, &what().to_string(), &m))
        };
        for &listener in spec.listeners {
            if !self.link.listening.any(listener, hook) {
                continue;
            }
            let mut flow = Flow::Go;
            match listener {
                Listener::Rules => {
                    for (i, rule) in defs.rules.iter().enumerate() {
                        let Some(f) = rule.hooks.get(&hook) else {
                            continue;
                        };
                        if rule.hears == Hears::RobotsWithOptions && !self.holds_options(subject) {
                            continue;
                        }
                        if !asked(subject) {
                            break;
                        }
                        let who = Who::Rule(i);
                        flow = ask(Heard::new(who, subject, None, f, None))?;
                        if flow != Flow::Go {
                            break;
                        }
                    }
                }
                Listener::Options => {
                    'robots: for &robot in about.robots {
                        for (def, name) in self.held_options(robot) {
                            let Some(f) = defs.options[def].hooks.get(&hook) else {
                                continue;
                            };
                            // An earlier handler may have spent the option.
                            let Some(option) = self.option_arg(robot, &name)? else {
                                continue;
                            };
                            if !asked(robot) {
                                break;
                            }
                            let who = Who::Option(def);
                            flow = ask(Heard::new(who, robot, None, f, Some(option)))?;
                            if flow != Flow::Go {
                                break 'robots;
                            }
                        }
                    }
                }
                Listener::Square => {
                    let board = self.board();
                    let now = self.link.world.borrow().state.robots[subject].at;
                    let own = [now];
                    'squares: for &square in about.squares.unwrap_or(&own) {
                        for &t in board.tiles_at(square) {
                            if !board.hears(t, hook) {
                                continue;
                            }
                            let def = &defs.elements[board.tiles[t].element];
                            let Some(handler) = def.hooks.get(&hook) else {
                                continue;
                            };
                            if about.blocking.is_some_and(|b| b != def.blocks.is_some()) {
                                continue;
                            }
                            let moved = spec.guard == Guard::OnBoard && !self.is_at(subject, now);
                            if moved || !asked(subject) {
                                break 'squares;
                            }
                            let who = Who::Tile(t);
                            flow = match handler {
                                Step::Lua(f) => {
                                    ask(Heard::new(who, subject, Some(square), f, None))?
                                }
                                Step::Effect(effect) => {
                                    self.hook_effect(t, spec.key, effect, subject)?;
                                    Flow::Go
                                }
                            };
                            if flow != Flow::Go {
                                break 'squares;
                            }
                        }
                    }
                }
                // Every tile hears steps only, which `run_step` tells from its plan.
                Listener::Board => {}
            }
            if flow == Flow::Stop {
                break;
            }
        }
        Ok(())
    }

    /// An element's declared effect in a hook (a pit's `on_enter = rally.effect.destroy {
    /// cause = "pit" }`), run as its Lua form in the prelude would, shown by `--trace` as the
    /// tile's handler. Loading checked it is one that needs nothing of the tile.
    fn hook_effect(&self, t: usize, key: &str, effect: &Effect, id: RobotId) -> Result<()> {
        let what = || self.context(Who::Tile(t), &format!("{key} (effect)"), Some(id));
        match &effect.does {
            Does::Destroy { cause } => self.native_effect(what, || {
                self.world().destroy(id, cause);
                Ok(())
            }),
            other => unreachable!("a hook's effect is checked to be destroy, not {other:?}"),
        }
    }

    /// Who a listener is and what it was told, for an error: `rule `robot_lasers`
    /// (scripts/rules/robot_lasers.lua), on_damage, robot A`. `hook` is the key, or what
    /// of a table (`step `fire``, `modify.hand_size`, `shot.can`).
    pub(super) fn context(&self, who: Who, hook: &str, robot: Option<RobotId>) -> Context {
        let defs = &self.link.defs;
        let (who, file, at) = match who {
            Who::Rule(i) => (
                format!("rule `{}`", defs.rules[i].name),
                defs.rules[i].file.clone(),
                None,
            ),
            Who::Option(def) => {
                let o = &defs.options[def];
                (format!("option `{}`", o.name), o.file.clone(), None)
            }
            Who::Tile(t) => {
                let board = self.board();
                let tile = &board.tiles[t];
                let file = defs.elements[tile.element].file.clone();
                (format!("element `{}`", tile.name), file, Some(tile.at))
            }
        };
        Context {
            who,
            file,
            at,
            hook: hook.to_string(),
            robot: robot.map(|r| self.robot_name(r)),
        }
    }
}

impl<'h> Heard<'h> {
    fn new(
        who: Who,
        robot: RobotId,
        at: Option<Pos>,
        f: &'h Function,
        option: Option<Table>,
    ) -> Heard<'h> {
        Heard {
            who,
            robot,
            at,
            f,
            option,
        }
    }
}
