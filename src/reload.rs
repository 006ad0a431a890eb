//! Hot reload (design.md principle 7): when a playtester saves a script, build a complete new
//! rule set off to the side and swap it in at a register boundary; a rule set that does not
//! load cleanly is reported and the last good one keeps running. Rules are swapped, never state.
//!
//! Two layers, so that every long-running command can use the part it needs:
//!
//! - [`Watcher`] turns file-system events into settled [`Change`]s. A notify thread watches
//!   *folders* (editors save by writing a temporary file and renaming it over the old one,
//!   which a watch on the old file would miss) and sends only the paths of `.lua`/`.toml`/`.svg`
//!   files over a channel, stamped with when the events happened; the engine thread, which
//!   owns the (non-`Send`) Lua states, acts on a save once its files are known complete,
//!   then compares content hashes so that a save that changed nothing (or a file touched
//!   and put back) is ignored. With change events (inotify), a file is complete once every
//!   writer that opened it has closed it, or once it was renamed into place (an atomic
//!   save): a lone save is acted on at once, a file still open is never read (a slow writer
//!   pausing halfway is waited for, up to [`WRITER_LIMIT`]), and saves following one another
//!   within a quiet period merge into one change as before. Without close events (`--poll`)
//!   a change waits for a quiet period. Quiet is measured from the events' own times, not
//!   from when the engine thread got round to reading them (a game waiting for Enter reads
//!   them late), and a burst is held at most [`HOLD`] quiet periods (then read once no file
//!   is open, or, polling, in the first pause of half a quiet period), so saving again and
//!   again cannot put a change off for ever.
//! - [`HotReload`] attaches a watcher to a running [`Engine`]: at each register boundary
//!   ([`HotReload::at_boundary`]) it rebuilds the rules from scratch if anything changed,
//!   swaps them in with a new generation number if they load and the board compiles against
//!   them, and otherwise reports the error and keeps the old ones. A command whose register
//!   failed waits for a fix with [`HotReload::wait`].
//!
//! `rally watch` (`commands/watch.rs`) uses the watcher directly, because it restarts its
//! scenario from the beginning on every change instead of continuing a game.

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::files::display_path;
use crate::script::{RuleSet, Sources};
use notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{
    new_debouncer, new_debouncer_opt, DebounceEventResult, Debouncer, NoCache, RecommendedCache,
};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long the files must stay quiet before a change is acted on when its files are not
/// known complete (polling), or when it follows the previous change within this time (a
/// burst of saves): long enough that one editor save (write, rename, chmod) is one change.
/// A lone save whose files are closed does not wait for it.
pub const DEFAULT_QUIET: Duration = Duration::from_millis(40);

/// A file opened for writing and not closed is read anyway after this long without events
/// (a writer that died, or a close event lost), so that a change cannot hang for ever.
pub const WRITER_LIMIT: Duration = Duration::from_secs(2);

/// A burst of saves is acted on at the latest this many quiet periods after its first event,
/// even if the files never stop changing (a generator rewriting a script, an editor saving
/// on every keystroke).
pub const HOLD: u32 = 4;

/// How long notify-debouncer-full holds raw events to pair a rename's two halves and drop
/// duplicates. It is also the whole wait of a lone save (the events of one save, a few
/// writes and a close or a rename, arrive within it), so it is kept to a few milliseconds.
const PAIRING: Duration = Duration::from_millis(5);
const PAIRING_TICK: Duration = Duration::from_millis(2);

/// How often `--poll` looks at the files (file systems without change events: network
/// shares, some containers and VMs).
pub const POLL_INTERVAL: Duration = Duration::from_millis(100);

#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// Look at the files every [`POLL_INTERVAL`] instead of asking for change events.
    pub poll: bool,
    /// See [`DEFAULT_QUIET`].
    pub quiet: Duration,
}

impl Default for WatchOptions {
    fn default() -> WatchOptions {
        WatchOptions {
            poll: false,
            quiet: DEFAULT_QUIET,
        }
    }
}

/// What a watcher looks at: whole folders (every `.lua` and `.toml` in them, recursively) and
/// single files (through their folder, so that a save by rename is seen).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Watched {
    pub folders: Vec<PathBuf>,
    pub files: Vec<PathBuf>,
}

impl Watched {
    /// The rule files of `sources`, in every layer but the built-in one: the scripts folder,
    /// the folder of every variant switched on (named by the choice, so that a variant which
    /// fails to load, or is not written yet, is watched too) and the manifests. When the
    /// project's `rally.toml` does not load, its project folders and the manifest itself, so
    /// that the fix is seen.
    pub fn rules(sources: &Sources) -> Watched {
        let project = &sources.project;
        let mut watched = Watched::default();
        for layer in project.layers_to_watch() {
            if layer.folders().is_empty() {
                continue;
            }
            watched.folders.extend(layer.scripts.clone());
            if let Some(variants) = &layer.variants {
                watched
                    .folders
                    .extend(sources.choices.iter().map(|c| variants.join(&c.name)));
            }
            watched.files.extend(layer.manifest.clone());
        }
        // Writing a rally.toml where there was none changes the layers too.
        watched.files.extend(project.manifest_path());
        watched.files.sort();
        watched.files.dedup();
        watched
    }
}

impl Watched {
    /// Whether any of `paths` (absolute, as a [`Change`] has them) is one of these files or
    /// a rule file in one of these folders.
    pub fn covers(&self, paths: &[PathBuf]) -> bool {
        let folders: Vec<PathBuf> = self.folders.iter().filter_map(|p| absolute(p)).collect();
        let files: Vec<PathBuf> = self.files.iter().filter_map(|p| absolute(p)).collect();
        paths.iter().any(|p| watches(&folders, &files, p))
    }
}

/// A settled set of saves that changed the content of at least one watched file.
#[derive(Clone, Debug)]
pub struct Change {
    /// The files created, changed or deleted, sorted.
    pub paths: Vec<PathBuf>,
    /// When the first file-system event of the burst arrived.
    pub first_seen: Instant,
    /// When the files had been quiet for the quiet period.
    pub settled: Instant,
}

impl Change {
    /// The time spent waiting for the files to settle (the debounce).
    pub fn debounce(&self) -> Duration {
        self.settled - self.first_seen
    }

    /// The changed files as a person reads them: `scripts/elements/gear.lua, boards/x.toml`.
    pub fn describe(&self) -> String {
        describe_paths(&self.paths)
    }
}

fn describe_paths(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| display_path(p)).collect();
    names.join(", ")
}

/// The two notify back ends have different types; both are debounced the same way.
enum Backend {
    Events(Debouncer<notify::RecommendedWatcher, RecommendedCache>),
    Poll(Debouncer<notify::PollWatcher, NoCache>),
}

impl Backend {
    fn watch(&mut self, path: &Path, mode: RecursiveMode) -> notify::Result<()> {
        match self {
            Backend::Events(d) => d.watch(path, mode),
            Backend::Poll(d) => d.watch(path, mode),
        }
    }

    fn unwatch(&mut self, path: &Path) -> notify::Result<()> {
        match self {
            Backend::Events(d) => d.unwatch(path),
            Backend::Poll(d) => d.unwatch(path),
        }
    }
}

/// What the notify thread sends: the paths that may have changed, whether each one's last
/// event left it open for writing or complete, and when the earliest and the latest of
/// their events arrived; or a watcher error, as text.
enum Message {
    Paths {
        paths: Vec<PathBuf>,
        writing: Vec<(PathBuf, Writing)>,
        first: Instant,
        last: Instant,
    },
    Failed(String),
}

/// What a file event says of a file being written (events that say nothing, a chmod or a
/// touch, are left out).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Writing {
    /// Created or written: a writer may still have it open.
    Open,
    /// Closed after writing, renamed into place or removed: what is there is complete.
    Complete,
}

impl Writing {
    fn of(kind: &EventKind) -> Option<Writing> {
        use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind};
        match kind {
            EventKind::Create(CreateKind::File) | EventKind::Modify(ModifyKind::Data(_)) => {
                Some(Writing::Open)
            }
            EventKind::Access(AccessKind::Close(AccessMode::Write))
            | EventKind::Modify(ModifyKind::Name(_))
            | EventKind::Remove(_) => Some(Writing::Complete),
            _ => None,
        }
    }
}

/// A burst of events not yet acted on.
struct Pending {
    paths: Vec<PathBuf>,
    /// The files a writer has open (their last event wrote, none closed them since).
    open: BTreeSet<PathBuf>,
    first_seen: Instant,
    /// When the latest event happened (not when it was read off the channel).
    last_seen: Instant,
}

/// Watches folders and files and reports settled content changes. See the module docs.
pub struct Watcher {
    backend: Backend,
    rx: Receiver<Message>,
    /// What notify watches: each folder recursively, each single file's folder not.
    registered: Vec<(PathBuf, RecursiveMode)>,
    /// Absolute paths of the watched folders and files.
    folders: Vec<PathBuf>,
    files: Vec<PathBuf>,
    /// The content hash of every watched file that exists.
    hashes: BTreeMap<PathBuf, u64>,
    quiet: Duration,
    /// Whether the back end reports closes and renames ([`Writing`]): change events do,
    /// polling does not.
    sees_writers: bool,
    /// When the latest event of the last burst acted on happened.
    last_taken: Option<Instant>,
    pending: Option<Pending>,
}

impl Watcher {
    pub fn new(watched: &Watched, opts: &WatchOptions) -> Result<Watcher> {
        let (tx, rx) = channel();
        // Runs on the debouncer's thread: keep only names that can matter, send paths only.
        let handler = move |result: DebounceEventResult| {
            let message = match result {
                Ok(events) => {
                    let (Some(first), Some(last)) = (
                        events.iter().map(|e| e.time).min(),
                        events.iter().map(|e| e.time).max(),
                    ) else {
                        return;
                    };
                    // In order, so that each file's last word is what counts.
                    let mut writing: Vec<(PathBuf, Writing)> = Vec::new();
                    for e in events.iter() {
                        let Some(w) = Writing::of(&e.event.kind) else {
                            continue;
                        };
                        for p in e.event.paths.iter().filter(|p| may_matter(p)) {
                            writing.retain(|(q, _)| q != p);
                            writing.push((p.clone(), w));
                        }
                    }
                    // Reading a file is an event too (inotify reports opens and closes): ours
                    // would wake us up again, for ever. A close after writing is not read but
                    // counts above.
                    let paths: Vec<PathBuf> = events
                        .iter()
                        .filter(|e| !matches!(e.event.kind, EventKind::Access(_)))
                        .flat_map(|e| e.event.paths.iter())
                        .filter(|p| may_matter(p))
                        .cloned()
                        .collect();
                    if paths.is_empty() && writing.is_empty() {
                        return;
                    }
                    Message::Paths {
                        paths,
                        writing,
                        first,
                        last,
                    }
                }
                Err(errors) => Message::Failed(
                    errors
                        .iter()
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                        .join("; "),
                ),
            };
            let _ = tx.send(message);
        };
        let failed = |e: notify::Error| Error::Other(format!("cannot watch files: {e}"));
        let sees_writers = !opts.poll;
        let backend = if opts.poll {
            let config = notify::Config::default()
                .with_poll_interval(POLL_INTERVAL)
                .with_compare_contents(true);
            Backend::Poll(
                new_debouncer_opt(PAIRING, Some(PAIRING_TICK), handler, NoCache, config)
                    .map_err(failed)?,
            )
        } else {
            Backend::Events(new_debouncer(PAIRING, Some(PAIRING_TICK), handler).map_err(failed)?)
        };
        let mut watcher = Watcher {
            backend,
            rx,
            registered: Vec::new(),
            folders: Vec::new(),
            files: Vec::new(),
            hashes: BTreeMap::new(),
            quiet: opts.quiet,
            sees_writers,
            last_taken: None,
            pending: None,
        };
        watcher.set_watched(watched)?;
        Ok(watcher)
    }

    /// Changes what is watched (a scenario switched a variant on, or names another board).
    /// Files that become watched are taken as they are now, not reported as changes; files
    /// already watched keep their old hash, so a save made meanwhile is still reported.
    pub fn set_watched(&mut self, watched: &Watched) -> Result<()> {
        let before = (
            std::mem::take(&mut self.folders),
            std::mem::take(&mut self.files),
        );
        self.folders = watched.folders.iter().filter_map(|p| absolute(p)).collect();
        self.files = watched.files.iter().filter_map(|p| absolute(p)).collect();
        let mut wanted: Vec<(PathBuf, RecursiveMode)> = self
            .folders
            .iter()
            .map(|f| (f.clone(), RecursiveMode::Recursive))
            .collect();
        for file in &self.files {
            if let Some(dir) = file.parent() {
                if !self.folders.iter().any(|f| dir.starts_with(f))
                    && !wanted.iter().any(|(w, _)| w == dir)
                {
                    wanted.push((dir.to_path_buf(), RecursiveMode::NonRecursive));
                }
            }
        }
        // A folder that does not exist (a variant switched on but not written yet) cannot be
        // watched; it is looked for again whenever what is watched changes.
        wanted.retain(|(path, _)| path.is_dir());
        for (path, _) in &self.registered {
            if !wanted.iter().any(|(w, _)| w == path) {
                // The folder may be gone already; nothing to undo then.
                let _ = self.backend.unwatch(path);
            }
        }
        for (path, mode) in &wanted {
            if !self.registered.iter().any(|(r, _)| r == path) {
                self.backend.watch(path, *mode).map_err(|e| Error::File {
                    file: path.clone(),
                    message: format!("cannot watch: {e}"),
                })?;
            }
        }
        self.registered = wanted;
        // Files watched before keep what was known of them (present or not), so that the next
        // look still reports a save made meanwhile; files watched from now on are taken as
        // they are.
        let now = self.scan();
        let was_watched = |path: &Path| watches(&before.0, &before.1, path);
        let mut hashes = std::mem::take(&mut self.hashes);
        hashes.retain(|path, _| self.is_watched(path));
        for (path, hash) in now {
            if !was_watched(&path) {
                hashes.insert(path, hash);
            }
        }
        self.hashes = hashes;
        Ok(())
    }

    /// Every watched file that exists now, with its content hash.
    fn scan(&self) -> BTreeMap<PathBuf, u64> {
        let mut found = BTreeMap::new();
        for folder in &self.folders {
            walk(folder, &mut found);
        }
        for file in &self.files {
            if let Some(h) = hash_file(file) {
                found.insert(file.clone(), h);
            }
        }
        found
    }

    fn is_watched(&self, path: &Path) -> bool {
        watches(&self.folders, &self.files, path)
    }

    /// The watched files whose content differs from the last look, updating the hashes.
    /// A path that is not a file (a folder renamed or deleted) makes it look at everything.
    fn changed(&mut self, paths: &[PathBuf]) -> Vec<PathBuf> {
        let everything = paths
            .iter()
            .any(|p| p.is_dir() || (p.extension().is_none() && !p.exists()));
        let now: BTreeMap<PathBuf, u64> = if everything {
            self.scan()
        } else {
            let mut now = self.hashes.clone();
            for p in paths.iter().filter(|p| self.is_watched(p)) {
                match hash_file(p) {
                    Some(h) => now.insert(p.clone(), h),
                    None => now.remove(p),
                };
            }
            now
        };
        let mut changed: Vec<PathBuf> = now
            .iter()
            .filter(|(p, h)| self.hashes.get(*p) != Some(h))
            .map(|(p, _)| p.clone())
            .chain(
                self.hashes
                    .keys()
                    .filter(|p| !now.contains_key(*p))
                    .cloned(),
            )
            .collect();
        changed.sort();
        changed.dedup();
        self.hashes = now;
        changed
    }

    fn receive(&mut self, message: Message) {
        match message {
            Message::Paths {
                mut paths,
                writing,
                first,
                last,
            } => {
                tracing::debug!("file events: {}", describe_paths(&paths));
                let p = self.pending.get_or_insert(Pending {
                    paths: Vec::new(),
                    open: BTreeSet::new(),
                    first_seen: first,
                    last_seen: last,
                });
                p.paths.append(&mut paths);
                for (path, w) in writing {
                    match w {
                        Writing::Open => p.open.insert(path),
                        Writing::Complete => p.open.remove(&path),
                    };
                }
                p.first_seen = p.first_seen.min(first);
                p.last_seen = p.last_seen.max(last);
            }
            Message::Failed(e) => tracing::warn!("file watcher: {e}"),
        }
    }

    /// When the pending burst is to be acted on. With change events: never while a file is
    /// open for writing (up to [`WRITER_LIMIT`]); at once if it is a lone save (the previous
    /// burst ended at least a quiet period before this one began); otherwise, as when
    /// polling, once the files have been quiet for the quiet period, or [`HOLD`] quiet
    /// periods after its first event, whichever is first. Polling, even a held burst is read
    /// only in a pause of half a quiet period, so that a file is never read between an
    /// editor's truncating it and writing it again (change events say so by the close).
    fn due(&self) -> Option<Instant> {
        let p = self.pending.as_ref()?;
        let quiet = p.last_seen + self.quiet;
        if !self.sees_writers {
            let held = (p.first_seen + self.quiet * HOLD).max(p.last_seen + self.quiet / 2);
            return Some(quiet.min(held));
        }
        if !p.open.is_empty() {
            return Some(p.last_seen + WRITER_LIMIT);
        }
        if self
            .last_taken
            .is_none_or(|t| p.first_seen >= t + self.quiet)
        {
            return Some(p.last_seen);
        }
        Some(quiet.min(p.first_seen + self.quiet * HOLD))
    }

    fn drain(&mut self) {
        while let Ok(message) = self.rx.try_recv() {
            self.receive(message);
        }
    }

    /// A settled change, if the files have been quiet long enough; never blocks.
    pub fn poll_change(&mut self) -> Option<Change> {
        self.drain();
        if self.due()? > Instant::now() {
            return None;
        }
        self.take_change()
    }

    /// At a register boundary: every save seen so far, as one change. A burst still going on
    /// is waited for, at most until it is due (see [`Watcher::poll_change`]): a few tens of
    /// milliseconds, however often the files change.
    pub fn boundary_change(&mut self) -> Option<Change> {
        self.drain();
        let due = self.due()?;
        self.wait_change(Some(due.saturating_duration_since(Instant::now())))
            .or_else(|| self.take_change())
    }

    /// The pending burst as a change, if it changed the content of a watched file.
    fn take_change(&mut self) -> Option<Change> {
        let p = self.pending.take()?;
        self.last_taken = Some(p.last_seen);
        let paths = self.changed(&p.paths);
        if paths.is_empty() {
            tracing::debug!("saved without changes: {}", describe_paths(&p.paths));
            return None;
        }
        Some(Change {
            paths,
            first_seen: p.first_seen,
            settled: Instant::now(),
        })
    }

    /// Blocks until a settled change, or until `timeout` has passed (`None`: wait for ever).
    pub fn wait_change(&mut self, timeout: Option<Duration>) -> Option<Change> {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            if let Some(change) = self.poll_change() {
                return Some(change);
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                return None;
            }
            // Wake when the pending burst is due, at the deadline, or when the next events
            // arrive, whichever is first.
            let settle = self.due();
            let wake = match (settle, deadline) {
                (Some(s), Some(d)) => Some(s.min(d)),
                (s, d) => s.or(d),
            };
            let message = match wake {
                Some(w) => match self.rx.recv_timeout(w.saturating_duration_since(now)) {
                    Ok(m) => m,
                    Err(RecvTimeoutError::Timeout) => continue,
                    Err(RecvTimeoutError::Disconnected) => return None,
                },
                None => match self.rx.recv() {
                    Ok(m) => m,
                    Err(_) => return None,
                },
            };
            self.receive(message);
        }
    }
}

/// Whether `path` is one of `files`, or a rule file in one of `folders`.
fn watches(folders: &[PathBuf], files: &[PathBuf], path: &Path) -> bool {
    files.iter().any(|f| f == path)
        || (is_rule_file(path) && folders.iter().any(|f| path.starts_with(f)))
}

/// Names worth sending to the engine thread: rule and board files, and names without an
/// extension (they may be folders, renamed or deleted with what is inside).
fn may_matter(path: &Path) -> bool {
    is_rule_file(path) || (path.extension().is_none() && !is_temporary(path))
}

/// Scripts, tables, and the SVG pictures scripts draw with (`draw.images`).
fn is_rule_file(path: &Path) -> bool {
    path.extension()
        .is_some_and(|x| x == "lua" || x == "toml" || x == "svg")
        && !is_temporary(path)
}

/// Editor temporary, lock and backup files: `.gear.lua.swp`, `.#gear.lua`, `gear.lua~`,
/// `#gear.lua#` (a save by rename writes one of these first).
fn is_temporary(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_none_or(|n| n.starts_with('.') || n.starts_with('#') || n.ends_with('~'))
}

fn walk(dir: &Path, found: &mut BTreeMap<PathBuf, u64>) {
    for path in crate::files::walk(dir, &is_rule_file).unwrap_or_default() {
        if let Some(h) = hash_file(&path) {
            found.insert(path, h);
        }
    }
}

/// The hash of a file's content; `None` when it is gone or not a regular file (a FIFO named
/// `x.lua` must not block the watcher).
fn hash_file(path: &Path) -> Option<u64> {
    let bytes = crate::files::read_bytes(path).ok()?;
    let mut h = DefaultHasher::new();
    h.write(&bytes);
    Some(h.finish())
}

/// An absolute path for `path`, resolving symbolic links where it exists, so that it
/// compares equal to the paths notify reports. `None` when neither it nor its folder exists.
fn absolute(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new(".")).canonicalize().ok()?;
    Some(dir.join(path.file_name()?))
}

/// What one hot reload did.
#[derive(Debug)]
pub enum Reloaded {
    /// New rules are attached to the game; they apply from the next register.
    Swapped {
        generation: u64,
        changed: Vec<PathBuf>,
        /// Waiting for the files to settle.
        debounce: Duration,
        /// Building the rule set and compiling the board against it.
        rebuild: Duration,
    },
    /// The new rules did not load (or the board does not compile against them); the game
    /// keeps rules `generation`.
    Failed {
        generation: u64,
        changed: Vec<PathBuf>,
        error: Error,
    },
}

impl fmt::Display for Reloaded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reloaded::Swapped {
                generation,
                changed,
                ..
            } => write!(
                f,
                "↻ rules v{generation} ({} changed): the new rules apply from the next register",
                describe_paths(changed)
            ),
            Reloaded::Failed {
                generation, error, ..
            } => write!(f, "{}", failure_message(*generation, error)),
        }
    }
}

/// The message for a reload that failed, the same in every command.
pub fn failure_message(generation: u64, error: &Error) -> String {
    format!("✗ reload failed, still using rules v{generation}\n  {error}")
}

/// Hot reload for a game in progress (`rally play` and other long-running commands).
///
/// ```no_run
/// # fn demo(mut engine: rally::engine::Engine, sources: rally::script::Sources) -> rally::Result<()> {
/// use rally::reload::{HotReload, Reloaded, WatchOptions};
/// let mut hot = HotReload::new(sources, &WatchOptions::default())?;
/// engine.start_turn()?;
/// for register in 1..=5 {
///     if let Some(reloaded) = hot.at_boundary(&mut engine) {
///         println!("{reloaded}");
///     }
///     // A script error rolls the register back: pause until a fixed script loads, retry.
///     while let Err(e) = engine.run_register(register) {
///         println!("✗ {e}\n  paused: save a fixed script to go on");
///         loop {
///             let reloaded = hot.wait(&mut engine, None).expect("the watcher runs");
///             println!("{reloaded}");
///             if matches!(reloaded, Reloaded::Swapped { .. }) {
///                 break;
///             }
///         }
///     }
/// }
/// # Ok(()) }
/// ```
pub struct HotReload {
    watcher: Watcher,
    sources: Sources,
    generation: u64,
}

impl HotReload {
    /// Watches the rule files of `sources`, the sources the game's current rules (generation
    /// 1) were loaded from.
    pub fn new(sources: Sources, opts: &WatchOptions) -> Result<HotReload> {
        let watcher = Watcher::new(&Watched::rules(&sources), opts)?;
        Ok(HotReload {
            watcher,
            sources,
            generation: 1,
        })
    }

    /// The generation of the rules attached to the game: 1 at the start, one more per swap.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Call between registers: if rule files changed, rebuilds and (if they load) swaps, so
    /// the next register uses every save made before this call. Waits only for a burst of
    /// saves still going on, and for at most [`HOLD`] quiet periods.
    pub fn at_boundary(&mut self, engine: &mut Engine) -> Option<Reloaded> {
        let change = self.watcher.boundary_change()?;
        Some(self.rebuild(engine, change))
    }

    /// Blocks until rule files change (or `timeout` passes), then rebuilds and swaps as
    /// [`HotReload::at_boundary`] does. For a game paused between registers or on a script
    /// error.
    pub fn wait(&mut self, engine: &mut Engine, timeout: Option<Duration>) -> Option<Reloaded> {
        let change = self.watcher.wait_change(timeout)?;
        Some(self.rebuild(engine, change))
    }

    /// A complete new rule set from the files, attached only if it loads and the board
    /// compiles against it. The old rule set (and every Lua handle into it) is dropped.
    fn rebuild(&mut self, engine: &mut Engine, change: Change) -> Reloaded {
        let start = Instant::now();
        let result = RuleSet::load(&self.sources).and_then(|rules| engine.swap_rules(rules));
        // An edited rally.toml may have changed the layers, and so what is watched.
        if let Err(e) = self.watcher.set_watched(&Watched::rules(&self.sources)) {
            tracing::warn!("{e}");
        }
        match result {
            Ok(()) => {
                self.generation += 1;
                Reloaded::Swapped {
                    generation: self.generation,
                    debounce: change.debounce(),
                    rebuild: start.elapsed(),
                    changed: change.paths,
                }
            }
            Err(error) => Reloaded::Failed {
                generation: self.generation,
                changed: change.paths,
                error,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::scenario::Scenario;

    const SCENARIO: &str = r#"
board = { grid = ". R .", legend = { "." = "floor", "R" = { element = "gear", turn = "right" } } }
[[robot]]
name = "A"
at = [1, 0]
facing = "N"
program = ["uturn", "uturn", "uturn"]
"#;

    /// A copy of the standard scripts and a scenario, in a temporary folder.
    fn setup() -> (tempfile::TempDir, Scenario, Sources) {
        let dir = tempfile::tempdir().unwrap();
        let scripts = dir.path().join("scripts");
        for sub in ["elements", "rules"] {
            std::fs::create_dir_all(scripts.join(sub)).unwrap();
            let from = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("scripts")
                .join(sub);
            for entry in std::fs::read_dir(from).unwrap() {
                let entry = entry.unwrap();
                std::fs::copy(entry.path(), scripts.join(sub).join(entry.file_name())).unwrap();
            }
        }
        let path = dir.path().join("scenario.toml");
        std::fs::write(&path, SCENARIO).unwrap();
        let scenario = Scenario::load(&path).unwrap();
        let sources = scenario.sources(
            &crate::script::Project::folders(scripts, dir.path().join("variants")),
            &[],
        );
        (dir, scenario, sources)
    }

    fn gear(dir: &Path) -> PathBuf {
        dir.join("scripts/elements/gear.lua")
    }

    /// Rewrites the gear's step (the declared rotate effect, which must be in `gear.lua`) as a
    /// function doing `with`, as a designer's save changing the rule would.
    fn edit_gear(dir: &Path, with: &str) {
        const LINE: &str = "gears = rally.effect.rotate(\"turn\", { by = \"gear\" }),";
        let text = std::fs::read_to_string(gear(dir)).unwrap();
        assert!(text.contains(LINE), "gear.lua no longer says {LINE}");
        let step = format!("gears = function(ctx, tile, robot) {with} end,");
        std::fs::write(gear(dir), text.replace(LINE, &step)).unwrap();
    }

    fn wait(hot: &mut HotReload, engine: &mut Engine) -> Reloaded {
        hot.wait(engine, Some(Duration::from_secs(10)))
            .expect("the change was seen within 10 s")
    }

    #[test]
    fn swaps_rules_keeps_state_and_drops_the_old_lua() {
        let (dir, scenario, sources) = setup();
        let mut engine = scenario.start(RuleSet::load(&sources).unwrap()).unwrap();
        let mut hot = HotReload::new(sources, &WatchOptions::default()).unwrap();
        engine.start_turn().unwrap();
        engine.run_register(1).unwrap();
        let after_one = engine.state().robots[0].clone();
        let old_lua = engine.rules().lua.weak();

        // A save that changes nothing is not a change.
        std::fs::write(gear(dir.path()), std::fs::read(gear(dir.path())).unwrap()).unwrap();
        assert!(hot
            .watcher
            .wait_change(Some(Duration::from_millis(400)))
            .is_none());

        std::fs::write(
            gear(dir.path()),
            std::fs::read_to_string(gear(dir.path())).unwrap() + "\n-- edited\n",
        )
        .unwrap();
        match wait(&mut hot, &mut engine) {
            Reloaded::Swapped {
                generation,
                changed,
                ..
            } => {
                assert_eq!(generation, 2);
                assert!(changed[0].ends_with("gear.lua"), "{changed:?}");
            }
            other => panic!("expected a swap, got {other}"),
        }
        assert_eq!(engine.state().robots[0], after_one, "the state is kept");
        assert!(
            old_lua.try_upgrade().is_none(),
            "a Lua handle of the old rule set survived the swap"
        );
        engine.run_register(2).unwrap();
    }

    #[test]
    fn broken_rules_are_reported_and_the_old_ones_keep_running() {
        let (dir, scenario, sources) = setup();
        let mut engine = scenario.start(RuleSet::load(&sources).unwrap()).unwrap();
        let mut hot = HotReload::new(sources, &WatchOptions::default()).unwrap();
        std::fs::write(gear(dir.path()), "return rally.element {\n  name = \n").unwrap();
        let failed = wait(&mut hot, &mut engine);
        let text = failed.to_string();
        assert!(
            text.starts_with("✗ reload failed, still using rules v1"),
            "{text}"
        );
        assert!(
            text.contains("gear.lua:"),
            "names the file and line: {text}"
        );
        engine.start_turn().unwrap();
        engine.run_register(1).unwrap();
        assert_eq!(engine.state().robots[0].facing.to_string(), "W");
    }

    #[test]
    fn a_register_that_fails_is_rolled_back_and_resumes_after_a_fix() {
        let (dir, scenario, sources) = setup();
        let mut engine = scenario.start(RuleSet::load(&sources).unwrap()).unwrap();
        let mut hot = HotReload::new(sources, &WatchOptions::default()).unwrap();
        let good = std::fs::read_to_string(gear(dir.path())).unwrap();
        // Loads cleanly, fails when the gear turns a robot.
        edit_gear(dir.path(), "ctx:rotate(robot, tile.turn .. nil, \"gear\")");
        assert!(matches!(
            wait(&mut hot, &mut engine),
            Reloaded::Swapped { generation: 2, .. }
        ));
        engine.start_turn().unwrap();
        let before = engine.state().robots[0].clone();
        let error = engine.run_register(1).unwrap_err().to_string();
        assert!(error.contains("gear.lua:"), "{error}");
        assert_eq!(engine.state().robots[0], before, "rolled back");

        std::fs::write(gear(dir.path()), &good).unwrap();
        assert!(matches!(
            wait(&mut hot, &mut engine),
            Reloaded::Swapped { generation: 3, .. }
        ));
        engine.run_register(1).unwrap();
        assert_eq!(engine.state().robots[0].facing.to_string(), "W");
        // Turn the other way from now on: the uturn then the gear bring it back to north.
        edit_gear(
            dir.path(),
            "ctx:rotate(robot, tile.turn == 'left' and 'right' or 'left', 'gear')",
        );
        assert!(matches!(
            wait(&mut hot, &mut engine),
            Reloaded::Swapped { generation: 4, .. }
        ));
        engine.run_register(2).unwrap();
        assert_eq!(engine.state().robots[0].facing.to_string(), "N");
    }

    /// The game waited for Enter long after the save: the next register must use it (the
    /// quiet period counts from the save, not from when the game looked).
    #[test]
    fn a_save_made_while_the_game_waited_applies_at_the_next_boundary() {
        let (dir, scenario, sources) = setup();
        let mut engine = scenario.start(RuleSet::load(&sources).unwrap()).unwrap();
        let mut hot = HotReload::new(sources, &WatchOptions::default()).unwrap();
        edit_gear(dir.path(), "ctx:rotate(robot, 'left', 'gear')");
        std::thread::sleep(Duration::from_millis(300));
        assert!(matches!(
            hot.at_boundary(&mut engine),
            Some(Reloaded::Swapped { generation: 2, .. })
        ));
    }

    /// Files that never stop changing (saved again every few milliseconds) are applied at the
    /// next boundary all the same, within a few quiet periods.
    #[test]
    fn saves_without_end_do_not_hold_a_change_off() {
        let (dir, scenario, sources) = setup();
        let mut engine = scenario.start(RuleSet::load(&sources).unwrap()).unwrap();
        let mut hot = HotReload::new(sources, &WatchOptions::default()).unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let saver = {
            let (stop, gear) = (stop.clone(), gear(dir.path()));
            let text = std::fs::read_to_string(&gear).unwrap();
            std::thread::spawn(move || {
                for i in 0.. {
                    if stop.load(std::sync::atomic::Ordering::Relaxed) {
                        break;
                    }
                    std::fs::write(&gear, format!("{text}\n-- save {i}\n")).unwrap();
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        };
        std::thread::sleep(Duration::from_millis(200));
        let start = Instant::now();
        let reloaded = hot.at_boundary(&mut engine);
        let waited = start.elapsed();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        saver.join().unwrap();
        // A save caught half-written fails to load and is reported: a reload all the same.
        assert!(reloaded.is_some(), "no reload at the boundary");
        assert!(
            waited <= DEFAULT_QUIET * HOLD + Duration::from_millis(100),
            "the boundary waited {waited:?}"
        );
    }

    /// An editor's atomic save (write a temporary file, rename it over the script) is
    /// complete when renamed: it is acted on without waiting for a quiet period (here long
    /// enough that waiting for it would time the test out).
    #[test]
    fn an_atomic_save_is_read_at_once() {
        let (dir, scenario, sources) = setup();
        let mut engine = scenario.start(RuleSet::load(&sources).unwrap()).unwrap();
        let opts = WatchOptions {
            quiet: Duration::from_secs(60),
            ..WatchOptions::default()
        };
        let mut hot = HotReload::new(sources, &opts).unwrap();
        let temporary = dir.path().join("scripts/elements/.gear.lua.new");
        let text = std::fs::read_to_string(gear(dir.path())).unwrap();
        std::fs::write(&temporary, text + "\n-- saved by rename\n").unwrap();
        std::fs::rename(&temporary, gear(dir.path())).unwrap();
        match hot.wait(&mut engine, Some(Duration::from_secs(10))) {
            Some(Reloaded::Swapped {
                generation: 2,
                changed,
                ..
            }) => assert!(changed[0].ends_with("gear.lua"), "{changed:?}"),
            other => panic!("expected a swap within 10 s, got {other:?}"),
        }
    }

    /// A writer that pauses halfway through a save, far longer than the quiet period, keeps
    /// the file open: the half is never read, the whole file is, once it is closed.
    #[test]
    fn a_slow_writer_is_waited_for() {
        use std::io::Write;
        let (dir, scenario, sources) = setup();
        let mut engine = scenario.start(RuleSet::load(&sources).unwrap()).unwrap();
        let mut hot = HotReload::new(sources, &WatchOptions::default()).unwrap();
        let text = std::fs::read_to_string(gear(dir.path())).unwrap() + "\n-- slow save\n";
        let (first, second) = text.split_at(text.len() / 2);
        let (first, second) = (first.to_string(), second.to_string());
        let path = gear(dir.path());
        let writer = std::thread::spawn(move || {
            let mut file = std::fs::File::create(&path).unwrap();
            file.write_all(first.as_bytes()).unwrap();
            file.flush().unwrap();
            std::thread::sleep(DEFAULT_QUIET * HOLD * 2);
            file.write_all(second.as_bytes()).unwrap();
        });
        let reloaded = wait(&mut hot, &mut engine);
        writer.join().unwrap();
        assert!(
            matches!(reloaded, Reloaded::Swapped { generation: 2, .. }),
            "the half-written file was read: {reloaded}"
        );
        assert_eq!(std::fs::read_to_string(gear(dir.path())).unwrap(), text);
    }

    /// Naming a pack in rally.toml while a game runs adds its layer at the next reload; from
    /// then on the pack's scripts are watched too.
    #[test]
    fn a_pack_named_in_the_manifest_is_loaded_and_then_watched() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("rally.toml");
        std::fs::write(&manifest, "").unwrap();
        let path = dir.path().join("scenario.toml");
        std::fs::write(&path, SCENARIO).unwrap();
        let scenario = Scenario::load(&path).unwrap();
        let project = crate::script::Project {
            root: Some(dir.path().to_path_buf()),
            ..Default::default()
        };
        let sources = scenario.sources(&project, &[]);
        let mut engine = scenario.start(RuleSet::load(&sources).unwrap()).unwrap();
        let mut hot = HotReload::new(sources, &WatchOptions::default()).unwrap();
        let probe = dir.path().join("packs/p/scripts/elements/probe.lua");
        std::fs::create_dir_all(probe.parent().unwrap()).unwrap();
        let declare = |describe: &str| {
            format!("return rally.element {{ name = \"probe\", describe = \"{describe}\" }}\n")
        };
        std::fs::write(&probe, declare("first")).unwrap();
        std::fs::write(&manifest, "packs = [\"packs/p\"]\n").unwrap();
        assert!(matches!(
            wait(&mut hot, &mut engine),
            Reloaded::Swapped { generation: 2, .. }
        ));
        let describe = |engine: &Engine| {
            let rules = engine.rules();
            rules.elements[rules.element_id("probe").expect("the pack is loaded")]
                .describe
                .clone()
        };
        assert_eq!(describe(&engine), "first");
        std::fs::write(&probe, declare("second")).unwrap();
        match wait(&mut hot, &mut engine) {
            Reloaded::Swapped {
                generation: 3,
                changed,
                ..
            } => assert!(changed[0].ends_with("probe.lua"), "{changed:?}"),
            other => panic!("expected a swap, got {other}"),
        }
        assert_eq!(describe(&engine), "second");
    }

    #[test]
    fn temporary_files_do_not_matter() {
        for name in [
            ".gear.lua.swp",
            ".#gear.lua",
            "gear.lua~",
            "#gear.lua#",
            "notes.txt",
        ] {
            assert!(!may_matter(Path::new(name)), "{name}");
        }
        for name in ["gear.lua", "board.toml", "crane.svg", "elements"] {
            assert!(may_matter(Path::new(name)), "{name}");
        }
    }
}
