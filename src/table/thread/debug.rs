//! The host's debug panel (docs/table.md, "The host's debug panel"): pause and resume, change
//! a robot, give or take an option or a card, undo, and rewind to the start of a register or
//! turn to play it again under the rules loaded now.
//!
//! Only the table thread's turn loop holds the [`Game`], so the panel's changes are made
//! there, between two stages: `pause` stops the table at the next stage boundary
//! ([`boundary`]), where the host's actions queued by the pump are checked and applied. Each
//! is a `host` event in the game's events (so the save, the replay and every page's log
//! have it), told to the pages at once as a stage of its own, and undone by putting back the
//! game as it was before it (the state, the turn loop's progress and its history, exactly).
//! A rewind puts back the game as it was when that stage began: the same copy the turn
//! loop's transaction takes (`TurnLoop::advance`), kept at each boundary of the turns not yet
//! in the journal.

use super::{Stand, Table, TableSeats};
use crate::game::{Game, Phase, Progress, Stage, TurnRecord};
use crate::geometry::Pos;
use crate::state::{HeldOption, Robot, State, REGISTERS};
use crate::table::frames::{self, Secrets};
use crate::table::protocol::{error_frame, DebugRobot, DebugView, Incoming, OptionCard, RewindTo};
use serde_json::json;
use std::borrow::Cow;
use std::time::{Duration, Instant};

/// A robot with 10 damage is destroyed: the panel sets at most this much.
const MAX_DAMAGE: i32 = 9;
/// The most lives the panel gives a robot.
const MAX_LIVES: i32 = 99;
/// The most host actions undo keeps (each holds a copy of the state).
const MAX_UNDO: usize = 100;
/// How many turns back a rewind may go (each stage kept is a copy of the state).
const REWIND_TURNS: u32 = 5;

/// The panel's side of the table: what the host asked for and what it can go back to.
#[derive(Default)]
pub(super) struct Panel {
    /// When the host asked to pause, until they resume.
    pausing: Option<Instant>,
    /// The table is held at a stage boundary: the edits can be applied.
    paused: bool,
    /// Actions the pump received while paused, for the boundary (which has the game).
    queue: Vec<Incoming>,
    /// The game before each host action since the table paused, the last last.
    undo: Vec<Undo>,
    /// The game as each stage of the last [`REWIND_TURNS`] turns began, for rewinds.
    marks: Vec<Mark>,
    /// How many events at the start of the next stage's are the host's, told already.
    told: usize,
    /// The rules' option cards and the turn's deck, as of the last boundary.
    options: Vec<OptionCard>,
    deck: Vec<String>,
}

/// The game as a stage began.
#[derive(Clone)]
struct Mark {
    state: State,
    progress: Progress,
    /// The history's length then, and its last turn's events and snapshots.
    history: (usize, usize, usize),
}

impl Mark {
    fn to(&self) -> RewindTo {
        RewindTo {
            turn: self.state.turn,
            register: match self.progress.phase {
                Phase::Register(r) => r,
                _ => 0,
            },
        }
    }
}

/// What undo puts back.
struct Undo {
    state: State,
    progress: Progress,
    /// The history from `cut` on, as it was (a rewind shortens it).
    cut: usize,
    tail: Vec<TurnRecord>,
    /// The marks, when a rewind dropped some.
    marks: Option<Vec<Mark>>,
    /// The host's action in words.
    said: String,
}

impl Panel {
    pub(super) fn pausing(&self) -> bool {
        self.pausing.is_some()
    }

    pub(super) fn paused(&self) -> bool {
        self.paused
    }

    /// The stage the turn loop just ran, without the host's events at its start: the pages
    /// were told them when they happened.
    pub(super) fn untold<'a>(&mut self, stage: &'a Stage) -> Cow<'a, Stage> {
        let told = std::mem::take(&mut self.told);
        if told == 0 {
            return Cow::Borrowed(stage);
        }
        let cut = |events: &[crate::state::Event]| events[told.min(events.len())..].to_vec();
        Cow::Owned(match stage {
            Stage::Programmed { hands, events } => Stage::Programmed {
                hands: hands.clone(),
                events: cut(events),
            },
            Stage::Register {
                register,
                events,
                steps,
            } => Stage::Register {
                register: *register,
                events: cut(events),
                steps: steps
                    .iter()
                    .map(|s| crate::state::StepSnapshot {
                        events: s.events.saturating_sub(told),
                        ..s.clone()
                    })
                    .collect(),
            },
            Stage::EndOfTurn { events } => Stage::EndOfTurn {
                events: cut(events),
            },
        })
    }

    /// The host's panel as its page shows it.
    pub(super) fn view(&self, robots: &[Robot]) -> DebugView {
        DebugView {
            pausing: self.pausing.is_some(),
            paused: self.paused,
            rewind: self.marks.iter().map(Mark::to).collect(),
            undo: self.undo.iter().map(|u| u.said.clone()).collect(),
            robots: robots
                .iter()
                .map(|r| DebugRobot {
                    name: r.name.to_string(),
                    program: (0..REGISTERS)
                        .map(|i| r.program.get(i).copied().flatten().map(|c| c.to_string()))
                        .collect(),
                    archive: r.archive,
                })
                .collect(),
            options: self.options.clone(),
            deck: self.deck.clone(),
        }
    }
}

impl Table {
    /// A debug action from the host's page, checked for when it may be done: pause and
    /// resume at once; the others while the table is paused, applied at the boundary.
    pub(super) fn debug(&mut self, message: Incoming) -> Result<(), String> {
        match message {
            Incoming::Pause {} => {
                if self.debug.pausing.is_some() {
                    return Err("the table is paused already".into());
                }
                if matches!(self.stand, Stand::Over) {
                    return Err("the game is over".into());
                }
                self.debug.pausing = Some(Instant::now());
                Ok(())
            }
            Incoming::Resume {} => {
                let since = self.debug.pausing.take().ok_or("the table is not paused")?;
                self.paused_for(since.elapsed());
                Ok(())
            }
            action if self.debug.paused => {
                self.debug.queue.push(action);
                Ok(())
            }
            _ if self.debug.pausing.is_some() => Err(
                "the table pauses at the end of this stage: the panel's changes wait for it".into(),
            ),
            _ => Err("pause the table first: the panel changes the game between stages".into()),
        }
    }

    /// The classic timer and the time an absent player has before a bot steps in stood
    /// still while the table was paused.
    fn paused_for(&mut self, paused: Duration) {
        if let Some(t) = &mut self.timer {
            *t += paused;
        }
        for seat in &mut self.seats {
            if let Some(t) = &mut seat.absent_since {
                *t += paused;
            }
        }
    }

    /// Tells every page what the host did (`events`), as a stage of its own, and saves the
    /// game.
    fn tell(&mut self, m: &Game, events: &[crate::state::Event], extra: &[String]) {
        let state = m.engine.state();
        let now = state.robots.clone();
        let revealed = match m.progress.phase {
            Phase::Register(r) => r as usize - 1,
            Phase::EndOfTurn | Phase::Over => REGISTERS,
            Phase::Program => 0,
        };
        let locked: Vec<crate::cards::Card> = now
            .iter()
            .flat_map(|r| {
                (0..REGISTERS)
                    .filter(|&i| crate::deal::is_locked(r, i))
                    .filter_map(|i| r.program.get(i).copied().flatten())
            })
            .collect();
        let secrets = Secrets::new(&now, revealed, &locked);
        let telling = frames::Telling {
            public: &self.public_vars,
            sentences: &self.sentences,
        };
        let seq = self.log.len() as u64 + 1;
        let (message, entry) = frames::host(
            &self.board,
            &telling,
            (seq, state.turn),
            events,
            (&self.robots, &now),
            (revealed, &secrets),
        );
        self.log.push(entry);
        self.turn = state.turn;
        self.robots = now;
        self.debug.deck = state.deck.iter().flatten().map(|c| c.to_string()).collect();
        drop(state);
        self.send_all(&message);
        self.stage_saved(m, extra);
        self.broadcast();
    }
}

/// A stage boundary of the turn loop: while the host has the table paused, wait here and
/// apply the panel's actions; then keep the game as the next stage begins, for rewinds.
pub(super) fn boundary(m: &mut Game, seats: &mut TableSeats, extra: &[String]) {
    let table = seats.table.clone();
    {
        let mut t = table.borrow_mut();
        // A pause sent while the stage resolved (nothing is read meanwhile) holds here.
        t.pump(Some(Duration::ZERO));
        mark(m, &mut t);
        let options = m
            .engine
            .rules()
            .options
            .iter()
            .map(|o| OptionCard {
                name: o.name.clone(),
                title: crate::pictures::words::option_words(&o.name),
                text: t.option_texts.get(&o.name).cloned().unwrap_or_default(),
                uses_left: None,
            })
            .collect();
        t.debug.options = options;
    }
    loop {
        let mut t = table.borrow_mut();
        if t.closed {
            return;
        }
        let pausing = t.debug.pausing.is_some();
        if pausing != t.debug.paused {
            let from = m.engine.state().events.len();
            let did = if pausing { "paused" } else { "resumed" };
            log(m, None, json!({"did": did}));
            t.debug.paused = pausing;
            if !pausing {
                t.debug.undo.clear();
            }
            let events = m.engine.state().events[from..].to_vec();
            t.tell(m, &events, extra);
        }
        if !t.debug.paused {
            break;
        }
        for action in std::mem::take(&mut t.debug.queue) {
            if let Err(e) = act(m, &mut t, action, extra) {
                t.send_host(&error_frame(&e));
            }
        }
        drop(t);
        let wait = seats.tick(None);
        table.borrow_mut().pump(wait);
        seats.reload(&mut m.engine);
    }
    let mut t = table.borrow_mut();
    t.debug.told = m.engine.state().events.len();
    mark(m, &mut t);
}

/// Keeps the game as the stage about to run begins: as the boundary is reached, and again
/// as it is left (with the host's changes made there).
fn mark(m: &Game, t: &mut Table) {
    // A turn's end is played again from its last register.
    if !matches!(m.progress.phase, Phase::Program | Phase::Register(_)) {
        return;
    }
    let state = m.engine.state();
    let key = (state.turn, m.progress.phase);
    let history = (
        m.history.len(),
        m.history.last().map_or(0, |h| h.events.len()),
        m.history.last().map_or(0, |h| h.snapshots.len()),
    );
    let marks = &mut t.debug.marks;
    marks.retain(|k| (k.state.turn, k.progress.phase) != key);
    marks.retain(|k| k.state.turn + REWIND_TURNS > state.turn);
    marks.push(Mark {
        state: state.clone(),
        progress: m.progress.clone(),
        history,
    });
}

/// Logs a `host` event (`pictures::words` tells it: "the host moved robot Ann to [3, 4]").
fn log(m: &Game, robot: Option<usize>, detail: serde_json::Value) {
    m.engine.state_mut().log(robot, "host", object(detail));
}

/// The fields of a `json!` object.
fn object(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    match v {
        serde_json::Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}

/// One action of the panel, checked against the game: applied whole, or not at all.
fn act(m: &mut Game, t: &mut Table, action: Incoming, extra: &[String]) -> Result<(), String> {
    let before = Undo {
        state: m.engine.state().clone(),
        progress: m.progress.clone(),
        cut: m.history.len(),
        tail: Vec::new(),
        marks: None,
        said: String::new(),
    };
    let from = before.state.events.len();
    let from = match action {
        Incoming::Undo {} => {
            let undo = t.debug.undo.pop().ok_or("there is nothing to undo")?;
            m.engine.restore(undo.state);
            m.progress = undo.progress;
            m.history.truncate(undo.cut);
            m.history.extend(undo.tail);
            if let Some(marks) = undo.marks {
                t.debug.marks = marks;
            }
            // The game is as it was, its events too; the pages' log says what was taken
            // back.
            let mut told = m.engine.state().clone();
            told.events.clear();
            told.log(
                None,
                "host",
                object(json!({"did": "undid", "action": undo.said})),
            );
            t.tell(m, &told.events, extra);
            return Ok(());
        }
        Incoming::Rewind { turn, register } => {
            let undo = rewind(m, t, turn, register, before)?;
            push(t, undo);
            m.engine.state().events.len() - 1
        }
        Incoming::Edit {
            robot,
            at,
            facing,
            damage,
            lives,
            flags,
            archive,
        } => {
            let id = robot_id(m, &robot)?;
            let board = m.engine.board();
            let on_board = |what: &str, p: Pos| {
                if board.contains(p) {
                    Ok(())
                } else {
                    Err(format!(
                        "{what} {p} is not on the {}×{} board",
                        board.width, board.height
                    ))
                }
            };
            if let Some(p) = at {
                on_board("square", p)?;
                let state = m.engine.state();
                if let Some(other) = state
                    .robots
                    .iter()
                    .enumerate()
                    .find(|(i, r)| *i != id && !r.destroyed && r.at == p)
                {
                    return Err(format!("robot {} stands on {p}", other.1.name));
                }
            }
            if let Some(p) = archive {
                on_board("archive", p)?;
            }
            let range = |what: &str, v: Option<i64>, max: i64| match v {
                Some(v) if !(0..=max).contains(&v) => Err(format!("{what}: 0 to {max}")),
                _ => Ok(()),
            };
            range("damage", damage.map(i64::from), MAX_DAMAGE as i64)?;
            range("lives", lives.map(i64::from), MAX_LIVES as i64)?;
            range("flags", flags.map(i64::from), board.flags().len() as i64)?;
            if [at, archive].iter().all(Option::is_none)
                && facing.is_none()
                && [damage, lives].iter().all(Option::is_none)
                && flags.is_none()
            {
                return Err(
                    "an edit changes at least one of at, facing, damage, lives, flags, archive"
                        .into(),
                );
            }
            let mut said = Vec::new();
            let mut state = m.engine.state_mut();
            let r = &mut state.robots[id];
            if let Some(p) = at {
                let did = if r.destroyed { "placed" } else { "moved" };
                r.at = p;
                r.destroyed = false;
                said.push(json!({"did": did, "to": p}));
            }
            if let Some(f) = facing {
                r.facing = f;
                said.push(json!({"did": "turned", "to": f}));
            }
            if let Some(d) = damage {
                crate::deal::set_damage(r, d);
                said.push(json!({"did": "damage", "to": d}));
            }
            if let Some(l) = lives {
                r.lives = l;
                said.push(json!({"did": "lives", "to": l}));
            }
            if let Some(f) = flags {
                r.flags = f;
                said.push(json!({"did": "flags", "to": f}));
            }
            if let Some(p) = archive {
                r.archive = p;
                said.push(json!({"did": "archive", "to": p}));
            }
            drop(state);
            for detail in said {
                log(m, Some(id), detail);
            }
            push(t, before);
            from
        }
        Incoming::OptionCard {
            robot,
            option,
            give,
        } => {
            let id = robot_id(m, &robot)?;
            let uses = m
                .engine
                .rules()
                .option_def(&option)
                .map(|d| d.uses)
                .ok_or_else(|| {
                    format!(
                        "there is no option `{}`{}",
                        option.escape_debug(),
                        crate::error::suggest(
                            &option,
                            t.debug.options.iter().map(|o| o.name.as_str())
                        )
                    )
                })?;
            let mut state = m.engine.state_mut();
            let held = state.robots[id].option(&option);
            match (give, held) {
                (true, Some(_)) => return Err(format!("{robot} holds {option} already")),
                (false, None) => return Err(format!("{robot} does not hold {option}")),
                (true, None) => {
                    // Out of the option deck, so that nobody draws it too.
                    if let Some(deck) = &mut state.option_deck {
                        if let Some(i) = deck.iter().position(|o| *o == option) {
                            deck.remove(i);
                        }
                    }
                    state.robots[id].options.push(HeldOption {
                        name: option.clone(),
                        uses_left: uses,
                    });
                }
                (false, Some(i)) => {
                    state.robots[id].options.remove(i);
                    state.option_discards.push(option.clone());
                }
            }
            drop(state);
            let did = if give { "gave_option" } else { "took_option" };
            log(m, Some(id), json!({"did": did, "option": option}));
            push(t, before);
            from
        }
        Incoming::ProgramCard {
            robot,
            register,
            card,
        } => {
            let id = robot_id(m, &robot)?;
            let next = match m.progress.phase {
                Phase::Register(r) => r,
                _ => {
                    return Err(
                        "cards are given between the registers of a turn (its program is not in yet, or played)"
                            .into(),
                    )
                }
            };
            if !(next..=REGISTERS as u8).contains(&register) {
                return Err(format!(
                    "register {register}: the registers still to play are {next} to {REGISTERS}"
                ));
            }
            let i = register as usize - 1;
            let mut state = m.engine.state_mut();
            if crate::deal::is_locked(&state.robots[id], i) {
                return Err(format!(
                    "register {register} of {robot} is locked by damage"
                ));
            }
            let old = state.robots[id].program.get(i).copied().flatten();
            let taken = match card {
                Some(c) => Some(
                    state
                        .deck
                        .iter()
                        .flatten()
                        .position(|d| *d == c.0)
                        .ok_or_else(|| {
                            format!("{} is not in the turn's deck (dealt, or no such card)", c.0)
                        })?,
                ),
                None if old.is_none() => {
                    return Err(format!("register {register} of {robot} is empty already"))
                }
                None => None,
            };
            // Checked: now the change, whole.
            let State { robots, deck, .. } = &mut *state;
            let deck = deck.get_or_insert_with(Vec::new);
            if let Some(at) = taken {
                deck.remove(at);
            }
            let program = &mut robots[id].program;
            program.resize(REGISTERS, None);
            program[i] = card.map(|c| c.0);
            // Back at the bottom of the deck, as the turn's leftovers go.
            if let Some(old) = old {
                deck.insert(0, old);
            }
            drop(state);
            let detail = match card {
                Some(c) => {
                    json!({"did": "set_card", "in_register": register, "card": c.0.to_string()})
                }
                None => json!({"did": "took_card", "in_register": register}),
            };
            log(m, Some(id), detail);
            push(t, before);
            from
        }
        // Pause and resume are answered by the pump (`Table::debug`).
        other => return Err(format!("not a change to the game: {other:?}")),
    };
    let events = m.engine.state().events[from..].to_vec();
    if let Some(last) = t.debug.undo.last_mut() {
        last.said = events
            .iter()
            .map(|e| crate::pictures::words::describe(e, &t.sentences))
            .collect::<Vec<_>>()
            .join("; ");
    }
    t.tell(m, &events, extra);
    Ok(())
}

fn push(t: &mut Table, undo: Undo) {
    let undos = &mut t.debug.undo;
    if undos.len() == MAX_UNDO {
        undos.remove(0);
    }
    undos.push(undo);
}

fn robot_id(m: &Game, name: &str) -> Result<usize, String> {
    let state = m.engine.state();
    state.find(name).ok_or_else(|| {
        format!(
            "there is no robot `{}`{}",
            name.escape_debug(),
            crate::error::suggest(name, state.robots.iter().map(|r| &*r.name))
        )
    })
}

/// Back to the start of `register` of `turn` (0: the start of the turn, before the deal):
/// the game as that stage began, which the turn loop then plays again under the rules in
/// force now. Returns what undo puts back.
fn rewind(
    m: &mut Game,
    t: &mut Table,
    turn: u32,
    register: u8,
    mut before: Undo,
) -> Result<Undo, String> {
    let target = RewindTo { turn, register };
    let mark = t
        .debug
        .marks
        .iter()
        .find(|k| k.to() == target)
        .cloned()
        .ok_or_else(|| {
            let can: Vec<String> = t.debug.marks.iter().map(|k| words(k.to())).collect();
            format!(
                "the table cannot go back to {}: it can go back to {}",
                words(target),
                can.join(", ")
            )
        })?;
    let (len, events, snapshots) = mark.history;
    forget(t, len.saturating_sub(1))?;
    before.cut = len.saturating_sub(1).min(m.history.len());
    before.tail = m.history[before.cut..].to_vec();
    before.marks = Some(t.debug.marks.clone());
    m.history.truncate(len);
    if let Some(last) = m.history.last_mut().filter(|_| len > 0) {
        last.events.truncate(events);
        last.snapshots.truncate(snapshots);
    }
    m.engine.restore(mark.state.clone());
    m.progress = mark.progress.clone();
    let key = mark.to();
    let at = t.debug.marks.iter().position(|k| k.to() == key);
    if let Some(at) = at {
        t.debug.marks.truncate(at);
    }
    // The desks were of the turn played; the deal makes new ones.
    t.desks = vec![None; t.desks.len()];
    t.stand = Stand::Resolving;
    let rules = t.generation;
    log(
        m,
        None,
        json!({"did": "rewound", "to": words(target), "rules": rules}),
    );
    Ok(before)
}

/// The journal (the finished turns, written once) forgets those after the first `turns`:
/// the game rewound into them. Nothing is changed if it cannot.
fn forget(t: &mut Table, turns: usize) -> Result<(), String> {
    if turns >= t.saving.handed {
        return Ok(());
    }
    // No save of the turns to forget is still on its way to the disk.
    t.settle();
    let mut pending = t.saving.journal.lock().map_err(|_| "the saver failed")?;
    let appended = pending.journal.turns();
    if turns >= appended {
        pending.turns.truncate(turns - appended);
    } else if pending.journal.forget(turns) {
        pending.turns.clear();
    } else {
        return Err("the table cannot go back before the turn it was resumed from".into());
    }
    drop(pending);
    t.saving.handed = turns;
    Ok(())
}

/// "the start of turn 2", "the start of turn 2, register 3".
fn words(to: RewindTo) -> String {
    match to.register {
        0 => format!("the start of turn {}", to.turn),
        r => format!("the start of turn {}, register {r}", to.turn),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewind_targets_in_words() {
        assert_eq!(
            words(RewindTo {
                turn: 2,
                register: 0
            }),
            "the start of turn 2"
        );
        assert_eq!(
            words(RewindTo {
                turn: 2,
                register: 3
            }),
            "the start of turn 2, register 3"
        );
    }
}
