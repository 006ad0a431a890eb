//! Fuzzing every kind of input file rally reads (issue 10): scenarios (with inline boards),
//! board files, game files, saves, game replays, Tiled maps (JSON and XML) and the Lua
//! scripts of a project's elements and options, each mutated
//! from a valid file (bytes flipped, tokens inserted, numbers made extreme, lines doubled,
//! the file cut short) or made of random bytes. Whatever comes in, rally must not panic,
//! must not hang, and its errors must name the file. Runs in `cargo test` with a fixed
//! number of cases and a fixed seed (a few seconds in a debug build); raise
//! `PROPTEST_CASES` to search longer.
//!
//! A hang aborts the process from a watchdog thread, so it fails the run instead of
//! stalling it.

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rally::board::{Board, Layout};
use rally::formats::scenario::Scenario;
use rally::game::bot::{Bots, Strength};
use rally::game::save::{write_json, Save};
use rally::game::{Game, Setup};
use rally::script::RuleFolders;
use rally::script::RuleSet;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

const CASES: u32 = 48;
/// A single case that takes longer than this is a hang.
const HANG: Duration = Duration::from_secs(30);

/// Tokens worth inserting: the edges of numbers, brackets, quotes, control characters.
const TOKENS: &[&str] = &[
    "-1",
    "0",
    "65536",
    "2147483648",
    "99999999999999999999",
    "-9223372036854775808",
    "1e308",
    "nan",
    "\"",
    "[",
    "]",
    "{",
    "}",
    ",",
    "=",
    "\n",
    "\u{0}",
    "\u{feff}",
    "\\u0000",
    "999",
    "null",
    "true",
];

/// Tokens worth inserting into a Lua script: the sandbox's edges (endless loops, huge
/// strings, deep recursion), primitives given nonsense, and the language's own punctuation.
const LUA_TOKENS: &[&str] = &[
    "while true do end",
    "for i = 1, 1e9 do end",
    "string.rep('x', 2^30)",
    "string.format('%99d', 1)",
    "local function f() return f() + 1 end f()",
    "setmetatable({}, { __index = function(t, k) return t[k] end }).x",
    "coroutine.wrap(function() coroutine.yield() end)()",
    "pcall(error)",
    "error({})",
    "collectgarbage()",
    "load('return 1')",
    "rawset(_G, 'x', 1)",
    "ctx:move(robot, 1e308)",
    "ctx:damage(robot, -1)",
    "ctx:rotate(robot, 'sideways')",
    "ctx:set_var(robot, 'k', { {} })",
    "ctx:log('x', { a = {} })",
    "ctx:choose(robot, 'k', {})",
    "robot.x = 1",
    "return nil",
    "return {}",
    "return ctx",
    "rally.effect.rotate('turn')",
    "ctx",
    "robot",
    "info",
    "function",
    "local",
    "end",
    "(",
    ")",
    "{",
    "}",
    "..",
    "#",
    "nil",
    "0/0",
    "math.huge",
    "2^63",
    "-1",
    "\"",
    "\n",
];

/// The tokens for an input named `name`.
fn tokens_for(name: &str) -> &'static [&'static str] {
    if name.ends_with(".lua") {
        LUA_TOKENS
    } else {
        TOKENS
    }
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip(Index, u8),
    /// Inserts a token (an index into the input's tokens).
    Insert(Index, Index),
    Delete(Index, usize),
    /// Replaces the n-th run of digits with a token.
    Number(Index, Index),
    DoubleLine(Index),
    /// Inserts a token as a line of its own, before the n-th line: in a script, a statement
    /// where one may stand, so that the script still runs and its calls are what is tried.
    InsertLine(Index, Index),
    Truncate(Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, t)| Mutation::Insert(i, t)),
        (any::<Index>(), 1usize..40).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, t)| Mutation::Number(i, t)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, t)| Mutation::Number(i, t)),
        any::<Index>().prop_map(Mutation::DoubleLine),
        (any::<Index>(), any::<Index>()).prop_map(|(i, t)| Mutation::InsertLine(i, t)),
        any::<Index>().prop_map(Mutation::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation, tokens: &[&str]) {
    if bytes.is_empty() {
        bytes.push(b' ');
    }
    match m {
        Mutation::Flip(i, b) => {
            let at = i.index(bytes.len());
            bytes[at] = *b;
        }
        Mutation::Insert(i, t) => {
            let at = i.index(bytes.len() + 1);
            bytes.splice(at..at, tokens[t.index(tokens.len())].bytes());
        }
        Mutation::Delete(i, n) => {
            let at = i.index(bytes.len());
            let end = (at + n).min(bytes.len());
            bytes.drain(at..end);
        }
        Mutation::Number(i, t) => {
            let mut runs = Vec::new();
            let mut start = None;
            for (k, b) in bytes.iter().enumerate() {
                match (b.is_ascii_digit(), start) {
                    (true, None) => start = Some(k),
                    (false, Some(s)) => {
                        runs.push(s..k);
                        start = None;
                    }
                    _ => {}
                }
            }
            if let Some(s) = start {
                runs.push(s..bytes.len());
            }
            if !runs.is_empty() {
                let run = runs[i.index(runs.len())].clone();
                bytes.splice(run, tokens[t.index(tokens.len())].bytes());
            }
        }
        Mutation::DoubleLine(i) => {
            let start = line_start(bytes, i);
            let end = bytes[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |p| start + p + 1);
            let line = bytes[start..end].to_vec();
            bytes.splice(start..start, line);
        }
        Mutation::InsertLine(i, t) => {
            let start = line_start(bytes, i);
            let line = format!("{}\n", tokens[t.index(tokens.len())]);
            bytes.splice(start..start, line.into_bytes());
        }
        Mutation::Truncate(i) => {
            let at = i.index(bytes.len());
            bytes.truncate(at);
        }
    }
}

/// Where the line `i` picks begins (`bytes` is not empty).
fn line_start(bytes: &[u8], i: &Index) -> usize {
    let lines: Vec<usize> = std::iter::once(0)
        .chain(
            bytes
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(k, _)| k + 1),
        )
        .filter(|&k| k < bytes.len())
        .collect();
    lines[i.index(lines.len())]
}

/// The fuzz cases under way: each one's thread and when it began, for the watchdog. Only
/// cases count, so the watchdog never fires while the rest of the suite runs on.
static UNDER_WAY: Mutex<Vec<(ThreadId, Instant)>> = Mutex::new(Vec::new());

/// Starts the watchdog, once: it aborts the process when a case has run longer than [`HANG`].
fn watchdog() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(Duration::from_millis(500));
            let under_way = UNDER_WAY.lock().unwrap();
            if under_way.iter().any(|(_, began)| began.elapsed() > HANG) {
                eprintln!("a fuzz case ran longer than {HANG:?}: rally hangs on some input");
                std::process::abort();
            }
        });
    });
}

/// A case under way on this thread, from [`Case::begin`] until it drops.
struct Case;

impl Case {
    fn begin() -> Case {
        let thread = std::thread::current().id();
        UNDER_WAY.lock().unwrap().push((thread, Instant::now()));
        Case
    }
}

impl Drop for Case {
    fn drop(&mut self) {
        let thread = std::thread::current().id();
        UNDER_WAY.lock().unwrap().retain(|(t, _)| *t != thread);
    }
}

thread_local! {
    /// The standard rules, loaded once per thread and handed from game to game.
    static RULES: RefCell<Option<RuleSet>> = const { RefCell::new(None) };
}

fn project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn take_rules() -> RuleSet {
    RULES
        .with(|r| r.borrow_mut().take())
        .unwrap_or_else(|| RuleFolders::default().rules(None, Vec::new()).unwrap())
}

fn give_back(rules: RuleSet) {
    RULES.with(|r| *r.borrow_mut() = Some(rules));
}

/// What one input does; errors are returned, panics are caught by the caller.
type Target = fn(&Path) -> rally::Result<()>;

fn scenario(path: &Path) -> rally::Result<()> {
    let scenario = Scenario::load(path)?;
    if !scenario.variants.is_empty() {
        let rules = RuleFolders::default().rules(Some(path), scenario.variants.clone())?;
        let mut game = scenario.start(rules)?;
        return scenario.resolve(&mut game).map(|_| ());
    }
    let mut game = scenario.start(take_rules())?;
    let result = scenario.resolve(&mut game).map(|_| ());
    give_back(game.into_rules());
    result
}

fn board(path: &Path) -> rally::Result<()> {
    let layout = Layout::load(path)?;
    let rules = take_rules();
    let result = Board::compile(&layout, &rules).map(|_| ());
    give_back(rules);
    result
}

fn game(path: &Path) -> rally::Result<()> {
    let setup = Setup::load(path)?;
    if !setup.variants.is_empty() {
        return Ok(());
    }
    let mut m = Game::start(setup, take_rules())?;
    let result = m.advance(&mut Bots::new([Strength::Weak; 8])).map(|_| ());
    give_back(m.engine.into_rules());
    result
}

fn save(path: &Path) -> rally::Result<()> {
    let save = Save::load(path)?;
    let setup = Setup::load(&save.game)?;
    let mut m = Game::resume(setup, take_rules(), save)?;
    let result = m.advance(&mut Bots::new([Strength::Weak; 8])).map(|_| ());
    give_back(m.engine.into_rules());
    result
}

fn replay(path: &Path) -> rally::Result<()> {
    let out = path.with_extension("html");
    rally::commands::replay::replay(path, &out, &RuleFolders::default())
}

/// Runs `target` on inputs made from `seed` (a file's text; `None`: random bytes) written
/// as `name` in a folder that also holds `beside` files; returns after `CASES` cases.
fn fuzz(name: &str, seed: Option<Vec<u8>>, beside: &[(&str, Vec<u8>)], target: Target) {
    watchdog();
    let dir = tempfile::tempdir().unwrap();
    for (file, bytes) in beside {
        std::fs::write(dir.path().join(file), bytes).unwrap();
    }
    let path = dir.path().join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let config = Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(CASES),
        failure_persistence: None,
        ..Config::default()
    };
    // A fixed seed: the suite checks the same inputs every run (CI is repeatable).
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let tokens = tokens_for(name);
    let input = match seed {
        Some(seed) => proptest::collection::vec(mutation(), 1..6)
            .prop_map(move |ms| {
                let mut bytes = seed.clone();
                for m in &ms {
                    apply(&mut bytes, m, tokens);
                }
                bytes
            })
            .boxed(),
        None => proptest::collection::vec(any::<u8>(), 0..600).boxed(),
    };
    let result = runner.run(&input, |bytes| {
        let _case = Case::begin();
        std::fs::write(&path, &bytes).unwrap();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| target(&path)));
        match outcome {
            Err(_) => Err(TestCaseError::fail(format!(
                "panicked on:\n{}",
                String::from_utf8_lossy(&bytes)
            ))),
            Ok(Err(e)) => {
                let message = e.to_string();
                // Every error names a file: the input, a file it names, or a script.
                let named = [
                    ".toml", ".json", ".tmj", ".tmx", ".tsj", ".tsx", ".lua", "variant",
                ]
                .iter()
                .any(|x| message.contains(x));
                prop_assert!(named, "an error without its file: {message}");
                Ok(())
            }
            Ok(Ok(())) => Ok(()),
        }
    });
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(project().join(path)).unwrap()
}

/// Scenarios of several kinds: inline boards with every kind of element, a board file, a
/// variant.
#[test]
fn scenarios() {
    for (seed, beside) in [
        ("tests/acceptance/core/belt_then_gear.toml", vec![]),
        (
            "tests/scenarios/options/mechanical_arm/touch_diagonal_flag.toml",
            vec![],
        ),
        ("tests/scenarios/turns/power_down_next_turn.toml", vec![]),
        (
            "tests/scenarios/options/flywheel/kept_for_next_turn.toml",
            vec![],
        ),
        (
            "boards/tour.toml",
            vec![("factory.toml", read("boards/factory.toml"))],
        ),
    ] {
        let beside: Vec<(&str, Vec<u8>)> = beside;
        fuzz("s.toml", Some(read(seed)), &beside, scenario);
    }
    fuzz("s.toml", None, &[], scenario);
}

#[test]
fn boards() {
    fuzz("b.toml", Some(read("boards/factory.toml")), &[], board);
    fuzz(
        "c.toml",
        Some(read("boards/course-meltdown.toml")),
        &[
            ("factory.toml", read("boards/factory.toml")),
            ("reactor.toml", read("boards/reactor.toml")),
            ("speedway.toml", read("boards/speedway.toml")),
            ("waterworks.toml", read("boards/waterworks.toml")),
            ("practice.toml", read("boards/practice.toml")),
        ],
        board,
    );
}

#[test]
fn tiled_maps() {
    let tileset = [("factory.tsj", read("boards/tiled/factory.tsj"))];
    fuzz(
        "m.tmj",
        Some(read("boards/tiled/practice.tmj")),
        &tileset,
        board,
    );
    let tileset = [("factory.tsx", read("boards/tiled/factory.tsx"))];
    fuzz(
        "m.tmx",
        Some(read("boards/tiled/practice.tmx")),
        &tileset,
        board,
    );
    let vendor = [
        ("vendor.tsj", read("tests/tiled/vendor/vendor.tsj")),
        (
            "rally-mapping.toml",
            read("tests/tiled/vendor/rally-mapping.toml"),
        ),
    ];
    fuzz(
        "m.tmj",
        Some(read("tests/tiled/vendor/yard-zstd.tmj")),
        &vendor,
        board,
    );
    fuzz(
        "m.tmx",
        Some(read("tests/tiled/vendor/yard.tmx")),
        &vendor,
        board,
    );
    fuzz("m.tmj", None, &vendor, board);
    // The mapping file and the tileset are inputs too.
    let map = [
        ("m.tmj", read("tests/tiled/vendor/yard.tmj")),
        ("vendor.tsj", read("tests/tiled/vendor/vendor.tsj")),
    ];
    fuzz(
        "rally-mapping.toml",
        Some(read("tests/tiled/vendor/rally-mapping.toml")),
        &map,
        |p| board(&p.with_file_name("m.tmj")),
    );
}

#[test]
fn games() {
    fuzz("g.toml", Some(read("tests/games/sprint.toml")), &[], game);
}

/// A save and a finished game's replay of a short duel, made here.
fn recorded() -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let game_file = read("tests/games/sprint.toml");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.toml");
    std::fs::write(&path, &game_file).unwrap();
    let setup = Setup::load(&path).unwrap();
    let mut m = Game::start(setup, take_rules()).unwrap();
    let mut bots = Bots::new([Strength::Weak; 2]);
    m.advance(&mut bots).unwrap();
    m.advance(&mut bots).unwrap();
    let save_path = dir.path().join("s.json");
    write_json(&save_path, &m.save(&[])).unwrap();
    m.play_out(&mut bots).unwrap();
    let replay_path = dir.path().join("r.json");
    write_json(&replay_path, &m.replay(&[])).unwrap();
    give_back(m.engine.into_rules());
    // The game file is named by an absolute path: point it at `g.toml` beside the input.
    let relocate = |bytes: Vec<u8>| {
        String::from_utf8(bytes)
            .unwrap()
            .replace(&path.display().to_string(), "GAME")
            .into_bytes()
    };
    (
        game_file,
        relocate(std::fs::read(save_path).unwrap()),
        relocate(std::fs::read(replay_path).unwrap()),
    )
}

#[test]
fn saves_and_replays() {
    let (game_file, save_text, replay_text) = recorded();
    let dir = tempfile::tempdir().unwrap();
    let game_path = dir.path().join("g.toml");
    std::fs::write(&game_path, &game_file).unwrap();
    let place = |bytes: Vec<u8>| {
        String::from_utf8(bytes)
            .unwrap()
            .replace("GAME", &game_path.display().to_string())
            .into_bytes()
    };
    fuzz("s.json", Some(place(save_text)), &[], save);
    fuzz("r.json", Some(place(replay_text.clone())), &[], replay);
    fuzz("r.json", None, &[], replay);
}

/// A project's script (`scripts/elements/NAME.lua` or `scripts/options/NAME.lua`, replacing
/// the built-in one of that name) and the scenario `s.toml` beside `scripts/`, which uses it:
/// the rules are loaded again for each case and the scenario resolved with them.
fn script(path: &Path) -> rally::Result<()> {
    let scenario_file = path.ancestors().nth(3).unwrap().join("s.toml");
    let scenario = Scenario::load(&scenario_file)?;
    let rules = RuleFolders::default().rules(Some(&scenario_file), Vec::new())?;
    let mut game = scenario.start(rules)?;
    scenario.resolve(&mut game).map(|_| ())
}

/// Elements' and options' scripts: one declaring its steps as effects (the gear), ones whose
/// steps and hooks are Lua (oil, portals), an option's hooks (Ablative Coat). Whatever the
/// script says, the sandbox holds: an error naming a file, no panic, no hang.
#[test]
fn scripts() {
    for (script_file, scenario) in [
        (
            "scripts/elements/gear.lua",
            "tests/acceptance/core/belt_then_gear.toml",
        ),
        (
            "scripts/elements/oil.lua",
            "tests/scenarios/expansion/oil/pushed_onto_oil_slides.toml",
        ),
        (
            "scripts/elements/portal.lua",
            "tests/scenarios/expansion/portal/back_up_through_portal.toml",
        ),
        (
            "scripts/options/ablative_coat.lua",
            "tests/scenarios/options/ablative_coat/over_registers.toml",
        ),
    ] {
        fuzz(
            script_file,
            Some(read(script_file)),
            &[("s.toml", read(scenario))],
            script,
        );
    }
}
