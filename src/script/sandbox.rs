//! The sandboxed Lua state every rule set runs in (design.md principle 6, docs/sandbox.md).
//!
//! - Only safe libraries: no `io`, `os`, `debug`, `package`, bytecode, finalizers (`__gc`,
//!   which Lua runs with the hook off) or `warn`.
//! - Each script runs in its own environment over read-only libraries and a read-only `rally`
//!   (`views.rs`): no script can change what another one sees.
//! - A budget per call ([`Budget`]): a count hook charges Lua instructions, native work that
//!   never reaches the hook (pattern matching, `table.move`) is charged to the same count, and
//!   the hook also watches the clock, the memory and the register's events. Once spent, the
//!   budget stays spent for the rest of the call: the hook raises again, and `pcall`, `xpcall`
//!   and the coroutine functions pass the error on (`sandbox.lua`).
//! - What a script keeps between calls is read-only (`views::keep`, `upvalues.rs`).
//!
//! The limits are process-wide ([`Limits`]); `--limit NAME=VALUE` changes them.

// The budget is a Lua hook, a C function set and read through Lua's C API.
#![allow(unsafe_code)]

use super::views::{self, View};
use mlua::{ffi, Function, Lua, LuaOptions, StdLib, Table, Value};
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The game a rule set is attached to, as the budget sees it: the hook asks it whether the
/// register in progress may go on storing. (The engine's native readers, which find the game
/// through the budget, know it as the engine's own type: [`Attached`] is also [`Any`].)
pub trait Attached: Any {
    /// Why the register in progress may store no more, if so.
    fn over_quota(&self) -> Option<String>;
}

/// What a script that needs the game is told while no game is attached (at load time).
pub const NOT_ATTACHED: &str = "this rule set is not attached to a game";

/// Every limit the sandbox enforces. Defaults are generous for any real element or rule;
/// `rally --limit NAME=VALUE` changes one (docs/sandbox.md).
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Lua instructions (and steps of native work) one top-level call may run.
    pub instructions: i64,
    /// Wall-clock time one top-level call may take (a backstop for loops of costly operations).
    pub time: Duration,
    /// Bytes one rule set's Lua state may hold.
    pub memory: usize,
    /// Bytes of one stored value: a var, a log entry's details, a name or cause.
    pub value: usize,
    /// Bytes of all script vars of a game (robot and game vars) plus what one register adds.
    pub vars: usize,
    /// Bytes of text and details scripts log in one register.
    pub log: usize,
    /// Events one register may log.
    pub events: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            instructions: 5_000_000,
            time: Duration::from_secs(1),
            memory: 64 << 20,
            value: 64 << 10,
            vars: 4 << 20,
            log: 4 << 20,
            events: 100_000,
        }
    }
}

static LIMITS: OnceLock<Limits> = OnceLock::new();

/// The limits in force (the defaults unless [`Limits::install`] ran first).
pub fn limits() -> &'static Limits {
    LIMITS.get_or_init(Limits::default)
}

impl Limits {
    /// What `--limit` accepts, for `--help` and errors.
    pub const HELP: &'static str = "instructions=N, seconds=S, memory=SIZE, value=SIZE, vars=SIZE, log=SIZE, events=N (SIZE in bytes, or with K, M or G)";

    /// Applies one `NAME=VALUE`.
    pub fn set(&mut self, spec: &str) -> Result<(), String> {
        let bad = || {
            format!(
                "--limit {spec}: expected NAME=VALUE, one of {}",
                Limits::HELP
            )
        };
        let (name, value) = spec.split_once('=').ok_or_else(bad)?;
        let (name, value) = (name.trim(), value.trim());
        let count = || -> Result<u64, String> {
            value
                .replace('_', "")
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("--limit {name}: `{value}` is not a whole number above 0"))
        };
        let size = || -> Result<usize, String> {
            let (digits, unit) = match value.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
                Some((i, _)) => value.split_at(i),
                None => (value, ""),
            };
            let shift = match unit.to_ascii_uppercase().trim_end_matches(['B', 'I']) {
                "" => 0,
                "K" => 10,
                "M" => 20,
                "G" => 30,
                _ => {
                    return Err(format!(
                        "--limit {name}: `{value}` is not a size (bytes, or with K, M or G)"
                    ))
                }
            };
            digits
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .and_then(|n| n.checked_shl(shift).filter(|m| m >> shift == n))
                .ok_or_else(|| format!("--limit {name}: `{value}` is not a size above 0"))
        };
        match name {
            "instructions" => self.instructions = count()?.min(i64::MAX as u64) as i64,
            "seconds" => {
                let s: f64 = value
                    .parse()
                    .ok()
                    .filter(|s: &f64| *s > 0.0 && s.is_finite() && *s < 1e9)
                    .ok_or_else(|| {
                        format!("--limit seconds: `{value}` is not a number of seconds above 0 and below 1000000000")
                    })?;
                self.time = Duration::from_secs_f64(s);
            }
            "memory" => {
                self.memory = size()?;
                if self.memory < MIN_MEMORY {
                    return Err(format!(
                        "--limit memory={value}: at least {} (the standard rules alone hold about 200 KiB)",
                        size_words(MIN_MEMORY)
                    ));
                }
            }
            "value" => self.value = size()?,
            "vars" => self.vars = size()?,
            "log" => self.log = size()?,
            "events" => self.events = count()?.min(usize::MAX as u64) as usize,
            _ => {
                return Err(format!(
                    "--limit {name}: no such limit{}; the limits are {}",
                    crate::error::suggest(
                        name,
                        [
                            "instructions",
                            "seconds",
                            "memory",
                            "value",
                            "vars",
                            "log",
                            "events"
                        ]
                    ),
                    Limits::HELP
                ))
            }
        }
        Ok(())
    }

    /// Makes these the limits of every rule set this process builds. Call it before any.
    pub fn install(self) -> Result<(), String> {
        LIMITS
            .set(self)
            .map_err(|_| "the sandbox limits are already in use".to_string())
    }
}

/// The least `--limit memory` accepted: below it not even the standard rules load.
const MIN_MEMORY: usize = 1 << 20;

/// A size in bytes as people read it: `64 MiB`, `1.5 MiB`, `300 KiB`, `12 bytes`.
pub fn size_words(bytes: usize) -> String {
    let (mib, kib) = (1usize << 20, 1usize << 10);
    let unit = |n: usize, unit: usize, name: &str| {
        if n.is_multiple_of(unit) {
            format!("{} {name}", n / unit)
        } else {
            format!("{:.1} {name}", n as f64 / unit as f64)
        }
    };
    if bytes >= mib {
        unit(bytes, mib, "MiB")
    } else if bytes >= kib {
        unit(bytes, kib, "KiB")
    } else {
        format!("{bytes} bytes")
    }
}

/// What the hook counts between two of its calls.
const HOOK_EVERY: u32 = 256;

/// The budget of the top-level call in progress: instructions, time, memory and events.
/// Once spent it stays spent until the next call begins: the hook raises again wherever the
/// script goes on, and the protected-call functions of `sandbox.lua` pass the error on
/// instead of catching it.
#[derive(Default)]
pub struct Budget {
    remaining: Cell<i64>,
    /// What the watchdog thread sees of the calls: the wall-clock limit.
    watch: Arc<Watch>,
    /// Why the call was stopped, with the script's `file:line`.
    spent: RefCell<Option<String>>,
    /// Whether `spent` holds a reason (checked on every call without borrowing it).
    stopped: Cell<bool>,
    /// The instruction limit, copied from [`limits`] when the state is made.
    instructions: Cell<i64>,
    /// The state's main thread, for [`Budget::unhooked`].
    main: Cell<Option<std::ptr::NonNull<ffi::lua_State>>>,
    /// Set while the scripts load (their top level runs).
    loading: Cell<bool>,
    /// The game the rule set is attached to: the hook asks it whether the register may go on
    /// logging, and the engine's native field readers (`engine/native.rs`), which find this
    /// budget through the state's extra space, read its state.
    game: RefCell<Option<Weak<dyn Attached>>>,
}

impl Budget {
    /// A budget under the [`limits`] in force.
    pub fn new() -> Budget {
        let budget = Budget::default();
        budget.instructions.set(limits().instructions);
        watchdog(&budget.watch);
        budget
    }

    /// Runs `f`, one top-level call into the scripts, under a fresh budget; the watchdog
    /// times it.
    pub fn call<R>(&self, f: impl FnOnce() -> R) -> R {
        self.reset();
        let _running = Running::start(&self.watch);
        f()
    }

    /// Runs `f`, a wait of the host's inside a call (a player's answer to `ctx:choose`), off
    /// the wall clock: a person may think for as long as the table allows, and the script's
    /// time goes on from where it was, not from the start of the call.
    pub fn waiting<R>(&self, f: impl FnOnce() -> R) -> R {
        let was_running = {
            let _state = self.watch.state.lock().unwrap_or_else(|e| e.into_inner());
            self.watch.running.swap(false, Ordering::Relaxed)
        };
        let result = f();
        if was_running {
            self.watch.resumed.fetch_add(1, Ordering::Relaxed);
            self.watch.running.store(true, Ordering::Relaxed);
        }
        result
    }

    /// A fresh budget for the next top-level call ([`Budget::call`] makes one).
    pub(super) fn reset(&self) {
        self.remaining.set(self.instructions.get());
        self.watch.call.fetch_add(1, Ordering::Relaxed);
        if self.stopped.replace(false) {
            *self.spent.borrow_mut() = None;
        }
    }

    /// The instructions the top-level call in progress (or the last) has used so far, as
    /// the count hook counts them: in steps of its period, 256, plus what library functions
    /// were charged (`--trace`, `--profile`).
    pub fn used(&self) -> i64 {
        self.instructions.get() - self.remaining.get()
    }

    /// Why the call was stopped (`file:line: ...`), if it was.
    pub fn spent(&self) -> Option<String> {
        if !self.stopped.get() {
            return None;
        }
        self.spent.borrow().clone()
    }

    /// Counts calls, so that a `gmatch` iterator can tell it outlived the call that made it.
    pub fn call_id(&self) -> u64 {
        self.watch.call.load(Ordering::Relaxed)
    }

    /// Runs the host's own Lua (freezing tables, making environments) without the count
    /// hook: the hook traps every instruction, and that code needs no budget.
    pub fn unhooked<R>(&self, f: impl FnOnce() -> R) -> R {
        let Some(main) = self.main.get() else {
            return f();
        };
        // SAFETY: `main` is the state's main thread, alive as long as the state that owns
        // this budget; the hook is set and removed between calls, on the thread that runs it.
        unsafe { ffi::lua_sethook(main.as_ptr(), None, 0, 0) };
        let result = f();
        // SAFETY: as above; the hook goes back on before the next call.
        unsafe { set_hook(main.as_ptr()) };
        result
    }

    pub fn set_loading(&self, loading: bool) {
        self.loading.set(loading);
    }

    /// Attaches the rule set to a game (the last one attached wins).
    pub fn attach(&self, game: Weak<dyn Attached>) {
        *self.game.borrow_mut() = Some(game);
    }

    /// The game the rule set is attached to, if it is still there.
    pub fn game(&self) -> Option<Rc<dyn Attached>> {
        self.game.borrow().as_ref()?.upgrade()
    }

    /// Charges `steps` of native work (pattern matching, moving table items) to the call.
    pub fn charge(&self, lua: &Lua, steps: i64) -> mlua::Result<()> {
        let left = self.remaining.get().saturating_sub(steps);
        self.remaining.set(left);
        if let Some(why) = self.spent.borrow().as_ref() {
            return Err(mlua::Error::runtime(why.clone()));
        }
        if left < 0 {
            return Err(mlua::Error::runtime(
                self.stop(place(lua, 1), instructions_message()),
            ));
        }
        Ok(())
    }

    /// Is there room in the memory limit for `size` more bytes (a result the host is about
    /// to make)? If not, the call stops at the script's line.
    pub fn room(&self, lua: &Lua, size: f64) -> mlua::Result<()> {
        let limit = limits().memory as f64;
        let fits = |lua: &Lua| lua.used_memory() as f64 + size <= limit;
        if fits(lua) || (lua.gc_collect().is_ok() && fits(lua)) {
            return Ok(());
        }
        Err(mlua::Error::runtime(
            self.stop(place(lua, 1), memory_message()),
        ))
    }

    /// Marks the call as stopped (the first reason wins) and gives the message to raise.
    fn stop(&self, place: String, why: String) -> String {
        self.stopped.set(true);
        self.spent
            .borrow_mut()
            .get_or_insert_with(|| format!("{place}{why}"))
            .clone()
    }

    /// Run by the hook every [`HOOK_EVERY`] instructions: is the call over (or past) its budget?
    /// `state` and `ar` are what Lua handed the hook: the running state and its hook record.
    fn over(&self, state: *mut ffi::lua_State, ar: *mut ffi::lua_Debug) -> bool {
        if self.stopped.get() {
            return true;
        }
        let left = self.remaining.get() - i64::from(HOOK_EVERY);
        self.remaining.set(left);
        let limits = limits();
        // SAFETY: `state` is the live state running the hook and `ar` its record (below too).
        let over_memory = || unsafe { over_memory(state, limits.memory) };
        let why = if left < 0 {
            Some(instructions_message())
        } else if self.watch.late.load(Ordering::Relaxed) == self.call_id() {
            Some(format!(
                "time limit exceeded: the script ran for more than {} s in one call; raise it with --limit seconds=S",
                limits.time.as_secs_f64()
            ))
        } else if over_memory() {
            Some(memory_message())
        } else {
            self.game().and_then(|game| game.over_quota())
        };
        // A call that filled the memory or spent the budget this deep is endless recursion.
        let why = why.map(|why| {
            // SAFETY: as above.
            if unsafe { too_deep(state) } {
                recursion_message()
            } else {
                why
            }
        });
        match why {
            Some(why) => {
                // SAFETY: as above.
                self.stop(unsafe { hook_place(state, ar) }, why);
                true
            }
            None => false,
        }
    }
}

/// What the watchdog thread knows of one rule set's calls. The budget is counted (the same
/// game stops at the same line everywhere); the wall-clock limit is a backstop for what the
/// count does not see (a loop of instructions that each copy tens of MiB), and a thread of
/// its own enforces it, so that no call ever reads the clock: when a call has run past the
/// limit, the watchdog sets the count hook to fire at the very next instruction
/// (`lua_sethook` may be called asynchronously), and the hook stops the call.
#[derive(Default)]
struct Watch {
    /// The number of the call in progress or last made.
    call: AtomicU64,
    /// Whether a call is in progress (not while it waits for the host, [`Budget::waiting`]).
    running: AtomicBool,
    /// How many times a call went on after a wait: the watchdog times it afresh from then.
    resumed: AtomicU64,
    /// The call the watchdog found past its time.
    late: AtomicU64,
    /// The state's main thread. Locked while the watchdog sets the hook and when a call
    /// ends, so that the watchdog never touches a state no call is running in (which may be
    /// closed).
    state: Mutex<Option<MainThread>>,
}

/// A state's main thread, as the watchdog holds it: used only under [`Watch::state`]'s
/// lock, while a call runs in the state.
#[derive(Clone, Copy)]
struct MainThread(std::ptr::NonNull<ffi::lua_State>);

// SAFETY: the watchdog only passes the pointer to `lua_sethook`, which Lua allows from
// outside the running code (a signal handler), and only while a call runs in the state.
unsafe impl Send for MainThread {}

/// Marks a call as running for the watchdog, until dropped (also when the call panics).
struct Running<'a>(&'a Watch);

impl<'a> Running<'a> {
    fn start(watch: &'a Watch) -> Running<'a> {
        watch.running.store(true, Ordering::Relaxed);
        Running(watch)
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        let _state = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
        self.0.running.store(false, Ordering::Relaxed);
    }
}

/// Registers `watch` with the process's watchdog thread (started with the first).
fn watchdog(watch: &Arc<Watch>) {
    static WATCHED: Mutex<Vec<std::sync::Weak<Watch>>> = Mutex::new(Vec::new());
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        std::thread::Builder::new()
            .name("rally-watchdog".into())
            .spawn(|| watch_calls(&WATCHED))
            .expect("the watchdog thread starts");
    });
    WATCHED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Arc::downgrade(watch));
}

/// The watchdog: every twentieth of the time limit (1 to 50 ms), it looks at every rule
/// set's call in progress; a call seen running for longer than the limit is made to stop
/// at its next instruction. A call is stopped between the limit and a twentieth after it.
fn watch_calls(watched: &Mutex<Vec<std::sync::Weak<Watch>>>) {
    let limit = limits().time;
    let tick = (limit / 20).clamp(Duration::from_millis(1), Duration::from_millis(50));
    // Each watch, with the call (and its number of waits) it was last seen running, and
    // when it was first seen so.
    let mut seen: Vec<(std::sync::Weak<Watch>, (u64, u64), Instant)> = Vec::new();
    loop {
        std::thread::sleep(tick);
        let now = Instant::now();
        {
            let mut list = watched.lock().unwrap_or_else(|e| e.into_inner());
            list.retain(|w| w.strong_count() > 0);
            seen.retain(|(w, ..)| w.strong_count() > 0);
            for w in list.iter() {
                if !seen.iter().any(|(s, ..)| s.ptr_eq(w)) {
                    seen.push((w.clone(), (0, 0), now));
                }
            }
        }
        for (w, last, since) in seen.iter_mut() {
            let Some(watch) = w.upgrade() else { continue };
            let call = watch.call.load(Ordering::Relaxed);
            let moment = (call, watch.resumed.load(Ordering::Relaxed));
            if !watch.running.load(Ordering::Relaxed) || moment != *last {
                (*last, *since) = (moment, now);
                continue;
            }
            if now.duration_since(*since) <= limit || watch.late.load(Ordering::Relaxed) == call {
                continue;
            }
            let state = watch.state.lock().unwrap_or_else(|e| e.into_inner());
            if watch.running.load(Ordering::Relaxed) && watch.call.load(Ordering::Relaxed) == call {
                watch.late.store(call, Ordering::Relaxed);
                if let Some(MainThread(main)) = *state {
                    // SAFETY: a call runs in the state (checked under the lock a call's end
                    // takes), so it is open; Lua allows setting the hook asynchronously.
                    unsafe { ffi::lua_sethook(main.as_ptr(), Some(hook), ffi::LUA_MASKCOUNT, 1) };
                }
            }
        }
    }
}

/// How deep calls may nest before a call stopped by a limit is put down to endless recursion:
/// far deeper than any handler goes, far shallower than a recursion that fills the memory.
const DEEP: i32 = 10_000;

/// Are calls nested more than [`DEEP`] levels in `state`?
unsafe fn too_deep(state: *mut ffi::lua_State) -> bool {
    let mut frame: ffi::lua_Debug = std::mem::zeroed();
    ffi::lua_getstack(state, DEEP, &mut frame) != 0
}

fn recursion_message() -> String {
    format!("stack overflow: too deep (calls nested more than {DEEP} levels): endless recursion?")
}

/// Does the Lua state hold more than `limit` bytes of live data?
unsafe fn over_memory(state: *mut ffi::lua_State, limit: usize) -> bool {
    let used = |state| {
        let kib = ffi::lua_gc(state, ffi::LUA_GCCOUNT).max(0) as usize;
        kib * 1024 + ffi::lua_gc(state, ffi::LUA_GCCOUNTB).max(0) as usize
    };
    // Garbage counts until it is collected: collect before saying so.
    used(state) > limit && {
        ffi::lua_gc(state, ffi::LUA_GCCOLLECT);
        used(state) > limit
    }
}

fn instructions_message() -> String {
    format!(
        "instruction budget exceeded: the script ran more than {} instructions in one call (an endless loop?); raise it with --limit instructions=N",
        limits().instructions
    )
}

/// The message of an out-of-memory error (the hook's, or Lua's own when one allocation is too
/// large for what is left).
pub fn memory_message() -> String {
    format!(
        "out of memory: the scripts hold more than {}; raise it with --limit memory=SIZE",
        size_words(limits().memory)
    )
}

/// `file:line: ` of the innermost script `level` or more levels up the stack (1: the caller
/// of the native function running now), or "" when there is none.
pub fn place(lua: &Lua, level: usize) -> String {
    (level..)
        .map_while(|level| {
            lua.inspect_stack(level, |d| {
                let source = d.source();
                let script = source
                    .source
                    .as_deref()
                    .is_some_and(|s| is_script(s.as_bytes()));
                let src = source.short_src.map(|s| s.to_string());
                (script, src, d.current_line())
            })
        })
        .find_map(|found| match found {
            (true, Some(src), Some(line)) => Some(format!("{src}:{line}: ")),
            _ => None,
        })
        .unwrap_or_default()
}

/// The file (as scripts are named: their display path, whole) and line of the innermost
/// script on the stack, `level` or more levels up.
pub fn script_frame(lua: &Lua, level: usize) -> Option<(String, usize)> {
    (level..)
        .map_while(|level| {
            lua.inspect_stack(level, |d| {
                let source = d.source().source.map(|s| s.to_string());
                (source, d.current_line())
            })
        })
        .find_map(|(source, line)| {
            let file = source.filter(|s| is_script(s.as_bytes()))?;
            Some((file[1..].to_string(), line?))
        })
}

/// `file:line: ` of the script the hook interrupted: the innermost script frame (the hook may
/// fire in host code a script called, such as mlua's method lookup or `sandbox.lua`).
unsafe fn hook_place(state: *mut ffi::lua_State, _ar: *mut ffi::lua_Debug) -> String {
    let mut frame: ffi::lua_Debug = std::mem::zeroed();
    let mut level = 0;
    while ffi::lua_getstack(state, level, &mut frame) != 0 {
        if ffi::lua_getinfo(state, c"Sl".as_ptr(), &mut frame) != 0
            && frame.currentline >= 0
            && is_script(std::ffi::CStr::from_ptr(frame.source).to_bytes())
        {
            let src = std::ffi::CStr::from_ptr(frame.short_src.as_ptr()).to_string_lossy();
            return format!("{src}:{}: ", frame.currentline);
        }
        level += 1;
    }
    String::new()
}

/// Is a chunk with this source one of the scripts (not the host's own Lua, not mlua's)?
fn is_script(source: &[u8]) -> bool {
    source.starts_with(b"@") && !source.starts_with(b"@rally/")
}

/// The budget of the rule set whose state (or coroutine) `state` is, if the state is one of
/// ours: [`new_lua`] puts it in the thread's extra space, which coroutines copy.
///
/// # Safety
/// `state` is a live Lua state; the budget outlives the reference (it lives as long as the
/// state, in its app data).
pub unsafe fn budget_of<'a>(state: *mut ffi::lua_State) -> Option<&'a Budget> {
    (*(ffi::lua_getextraspace(state) as *const *const Budget)).as_ref()
}

/// The count hook: a plain C function, not an mlua hook, because mlua settles the stack of
/// the interrupted function when its hook raises an error, which runs that function's
/// to-be-closed variables on the spot, with hooks off (an endless `__close` would never
/// stop). The budget is found through the thread's extra space (copied into every
/// coroutine), set by [`new_lua`].
unsafe extern "C-unwind" fn hook(state: *mut ffi::lua_State, ar: *mut ffi::lua_Debug) {
    let Some(budget) = budget_of(state) else {
        return;
    };
    if ffi::lua_gethookcount(state) != HOOK_EVERY as i32 {
        // Set to fire at once by the watchdog: back to the usual interval.
        set_hook(state);
    }
    if !budget.over(state, ar) {
        return;
    }
    // Push the message, then raise with nothing left to drop on this frame (lua_error
    // unwinds with longjmp).
    let (text, len) = {
        let spent = budget.spent.borrow();
        let why = spent.as_deref().unwrap_or("stopped");
        (why.as_ptr(), why.len())
    };
    ffi::lua_pushlstring(state, text as *const std::ffi::c_char, len);
    ffi::lua_error(state);
}

/// Called by the vendored Lua just before it raises an error of `status` (its `LUAI_THROW`,
/// .cargo/config.toml): an out-of-memory error unwinds the stack with no message handler
/// (Lua's own limit was met by one allocation, between two runs of the hook), so this is the
/// one moment the script's `file:line` can still be read off the stack. The call is stopped
/// there, as the hook would have stopped it. Only a sandboxed state's (its count hook is
/// ours; another state's extra space holds no budget); reading the stack allocates nothing.
///
/// # Safety
///
/// Lua calls it with the live state that raises.
#[no_mangle]
pub unsafe extern "C" fn rally_lua_throw(state: *mut ffi::lua_State, status: std::ffi::c_int) {
    if status != ffi::LUA_ERRMEM {
        return;
    }
    let ours =
        ffi::lua_gethook(state).is_some_and(|h| std::ptr::fn_addr_eq(h, hook as ffi::lua_Hook));
    if !ours {
        return;
    }
    if let Some(budget) = budget_of(state) {
        if !budget.stopped.get() {
            // Memory filled this deep is endless recursion, as the hook says.
            let why = if too_deep(state) {
                recursion_message()
            } else {
                memory_message()
            };
            budget.stop(hook_place(state, std::ptr::null_mut()), why);
        }
    }
}

/// A fresh sandboxed state: the safe libraries, read-only, with the budget's hook set.
/// `print` goes to tracing; `math.random` draws from the game's RNG, so it says
/// [`NOT_ATTACHED`] until the engine attaches a game and puts its own in (`engine/ctx.rs`).
/// The standard functions and libraries every script's environment holds (besides `print`,
/// `rally` and `_G`; a variant's scripts also see `params`).
pub const BASE: &[&str] = &[
    "assert",
    "error",
    "getmetatable",
    "ipairs",
    "next",
    "pairs",
    "pcall",
    "rawequal",
    "rawget",
    "rawset",
    "rawlen",
    "select",
    "setmetatable",
    "tonumber",
    "tostring",
    "type",
    "xpcall",
    "_VERSION",
    "string",
    "table",
    "math",
    "utf8",
    "coroutine",
];

/// Standard Lua names the sandbox leaves out on purpose: files, the clock, the process,
/// loading code, the collector and the debug library would let a script escape its budget,
/// see the machine or make a game depend on more than its seed (docs/sandbox.md).
pub const ABSENT: &[&str] = &[
    "io",
    "os",
    "debug",
    "package",
    "require",
    "load",
    "loadfile",
    "dofile",
    "loadstring",
    "collectgarbage",
    "unpack",
    "setfenv",
    "getfenv",
    "module",
];

/// Every global a script may read: [`BASE`], `print`, `rally`, `_G`, and `extra` (a
/// variant's `params`).
pub fn known_globals(extra: &[&str]) -> Vec<String> {
    BASE.iter()
        .chain(&["print", "rally", "_G"])
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

/// What reading the global `key` that no script has says, at run time and in `rally check`:
/// a library the sandbox leaves out is named as such; any other name is a typo or a missing
/// `local`, with the nearest known name (`extra`: the script's own extra globals).
pub fn unknown_global(key: &str, extra: &[&str]) -> String {
    if ABSENT.contains(&key) {
        let instead = match key {
            "unpack" => " (it is `table.unpack`)",
            "os" => " (a script sees the game's turn and register in `ctx.turn`, `ctx.register`, and draws chance from `ctx:random`)",
            _ => "",
        };
        return format!(
            "`{key}` is not available to scripts: the sandbox leaves out {}{instead} (docs/sandbox.md)",
            ABSENT.join(", ")
        );
    }
    let known = known_globals(extra);
    format!(
        "undeclared global `{key}`{} (declare it with `local`, or check the spelling)",
        crate::error::suggest(key, known.iter().map(String::as_str))
    )
}

pub fn new_lua(budget: Rc<Budget>) -> mlua::Result<Lua> {
    // SAFETY: the debug library is loaded only so that the host can read upvalues when it
    // freezes what a script keeps (`views::keep`). It is taken out of the globals below,
    // before any script runs, and scripts never see the globals anyway: each runs in its own
    // environment made by `script_env`.
    let lua = unsafe {
        Lua::unsafe_new_with(
            StdLib::TABLE
                | StdLib::STRING
                | StdLib::MATH
                | StdLib::UTF8
                | StdLib::COROUTINE
                | StdLib::DEBUG,
            LuaOptions::default(),
        )
    };
    // Lua's own limit is a backstop above the hook's check, which can say where it happened.
    let memory = limits().memory;
    lua.set_memory_limit(memory.saturating_add(memory / 4))?;
    let globals = lua.globals();
    let debug: Table = globals.get("debug")?;
    globals.raw_set("debug", Value::Nil)?;
    views::install(&lua, &debug)?;

    // What a script's environment holds: the base functions that are safe, the libraries.
    let base = lua.create_table()?;
    for &name in BASE {
        base.raw_set(name, globals.raw_get::<Value>(name)?)?;
    }
    let string: Table = globals.get("string")?;
    string.raw_set("dump", Value::Nil)?;
    let math: Table = globals.get("math")?;
    math.raw_set("randomseed", Value::Nil)?;
    math.raw_set(
        "random",
        lua.create_function(|lua, _: mlua::Variadic<Value>| -> mlua::Result<()> {
            Err(super::located(lua, NOT_ATTACHED))
        })?,
    )?;
    base.raw_set(
        "print",
        lua.create_function(|_, args: mlua::Variadic<Value>| {
            if tracing::enabled!(target: "script", tracing::Level::INFO) {
                tracing::info!(target: "script", "{}", crate::text::clean(&printed(&args)));
            }
            Ok(())
        })?,
    )?;
    super::pattern::install(&lua, &string, budget.clone())?;
    let spent = {
        let budget = budget.clone();
        lua.create_function(move |_, ()| Ok(budget.spent()))?
    };
    let charge = {
        let budget = budget.clone();
        lua.create_function(move |lua, steps: f64| {
            budget.charge(lua, steps.clamp(0.0, i64::MAX as f64) as i64)
        })?
    };
    let loading = {
        let budget = budget.clone();
        lua.create_function(move |_, ()| Ok(budget.loading.get()))?
    };
    // `string.rep` makes its result in one allocation; one larger than what is left would be
    // refused by Lua's own allocator, which cannot say where. So it is measured first, and
    // refused at the script's line, as the hook refuses a script that outgrows the limit.
    let room = {
        let budget = budget.clone();
        lua.create_function(move |lua, size: f64| budget.room(lua, size))?
    };
    let undeclared = lua.create_table()?;
    strict(&lua, &undeclared, |key| unknown_global(key, &[]))?;
    let undeclared = undeclared.metatable().expect("strict sets a metatable");
    let environment: Function = lua
        .load(include_str!("sandbox.lua"))
        .set_name("@rally/sandbox.lua")
        .call((
            base.clone(),
            views::registry(&lua)?,
            lua.create_table_from([
                ("spent", spent),
                ("charge", charge),
                ("room", room),
                ("loading", loading),
                ("where", lua.create_function(|lua, ()| Ok(place(lua, 1)))?),
            ])?,
            undeclared,
            views::maker(&lua, View::Globals)?,
        ))?;
    for name in ["string", "table", "math", "utf8", "coroutine"] {
        let library: Table = base.raw_get(name)?;
        let data = views::freeze(&lua, &library, View::Library)?;
        if name == "string" {
            // Method calls on strings (`s:upper()`) read the library through the strings'
            // metatable, which no script may reach or change.
            let meta: Table = lua.load("return getmetatable('')").eval()?;
            meta.raw_set("__index", data)?;
            meta.raw_set("__metatable", false)?;
        }
    }
    views::trust(&lua, &base)?;
    lua.set_app_data(Base {
        table: base,
        environment,
    });

    budget.reset();
    // SAFETY: the extra space of a Lua 5.4 state is a pointer-sized slot of ours (mlua leaves
    // it alone); the budget it points to lives in the state's app data, so as long as the
    // state and its hook.
    unsafe {
        lua.exec_raw::<()>((), |state| {
            *(ffi::lua_getextraspace(state) as *mut *const Budget) = Rc::as_ptr(&budget);
            budget.main.set(std::ptr::NonNull::new(state));
            *budget.watch.state.lock().unwrap_or_else(|e| e.into_inner()) =
                std::ptr::NonNull::new(state).map(MainThread);
            set_hook(state);
        })?;
    }
    lua.set_app_data(Budgeted(budget));
    Ok(lua)
}

/// What `print` logs of `args`: at most one stored value's worth (`--limit value`), cut
/// before anything longer is copied.
fn printed(args: &[Value]) -> String {
    let most = limits().value;
    let mut line: Vec<u8> = Vec::new();
    for (i, value) in args.iter().enumerate() {
        if i > 0 {
            line.push(b'\t');
        }
        let room = most.saturating_sub(line.len());
        match value {
            Value::String(s) => {
                let bytes = s.as_bytes();
                line.extend_from_slice(&bytes[..bytes.len().min(room)]);
            }
            other => {
                let text = other.to_string().unwrap_or_default();
                line.extend_from_slice(&text.as_bytes()[..text.len().min(room)]);
            }
        }
        if line.len() >= most {
            line.extend_from_slice(" (cut)".as_bytes());
            break;
        }
    }
    String::from_utf8_lossy(&line).into_owned()
}

/// Sets the count hook on `state`.
unsafe fn set_hook(state: *mut ffi::lua_State) {
    ffi::lua_sethook(state, Some(hook), ffi::LUA_MASKCOUNT, HOOK_EVERY as i32);
}

/// Keeps the budget the hook points to alive with the state.
struct Budgeted(#[allow(dead_code)] Rc<Budget>);

/// The functions and libraries every script's environment starts from, and the function of
/// `sandbox.lua` that makes one environment.
struct Base {
    table: Table,
    environment: Function,
}

/// Adds `rally` to what every script sees (once its tables are read-only).
pub fn share(lua: &Lua, name: &str, value: Table) -> mlua::Result<()> {
    views::trust(lua, &value)?;
    let base = lua
        .app_data_ref::<Base>()
        .expect("the base environment is made with the state");
    base.table.raw_set(name, value)
}

/// A script's own environment: a read-only view of a copy of the base functions and
/// libraries (a copy, not a chain: a global costs one lookup, as in plain Lua) plus `extra`
/// (a variant's `params`). Reading an unknown name is an error (typos surface at once); so
/// is assigning a global (scripts keep no state). `_G` is the environment itself.
pub fn script_env(lua: &Lua, extra: Option<Table>) -> mlua::Result<Table> {
    let base = lua
        .app_data_ref::<Base>()
        .expect("the base environment is made with the state");
    base.environment.call(extra)
}

/// Makes reading a missing key of `table` an error with `message(key)`, at the reader's line.
pub fn strict(
    lua: &Lua,
    table: &Table,
    message: impl Fn(&str) -> String + 'static,
) -> mlua::Result<()> {
    let meta = lua.create_table()?;
    meta.raw_set(
        "__index",
        lua.create_function(
            move |lua, (_, key): (Value, Value)| -> mlua::Result<Value> {
                Err(super::located(lua, message(&key.to_string()?)))
            },
        )?,
    )?;
    meta.raw_set("__metatable", false)?;
    table.set_metatable(Some(meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host's waits inside a call (a player thinking over `ctx:choose`) are not the
    /// script's time: a call that waits past the limit, then loops a little, is not
    /// stopped. The table stopped a game whenever a player took the limit to answer.
    #[test]
    fn a_wait_for_the_host_is_not_counted_against_the_time_limit() {
        let budget = Rc::new(Budget::new());
        let lua = new_lua(budget.clone()).unwrap();
        let waiting = budget.clone();
        let ask = lua
            .create_function(move |_, ()| {
                waiting.waiting(|| std::thread::sleep(limits().time + Duration::from_millis(300)));
                Ok(())
            })
            .unwrap();
        lua.globals().set("ask", ask).unwrap();
        let chunk = lua
            .load("ask()\nlocal n = 0\nfor i = 1, 100000 do n = n + i end")
            .set_name("@script.lua");
        let result = budget.call(|| chunk.exec());
        assert!(
            result.is_ok() && budget.spent().is_none(),
            "{result:?} {:?}",
            budget.spent()
        );
    }

    /// A native call that outlasts the time limit (one the budget cannot charge, as a
    /// `..` of two long strings) is stopped at the script's next instruction: the watchdog,
    /// not the hook, watches the clock. With the clock read in the hook, the call went on
    /// to spend its instruction budget.
    #[test]
    fn the_call_after_a_long_native_call_is_stopped_by_the_watchdog() {
        let budget = Rc::new(Budget::new());
        let lua = new_lua(budget.clone()).unwrap();
        let sleep = lua
            .create_function(|_, ()| {
                std::thread::sleep(limits().time + Duration::from_millis(300));
                Ok(())
            })
            .unwrap();
        lua.globals().set("slow", sleep).unwrap();
        let chunk = lua
            .load("slow()\nlocal n = 0\nwhile true do n = n + 1 end")
            .set_name("@script.lua");
        let result = budget.call(|| chunk.exec());
        assert!(result.is_err());
        let why = budget.spent().unwrap_or_default();
        assert!(
            why.starts_with("script.lua:2: time limit exceeded"),
            "{why}"
        );
        // The next call is not late.
        let result = budget.call(|| {
            lua.load("local n = 0 for i = 1, 10000 do n = n + i end")
                .exec()
        });
        assert!(
            result.is_ok() && budget.spent().is_none(),
            "{:?}",
            budget.spent()
        );
    }
}
