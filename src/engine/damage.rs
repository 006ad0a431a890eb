//! Damage: the robot-laser volley, hits queued in segment D and applied together, the
//! robot's options and the rules changing each hit (`on_damage`: preventing some or all of it,
//! or adding to it), and telling the rules about destroyed robots (`on_destroyed`).

use super::values;
use super::*;
use std::sync::{Arc, LazyLock};

/// The cause of a robot's main laser's damage, made once.
static ROBOT_LASER: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from("robot laser"));

impl<'a> Resolver<'a> {
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
            // An option's shot may replace the laser at the first robot it would hit.
            if let (true, Some(&first)) = (holds_options, hits.first()) {
                if self.choose_shot(id, first, facing, strength)? {
                    continue;
                }
            }
            let shot = Shot {
                from: at,
                shooter: Some(id),
            };
            for target in hits {
                self.shoot(target, strength, &ROBOT_LASER, facing, shot)?;
            }
        }
        Ok(())
    }

    /// What a robot's options make of its main laser: `(strength, through)`.
    fn main_laser(&self, id: RobotId) -> Result<(i32, u32)> {
        let shot = values::table(
            self.lua,
            (),
            &[("strength", 1.into()), ("through", 0.into())],
        )
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

    /// Fires a beam from `start` along `dir` (rules.md §6.1, §6.2; [`crate::world::trace`]:
    /// from `start` itself for a board laser, from the next square for a robot's `shooter`,
    /// going on through `through` walls or robots): every robot it hits takes `strength`
    /// damage from `cause`. Returns those robots, nearest first.
    pub fn fire_beam(
        &self,
        start: Pos,
        dir: Dir,
        strength: i32,
        cause: &Arc<str>,
        shooter: Option<RobotId>,
        through: u32,
    ) -> Result<crate::world::Robots> {
        let hits = self
            .link
            .world
            .borrow()
            .trace_beam(start, dir, shooter.is_some(), through);
        let shot = Shot {
            from: start,
            shooter,
        };
        for &target in &hits {
            self.shoot(target, strength, cause, dir, shot)?;
        }
        Ok(hits)
    }

    /// Damage from a beam travelling `dir`, fired as `shot` says: a [`Resolver::hit`] whose
    /// events name where the beam came from and who fired it.
    pub fn shoot(
        &self,
        id: RobotId,
        amount: i32,
        cause: &Arc<str>,
        dir: Dir,
        shot: Shot,
    ) -> Result<()> {
        self.hit(Hit::beam(id, amount, cause.clone(), dir, shot))
    }

    /// Deals a hit's damage: queued while the step fires a volley (segment D), otherwise at
    /// once.
    pub fn hit(&self, hit: Hit) -> Result<()> {
        if self.link.world.borrow().defer_damage {
            self.world().queue_hit(hit);
            Ok(())
        } else {
            self.apply_hit(hit)
        }
    }

    /// Applies the queued volley, hit by hit: robots destroyed by it still fired in it.
    pub(super) fn flush_damage(&self) -> Result<()> {
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

    /// Damage as the robot takes it: its listeners' `on_damage` (its options, then the
    /// rules: `src/hooks.rs`), each may lower it (logged as `damage_prevented`) or raise it
    /// (`damage_added`, rules.md §6.4 leaves room for house rules that hurt more); then the
    /// tokens.
    fn apply_hit(&self, hit: Hit) -> Result<()> {
        let id = hit.robot;
        if hit.amount <= 0 || !self.is_active(id) {
            return Ok(());
        }
        let defs = self.link.defs.clone();
        let names = &self.link.names;
        // `info` = { cause, from, absorb }, made by `calls.damage` in the handler's call (only
        // if a handler listens: most hits are heard by nobody).
        let from = hit.from.map(|d| names.dir(d));
        let cause = std::cell::OnceCell::new();
        // Each listener sees what the ones before it left of the damage.
        let amount = Cell::new(hit.amount);
        self.hear(
            Hook::Damage,
            About::robot(&id),
            Some(&names.calls.damage),
            |_| {
                if cause.get().is_none() {
                    _ = cause.set(names.cause(self.lua, &hit.cause)?);
                }
                let cause = cause.get().expect("set just now");
                Ok((amount.get(), cause, from, hit.absorb))
            },
            |heard, returned| {
                let before = amount.get();
                let new = taken_damage(&returned, before)?;
                if new != before && !self.link.world.borrow().state.quiet {
                    let by = match heard.who {
                        Who::Option(def) => defs.options[def].name.clone(),
                        Who::Rule(r) => defs.rules[r].name.clone(),
                        Who::Tile(t) => self.board().tiles[t].name.clone(),
                    };
                    let (what, by_how_much) = if new < before {
                        ("damage_prevented", before - new)
                    } else {
                        ("damage_added", new - before)
                    };
                    let mut w = self.world();
                    let mut detail =
                        detail! {"amount" => by_how_much, "by" => by, "cause" => hit.cause.clone()};
                    w.describe_shot(hit.shot, &mut detail);
                    w.state.log(Some(id), what, detail);
                }
                amount.set(new);
                Ok(if new > 0 { Flow::Go } else { Flow::Stop })
            },
        )?;
        let amount = amount.get();
        if self.is_active(id) {
            self.world().apply_damage(&hit, amount);
        }
        Ok(())
    }

    /// Tells the rules' `on_destroyed` about every robot destroyed since the last time, in
    /// order of destruction (a destroyed robot scraps an option there, rules.md §6.5).
    pub(super) fn tell_destroyed(&self) -> Result<()> {
        if self.link.world.borrow().destroyed_now.is_empty() {
            return Ok(());
        }
        loop {
            let ids = std::mem::take(&mut self.world().destroyed_now);
            if ids.is_empty() {
                return Ok(());
            }
            for id in ids {
                self.hear(
                    Hook::Destroyed,
                    About::robot(&id),
                    None,
                    |_| Ok(()),
                    |_, _| Ok(Flow::Go),
                )?;
            }
        }
    }
}

/// What an `on_damage` handler returned, as the damage to take: nil leaves `amount`; else a
/// whole number from 0 (all of it prevented) to 10 (destroys any robot), or up to `amount`
/// itself when that is more. Anything else is the handler's mistake, never clamped away.
fn taken_damage(value: &Value, amount: i32) -> std::result::Result<i32, String> {
    let most = amount.max(crate::state::LETHAL_DAMAGE);
    let whole = match value {
        Value::Nil => return Ok(amount),
        Value::Integer(n) => Some(*n),
        Value::Number(x) if x.fract() == 0.0 && x.abs() < 1e15 => Some(*x as i64),
        Value::Number(_) => None,
        other => {
            return Err(format!(
                "on_damage returned {}, {}; it must return nil (no change) or the damage to take, a whole number",
                other.to_string().unwrap_or_default(),
                crate::script::args::a(other.type_name())
            ))
        }
    };
    let shown = match value {
        Value::Integer(n) => n.to_string(),
        Value::Number(x) => x.to_string(),
        _ => String::new(),
    };
    match whole {
        Some(n) if (0..=i64::from(most)).contains(&n) => Ok(n as i32),
        _ => Err(format!(
            "on_damage returned {shown}: the damage to take is a whole number from 0 to {most}"
        )),
    }
}
