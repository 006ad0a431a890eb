//! Saves that do not grow with the game (docs/games.md, "Saves"): a save holds the turn being
//! played and counts the finished turns written once in the journal beside it; saves of an
//! older rally, with every turn inside, still load and go on.

use crate::support;

use rally::game::bot::Bots;
use rally::game::journal::{self, Journal};
use rally::game::save::{self, GameRecord, Save};
use rally::game::{Game, Setup};
use rally::script::{RuleSet, Sources};
use std::path::Path;

fn start(game: &str) -> Game {
    let setup = Setup::load(Path::new(game)).unwrap();
    let sources = Sources {
        project: rally::script::Project::folders("scripts", "variants"),
        choices: setup.choices(&[]),
    };
    let rules = RuleSet::load(&sources).unwrap();
    Game::start(setup, rules).unwrap()
}

fn size(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

/// A bot game of 300 turns saved after each stage as `rally play` saves it (every stage of
/// turns 1–10 and 296–300, and of every 20th turn between, to keep the test quick): what a
/// stage's save writes (the save, and the lines appended to the journal) at turn 300 is
/// within 2× of turn 10, where a save with every turn inside would be over 10× (measured in
/// bytes, so the test is exact). The last save loads with every turn, as played.
#[test]
fn a_stage_saved_at_turn_300_writes_what_one_at_turn_10_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.save.json");
    let mut m = start("tests/games/long.toml");
    let mut bots = Bots::new(m.setup.seats.iter().map(|s| s.strength));
    let mut journal = Journal::new(&path, None);
    // The most bytes one stage's save wrote, by turn.
    let mut most = std::collections::BTreeMap::<u32, u64>::new();
    let mut whole_at = std::collections::BTreeMap::<u32, u64>::new();
    while !m.is_over() {
        m.advance(&mut bots).unwrap();
        let turn = m.engine.state().turn;
        if !(turn <= 10 || turn > 295 || turn.is_multiple_of(20) || m.is_over()) {
            continue;
        }
        let before = journal.written;
        save::write_with_journal(&path, &m, &[], &mut journal).unwrap();
        let cost = size(&path) + journal.written - before;
        let top = most.entry(turn).or_default();
        *top = (*top).max(cost);
        if [10, 300].contains(&turn) {
            let whole = serde_json::to_vec_pretty(&m.save(&[])).unwrap().len() as u64;
            whole_at.insert(turn, whole);
        }
    }
    assert_eq!(m.engine.state().turn, 300, "the game lasts its 300 turns");
    let (at10, at300) = (most[&10], most[&300]);
    // The figures docs/performance.md gives (`-- --nocapture`).
    println!(
        "bytes a stage's save writes, at most: turn 10 {at10}, turn 300 {at300}; a save with every turn: {} and {}",
        whole_at[&10], whole_at[&300]
    );
    assert!(
        at300 <= 2 * at10,
        "a stage's save writes {at300} bytes at turn 300, {at10} at turn 10"
    );
    assert!(
        whole_at[&300] > 10 * at10,
        "a save with every turn would grow: {} bytes at turn 300, {} at turn 10",
        whole_at[&300],
        whole_at[&10]
    );
    // The journal holds every finished turn once.
    let lines = std::fs::read_to_string(journal::path_for(&path)).unwrap();
    assert_eq!(lines.lines().count(), m.history.len() - 1);
    let loaded = Save::load(&path).unwrap();
    assert_eq!(loaded.history, m.history);
    let record = GameRecord::read(&path).unwrap().unwrap();
    assert_eq!(record.turns, m.history);
}

/// A copy of the fixture save (written by rally before saves had journals: every turn in
/// `history`) pointing at this checkout's game file.
fn old_save(dir: &Path) -> std::path::PathBuf {
    let game = support::root().join("tests/games/duel.toml");
    let text = std::fs::read_to_string("tests/games/saves/duel_turn2.save.json")
        .unwrap()
        .replace("\"GAME\"", &serde_json::to_string(&game).unwrap());
    let path = dir.join("duel.save.json");
    std::fs::write(&path, text).unwrap();
    path
}

/// A save of an older rally loads, resumes and goes on in a journal: the save afterwards
/// has the finished turns in the journal and the game's every turn when loaded.
#[test]
fn a_save_without_a_journal_loads_and_goes_on_with_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = old_save(dir.path());
    let old = Save::load(&path).unwrap();
    assert!(old.journal.is_none());
    assert_eq!(old.history.len(), 1, "the fixture was saved at turn 2");
    assert_eq!(old.state.turn, 2);
    let out = support::finish(
        support::rally_command(dir.path(), &["play", "--fast", "--resume"])
            .arg(&path)
            .stdin(support::stdin_of(&"1 2 3 4 5\nn\n".repeat(4))),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["journal"]["turns"], 1, "{}", json["journal"]);
    assert_eq!(json["history"].as_array().unwrap().len(), 1);
    let new = Save::load(&path).unwrap();
    assert_eq!(new.history.len(), 2);
    assert_eq!(
        new.history[0], old.history[0],
        "turn 1 as the old save had it"
    );
    // The replay has every turn too.
    let replay: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("duel.replay.json")).unwrap())
            .unwrap();
    assert_eq!(replay["turns"].as_array().unwrap().len(), 2);
}

/// A journal cut short, edited, or named outside the save's folder is refused with a
/// message at the save's `journal`; lines a crash left after the save's are ignored.
#[test]
fn a_broken_journal_is_refused_and_a_crash_tail_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.save.json");
    let mut m = start("tests/games/long.toml");
    let mut bots = Bots::new(m.setup.seats.iter().map(|s| s.strength));
    let mut journal = Journal::new(&path, None);
    while m.engine.state().turn < 4 {
        m.advance(&mut bots).unwrap();
        save::write_with_journal(&path, &m, &[], &mut journal).unwrap();
    }
    let lines = journal::path_for(&path);
    let good = std::fs::read(&lines).unwrap();
    // A crash between appending and saving: a line more than the save counts.
    let mut longer = good.clone();
    longer.extend_from_slice(b"{\"half a line");
    std::fs::write(&lines, &longer).unwrap();
    assert_eq!(Save::load(&path).unwrap().history, m.history);
    // Resumed, the next append cuts the tail off first.
    let resumed = Save::load(&path).unwrap();
    let mut again = Journal::new(&path, Some(&resumed));
    assert_eq!(again.turns(), m.history.len() - 1);
    m.advance(&mut bots).unwrap();
    while m.progress.phase != rally::game::Phase::Program {
        m.advance(&mut bots).unwrap();
    }
    m.advance(&mut bots).unwrap();
    save::write_with_journal(&path, &m, &[], &mut again).unwrap();
    assert_eq!(Save::load(&path).unwrap().history, m.history);

    let refused = |why: &str| {
        let e = Save::load(&path).unwrap_err().to_string();
        assert!(e.contains(why), "{e}");
        assert!(e.contains("g.save.json"), "{e}");
    };
    let good = std::fs::read(&lines).unwrap();
    std::fs::write(&lines, &good[..good.len() / 2]).unwrap();
    refused("it was cut short");
    let mut edited = good.clone();
    edited[0] = b'[';
    std::fs::write(&lines, &edited).unwrap();
    refused("not a turn's record");
    std::fs::write(&lines, &good).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("\"g.history.jsonl\"", "\"../g.history.jsonl\""),
    )
    .unwrap();
    refused("must be a file name in the save's folder");
    std::fs::remove_file(&lines).unwrap();
    std::fs::write(&path, text).unwrap();
    refused("cannot read the game's journal");
}
