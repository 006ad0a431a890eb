//! What `rally run --trace` and `--profile` see of the handler calls (docs/debugging.md):
//! every call into a script goes through `Resolver::call`, which, only while a probe is on,
//! notes who was called, for what, what it logged and queued, the instructions it used and
//! its time. Off, the probe costs one test of a flag per call.

use super::*;
use crate::state::Event;
use std::time::{Duration, Instant};

/// Who a listener is and what it was told: `element `gear` at [1, 2]
/// (scripts/elements/gear.lua), step `gears`, robot A` (how errors name it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Context {
    /// `rule `robot_lasers``, `option `ablative_coat``, `element `gear``.
    pub who: String,
    /// The script that declares it.
    pub file: String,
    /// An element's square.
    pub at: Option<Pos>,
    /// The hook or step: `step `gears``, `on_enter`, `modify.hand_size`, `shot.can`.
    pub hook: String,
    /// The robot it is asked about.
    pub robot: Option<String>,
}

impl std::fmt::Display for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.who)?;
        if let Some(at) = self.at {
            write!(f, " at {at}")?;
        }
        write!(f, " ({}), {}", self.file, self.hook)?;
        if let Some(robot) = &self.robot {
            write!(f, ", robot {robot}")?;
        }
        Ok(())
    }
}

/// One handler call, in the order the calls began; a call made while another runs (a rule's
/// `on_rotate` during a gear's `ctx:rotate`) comes after it, one `depth` deeper. What it
/// logged, queued, used and took is its own: the calls it made count for themselves.
#[derive(Clone, Debug)]
pub struct HandlerCall {
    pub turn: u32,
    /// 1..=5, 0 outside the registers.
    pub register: u8,
    pub depth: u32,
    pub context: Context,
    /// The events it logged.
    pub events: Vec<Event>,
    /// Belt moves, pushes and hits it queued (resolved together when the step ends).
    pub queued: [usize; 3],
    /// Lua instructions, as the sandbox's budget counts them: in steps of 256 (its count
    /// hook's), so one short call reads 0 or 256 and many calls add up to about the truth.
    pub instructions: i64,
    pub time: Duration,
    /// What the calls it made used, to take off its own (while it runs).
    inner: (i64, Duration, [usize; 3]),
    /// Where its events began and ended in the log (while the stage runs).
    span: (usize, usize),
}

/// The calls noted while the probe is on.
#[derive(Default)]
pub(super) struct Probe {
    pub on: Cell<bool>,
    pub calls: RefCell<Vec<HandlerCall>>,
}

/// A call begun under the probe: where it is in the list, and what it started from.
pub(super) struct Begun {
    index: usize,
    used: i64,
    queued: [usize; 3],
    start: Instant,
}

impl Resolver<'_> {
    /// Runs a declared effect that calls no script (`rally.effect.convey`): `--trace` and
    /// `--profile` show it as the tile's handler, with no instructions, as the Lua step it
    /// replaces was shown.
    pub(super) fn native_effect(
        &self,
        what: impl Fn() -> Context,
        f: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        if !self.link.probe.on.get() {
            return f();
        }
        let mut begun = self.probe_begin(what(), self.link.depth.get());
        begun.used = self.link.budget.used();
        let done = f();
        self.probe_end(begun);
        done
    }

    /// Notes the start of a call (`depth` 0: a top-level call, whose budget starts afresh).
    pub(super) fn probe_begin(&self, context: Context, depth: u32) -> Begun {
        let w = self.link.world.borrow();
        let used = match depth {
            0 => 0,
            _ => self.link.budget.used(),
        };
        let queued = w.queued_counts();
        let mut calls = self.link.probe.calls.borrow_mut();
        calls.push(HandlerCall {
            turn: w.state.turn,
            register: w.state.register,
            depth,
            context,
            events: Vec::new(),
            queued: [0; 3],
            instructions: 0,
            time: Duration::ZERO,
            inner: (0, Duration::ZERO, [0; 3]),
            span: (w.state.events.len(), 0),
        });
        Begun {
            index: calls.len() - 1,
            used,
            queued,
            start: Instant::now(),
        }
    }

    /// Notes the end of the call `begun`: what it did itself, the calls it made taken off.
    pub(super) fn probe_end(&self, begun: Begun) {
        let time = begun.start.elapsed();
        let used = self.link.budget.used() - begun.used;
        let w = self.link.world.borrow();
        let now = w.queued_counts();
        let queued: [usize; 3] = std::array::from_fn(|i| now[i].saturating_sub(begun.queued[i]));
        let mut calls = self.link.probe.calls.borrow_mut();
        let (done, inner) = calls.split_at_mut(begun.index + 1);
        let (parents, call) = done.split_at_mut(begun.index);
        let call = &mut call[0];
        let log = &w.state.events;
        let end = log.len();
        call.span.1 = end;
        // Its own events: its span but those of the calls it made (each holds its own calls').
        let mut from = call.span.0.min(end);
        for child in inner.iter().filter(|c| c.depth == call.depth + 1) {
            let upto = child.span.0.clamp(from, end);
            call.events.extend_from_slice(&log[from..upto]);
            from = child.span.1.clamp(from, end);
        }
        call.events.extend_from_slice(&log[from..end]);
        let (inner_used, inner_time, inner_queued) = call.inner;
        call.instructions = (used - inner_used).max(0);
        call.time = time.saturating_sub(inner_time);
        call.queued = std::array::from_fn(|i| queued[i].saturating_sub(inner_queued[i]));
        // What it used counts as inner for the call that made it.
        if let Some(parent) = parents.iter_mut().rev().find(|c| c.depth + 1 == call.depth) {
            parent.inner.0 += used;
            parent.inner.1 += time;
            for (p, q) in parent.inner.2.iter_mut().zip(queued) {
                *p += q;
            }
        }
    }
}
