//! Option cards in the engine: their step handlers, `modify` (how a robot's options change a
//! number or a shot), and the decision interface every player choice goes through.

use super::*;

impl<'a> Resolver<'a> {
    /// Calls the step's handlers of every option held by a robot on the board: robots in
    /// the order they are listed, options in the order they were drawn.
    pub(super) fn option_steps(&self, step: usize) -> Result<()> {
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
                let what = || self.context(Who::Option(def), &defs.order[step].name, Some(id));
                self.call(f, (&self.link.ctx, self.robot(id), option), what)?;
            }
        }
        Ok(())
    }

    /// Does the robot hold any option card?
    pub(super) fn holds_options(&self, id: RobotId) -> bool {
        !self.link.world.borrow().state.robots[id].options.is_empty()
    }

    /// The options a robot holds that the rule set defines, as (definition, name), in the
    /// order they were drawn. (One a hot reload removed is skipped.)
    pub(super) fn held_options(&self, id: RobotId) -> Vec<(usize, String)> {
        let w = self.link.world.borrow();
        let held = &w.state.robots[id].options;
        if held.is_empty() {
            // Most robots hold none, and every hook asks for each robot it is about.
            return Vec::new();
        }
        held.iter()
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
    pub(super) fn option_arg(&self, id: RobotId, name: &str) -> Result<Option<Table>> {
        let held = {
            let w = self.link.world.borrow();
            let r = &w.state.robots[id];
            r.option(name).map(|i| r.options[i].uses_left)
        };
        let Some(uses) = held else { return Ok(None) };
        let max = self.link.defs.option_def(name).and_then(|d| d.uses);
        ctx::option_table(self.lua, name, uses, max)
            .map(Some)
            .map_err(|e| Error::Script(lua_message(&e)))
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
            let what = || self.context(Who::Option(def), &format!("modify.{key}"), Some(id));
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

    /// [`Resolver::modify`] for a number: a script returning anything else is an error.
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

    /// [`Resolver::modify`] for a flag: a script returning anything else is an error.
    pub fn modify_flag(&self, id: RobotId, key: &str, flag: bool) -> Result<bool> {
        match self.modify(id, key, Value::Boolean(flag))? {
            Value::Boolean(b) => Ok(b),
            other => Err(Error::Script(format!(
                "robot {}: the options' `modify.{key}` must give true or false, not {other:?}",
                self.robot_name(id)
            ))),
        }
    }

    /// Asks the robot's player a question (the decision interface, `crate::decision`) and
    /// logs `chose` with the answer. No answer from the chooser means the first choice.
    /// `words` makes the question's text and its hints for bots, if the chooser reads them
    /// ([`Chooser::reads_words`]); `hidden`: the answer tells what is face down.
    pub fn choose(
        &self,
        id: RobotId,
        key: &str,
        choices: Vec<String>,
        hidden: bool,
        words: impl FnOnce() -> Words,
    ) -> Result<String> {
        let name = self.robot_name(id);
        if choices.is_empty() {
            return Err(Error::Script(format!(
                "robot {name}: question `{key}` has no choices"
            )));
        }
        // Read before `words` runs, which may look at the game but never at the chooser.
        let reads = self.link.chooser.borrow().reads_words();
        let (text, detail) = if reads { words() } else { Words::default() };
        let question = Question {
            robot: id,
            robot_name: name.clone(),
            key: key.to_string(),
            choices,
            text,
            detail,
            rehearsal: self.link.rehearsal.get(),
            turn: self.link.world.borrow().state.turn,
        };
        // A person may take the table's whole timeout to answer: not the script's time.
        let given = self
            .link
            .budget
            .waiting(|| self.link.chooser.borrow_mut().choose(&question));
        let answer = match given {
            None => question.default_answer().to_string(),
            Some(a) if question.choices.contains(&a) => a,
            Some(a) => {
                let wrong = format!(
                    "`{a}` is not an answer to `{key}`; expected one of {}",
                    question.choices.join(", ")
                );
                return Err(match self.link.chooser.borrow().origin() {
                    Some(file) => Error::File {
                        file: file.to_path_buf(),
                        message: format!("robot `{name}`'s `choices`: {wrong}"),
                    },
                    None => Error::Script(format!("robot {name}: {wrong}")),
                });
            }
        };
        // `default`: the answer is the question's default, whether the chooser said so or had
        // no opinion (a replay gives the same answer, so it logs the same event).
        let default = answer == question.default_answer();
        // `timed_out`: nobody answered in time, so the default was taken for them.
        let timed_out = self.link.chooser.borrow().timed_out();
        // `hidden`: the answer tells what is face down (Dual Processor's register); a
        // playtest table shows it to no one else.
        self.world().state.log(Some(id), "chose", || {
            let mut d = detail! {"answer" => answer.clone(), "default" => default, "question" => key.to_string()};
            if hidden {
                d.insert("hidden", true);
            }
            if timed_out {
                d.insert("timed_out", true);
            }
            d
        });
        Ok(answer)
    }
}
