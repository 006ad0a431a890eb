//! Shots that replace the main laser (rules.md §6.2, §6.3, §9 #21): Pressor Beam, Tractor
//! Beam, Mini Howitzer, Radio Control, Scrambler, Fire Control, or any option declaring
//! `shot = { fire =, can =, advise = }`. While the robots' lasers fire (one snapshot), each
//! robot whose main laser would hit a robot, and which holds a shot that `can` be used on it,
//! is asked the question `shot`: "laser" (the default) or one of those options. A shot chosen
//! instead of the laser is queued; when the volley's damage has been applied, the queued shots
//! resolve one by one in the priority order of their shooters' cards this register (cards
//! without a priority after, in robot order). A shot whose target has left the board, or
//! whose shooter no longer holds the option (scrapped to absorb the volley), does nothing.

use super::*;

/// A shot chosen instead of a main laser, waiting for the volley to be applied.
#[derive(Clone, Debug)]
pub(crate) struct QueuedShot {
    shooter: RobotId,
    option: String,
    target: RobotId,
    dir: Dir,
    strength: i32,
}

impl<'a> Resolver<'a> {
    /// Asks the shooter's player whether to fire the laser at `target` or an option's shot
    /// instead; queues the shot and returns true if it is a shot.
    pub(super) fn choose_shot(
        &self,
        shooter: RobotId,
        target: RobotId,
        dir: Dir,
        strength: i32,
    ) -> Result<bool> {
        let defs = self.link.defs.clone();
        let mut choices = vec!["laser".to_string()];
        let mut advice = None;
        for (def, name) in self.held_options(shooter) {
            let Some(shot) = &defs.options[def].shot else {
                continue;
            };
            let Some(option) = self.option_arg(shooter, &name)? else {
                continue;
            };
            let args = (
                &self.link.ctx,
                self.robot(shooter),
                self.robot(target),
                option,
            );
            if let Some(can) = &shot.can {
                let what = || self.context(Who::Option(def), "shot.can", Some(shooter));
                if !self
                    .call(can, args.clone(), what)?
                    .as_boolean()
                    .unwrap_or(false)
                {
                    continue;
                }
            }
            if let (None, Some(advise)) = (&advice, &shot.advise) {
                let what = || self.context(Who::Option(def), "shot.advise", Some(shooter));
                if self.call(advise, args, what)?.as_boolean().unwrap_or(false) {
                    advice = Some(name.clone());
                }
            }
            choices.push(name);
        }
        if choices.len() == 1 {
            return Ok(false);
        }
        let target_name = self.robot_name(target);
        let mut detail = serde_json::Map::new();
        detail.insert("target".into(), target_name.clone().into());
        detail.insert(
            "advice".into(),
            advice.unwrap_or_else(|| "laser".into()).into(),
        );
        let text =
            format!("Your laser would hit {target_name}: fire it, or use an option instead?");
        let answer = self.choose(shooter, "shot", choices, false, || (text, detail))?;
        if answer == "laser" {
            return Ok(false);
        }
        self.link.shots.borrow_mut().push(QueuedShot {
            shooter,
            option: answer,
            target,
            dir,
            strength,
        });
        Ok(true)
    }

    /// Resolves the shots queued this step, in the priority order of their shooters' cards.
    pub(super) fn resolve_shots(&self) -> Result<()> {
        let mut shots = std::mem::take(&mut *self.link.shots.borrow_mut());
        if shots.is_empty() {
            return Ok(());
        }
        let priority = |id: RobotId| self.link.revealed.borrow()[id].and_then(|c| c.priority);
        shots.sort_by_key(|s| {
            let p = priority(s.shooter);
            (p.is_none(), std::cmp::Reverse(p), s.shooter)
        });
        let defs = self.link.defs.clone();
        // One shot at a time: robots the shots destroy are destroyed one after the other.
        self.world().begin_moment(false);
        for shot in shots {
            let target = self.robot_name(shot.target);
            if !self.is_active(shot.target) {
                self.world().state.log(
                    Some(shot.shooter),
                    "shot_missed",
                    || detail! {"option" => shot.option.clone(), "target" => target},
                );
                continue;
            }
            let held = self.option_arg(shot.shooter, &shot.option)?;
            let def = defs.options.iter().position(|o| o.name == shot.option);
            let (Some(option), Some(def)) = (held, def) else {
                self.world().state.log(
                    Some(shot.shooter),
                    "shot_lost",
                    || detail! {"option" => shot.option.clone(), "target" => target},
                );
                continue;
            };
            let Some(fire) = defs.options[def].shot.as_ref().map(|s| &s.fire) else {
                continue;
            };
            self.world().state.log(
                Some(shot.shooter),
                "shot",
                || detail! {"option" => shot.option.clone(), "target" => target},
            );
            let fields = [
                ("dir", shot.dir.name().into()),
                ("strength", shot.strength.into()),
            ];
            let info =
                values::table(self.lua, (), &fields).map_err(|e| Error::Script(lua_message(&e)))?;
            let what = || self.context(Who::Option(def), "shot.fire", Some(shot.shooter));
            self.call(
                fire,
                (
                    &self.link.ctx,
                    self.robot(shot.shooter),
                    self.robot(shot.target),
                    option,
                    info,
                ),
                what,
            )?;
            self.tell_destroyed()?;
        }
        Ok(())
    }
}
