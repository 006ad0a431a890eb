//! Writing the tables' saves off their threads. A table asks for a save after every stage
//! and goes on at once; one saver thread per server writes them atomically
//! (`game::save::write_json`: a temporary file, synced, renamed over the save), oldest
//! request first. When a table asks again before its last save was written (many tables
//! resolving at once, a slow disk), the newer save replaces the waiting one: the file on
//! disk is always a whole save, and the disk's speed never holds a table up while it
//! resolves; before a table waits for a person's answer it waits until its save is on disk
//! ([`Saver::settle`]). A write reports its own outcome (the table thread tells the host
//! when a save fails).

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// Writes one file (serializing what it writes, so a save that is replaced before its turn
/// costs nothing).
pub type Write = Box<dyn FnOnce() + Send>;

/// The server's saver thread and its queue.
pub struct Saver {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when a write is queued, one ends, or the saver is told to stop.
    changed: Condvar,
}

#[derive(Default)]
struct Queue {
    /// Files waiting, oldest request first; the newest write for each is in `waiting`.
    order: VecDeque<PathBuf>,
    waiting: HashMap<PathBuf, Write>,
    /// The file being written.
    busy: Option<PathBuf>,
    stop: bool,
}

impl Default for Saver {
    fn default() -> Saver {
        Saver::new()
    }
}

impl Saver {
    pub fn new() -> Saver {
        let shared = Arc::new(Shared::default());
        let worker = shared.clone();
        let thread = std::thread::Builder::new()
            .name("rally-saver".into())
            .spawn(move || {
                super::yield_to_the_network();
                worker.run()
            })
            .expect("the saver thread starts");
        Saver {
            shared,
            thread: Mutex::new(Some(thread)),
        }
    }

    /// Queues `write` for `path`, replacing a write for it that has not started yet.
    pub fn save(&self, path: &Path, write: Write) {
        let mut q = self.shared.lock();
        if q.waiting.insert(path.to_path_buf(), write).is_none() {
            q.order.push_back(path.to_path_buf());
        }
        self.shared.changed.notify_all();
    }

    /// Whether a write for `path` is queued and not started: a newer one would replace it.
    #[cfg(test)]
    fn is_waiting(&self, path: &Path) -> bool {
        self.shared.lock().waiting.contains_key(path)
    }

    /// Waits until the last write asked for `path` is done.
    pub fn settle(&self, path: &Path) {
        let mut q = self.shared.lock();
        while q.busy.as_deref() == Some(path) || q.waiting.contains_key(path) {
            q = self.shared.changed.wait(q).expect("saver lock");
        }
    }

    /// Waits until every queued write has been done.
    pub fn flush(&self) {
        let mut q = self.shared.lock();
        while q.busy.is_some() || !q.order.is_empty() {
            q = self.shared.changed.wait(q).expect("saver lock");
        }
    }

    /// Writes what is queued, then stops the thread.
    pub fn stop(&self) {
        self.flush();
        self.shared.lock().stop = true;
        self.shared.changed.notify_all();
        if let Some(t) = self.thread.lock().expect("saver lock").take() {
            let _ = t.join();
        }
    }
}

impl Drop for Saver {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().expect("saver lock")
    }

    fn run(&self) {
        let mut q = self.lock();
        loop {
            let Some(path) = q.order.pop_front() else {
                if q.stop {
                    return;
                }
                q = self.changed.wait(q).expect("saver lock");
                continue;
            };
            let write = q.waiting.remove(&path).expect("a write per waiting file");
            q.busy = Some(path);
            drop(q);
            write();
            q = self.lock();
            q.busy = None;
            self.changed.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    #[test]
    fn a_newer_save_replaces_one_still_waiting() {
        let saver = Saver::new();
        let (started, wait_started) = channel();
        let (release, released) = channel::<()>();
        let written = Arc::new(Mutex::new(Vec::new()));
        let note = |name: &'static str| -> Write {
            let written = written.clone();
            Box::new(move || written.lock().unwrap().push(name))
        };
        // The first write holds the thread until released, so the next ones queue up.
        saver.save(
            Path::new("a"),
            Box::new(move || {
                started.send(()).unwrap();
                released.recv().unwrap();
            }),
        );
        wait_started.recv().unwrap();
        assert!(!saver.is_waiting(Path::new("a")), "a is being written");
        saver.save(Path::new("b"), note("b1"));
        assert!(saver.is_waiting(Path::new("b")));
        saver.save(Path::new("c"), note("c1"));
        saver.save(Path::new("b"), note("b2"));
        release.send(()).unwrap();
        saver.settle(Path::new("b"));
        assert!(!saver.is_waiting(Path::new("b")));
        saver.flush();
        assert!(!saver.is_waiting(Path::new("b")));
        assert_eq!(
            *written.lock().unwrap(),
            ["b2", "c1"],
            "the newest save of b, in b's place in the queue"
        );
        saver.save(Path::new("b"), note("b3"));
        saver.stop();
        assert_eq!(
            *written.lock().unwrap(),
            ["b2", "c1", "b3"],
            "stop writes what waits"
        );
    }
}
