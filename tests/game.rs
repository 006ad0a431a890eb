//! Whole games (docs/games.md): dealing, locking, power down, winning, saves, bots, `rally sim`
//! and `rally play` at a (piped) terminal. Fixtures are in tests/games/ and games/.

use crate::support;

use rally::cards::Card;
use rally::deal::{self, Hand};
use rally::decision::{Answer, Fixed};
use rally::engine::Engine;
use rally::game::bot::{Bots, Strength};
use rally::game::preview::{self, Pose};
use rally::game::save::Save;
use rally::game::tally::Tally;
use rally::game::{sim, Game, Outcome, Phase, Seats, Setup, Stage};
use rally::geometry::{Dir, Pos};
use rally::script::{RuleSet, Sources};
use rally::state::{HeldOption, Robot, State};
use std::path::Path;

fn sources(setup: &Setup) -> Sources {
    Sources {
        project: rally::script::Project::folders("scripts", "variants"),
        choices: setup.choices(&[]),
    }
}

fn start(game: &str) -> Game {
    let setup = Setup::load(Path::new(game)).unwrap();
    let rules = RuleSet::load(&sources(&setup)).unwrap();
    Game::start(setup, rules).unwrap()
}

/// Seats for rule tests: programs rotation cards first (so a robot stays on its square) and
/// records every hand. (The other decisions are questions to the game's chooser.)
#[derive(Default)]
struct Scripted {
    hands: Vec<Hand>,
}

impl Seats for Scripted {
    fn program(&mut self, _game: &mut Engine, hand: &Hand) -> rally::Result<Vec<Card>> {
        self.hands.push(hand.clone());
        let mut cards = hand.cards.clone();
        cards.sort_by_key(|c| c.kind.rotation().is_none());
        cards.truncate(hand.open.len());
        Ok(cards)
    }
}

/// A chooser that answers `yes` to powering down and staying down for `robots`.
fn powering_down(robots: &[&str]) -> Box<Fixed> {
    let yes = || Answer::Always("yes".into());
    let answers = robots
        .iter()
        .map(|r| {
            let keys = [
                ("power_down".to_string(), yes()),
                ("stay_down".to_string(), yes()),
            ];
            (r.to_string(), keys.into_iter().collect())
        })
        .collect();
    Box::new(Fixed::new(&answers))
}

/// The arena fixture with B powered down from the start (it neither moves nor fires).
fn arena() -> Game {
    let mut m = start("tests/games/sprint.toml");
    m.progress.announced[1] = true;
    m
}

#[test]
fn hand_size_is_nine_minus_damage_and_locked_cards_stay_out_of_the_deck() {
    // rules.md §1.3 and §2 step 1: 9 − damage cards; locked registers keep their cards,
    // which are not shuffled back into the deck.
    let locked_card = Card::parse("move3@840").unwrap();
    let robots: Vec<Robot> = (0..10)
        .map(|d| {
            let mut r = Robot::new(format!("R{d}"), Pos::new(d, 0), Dir::N);
            r.damage = d;
            if d >= 5 {
                r.program = vec![
                    None,
                    None,
                    None,
                    None,
                    Some(Card::parse(&format!("left@{}", 70 + 20 * d)).unwrap()),
                ];
            }
            r
        })
        .collect();
    let mut state = State::new(robots, 9);
    state.robots[9].program[4] = Some(locked_card);
    state.robots[9].damage = 9;
    let sizes: Vec<usize> = state
        .robots
        .iter()
        .map(|r| deal::hand_size(r.damage))
        .collect();
    let dealt = deal::deal(&mut state, &sizes, None);
    let hands: Vec<Hand> = dealt.iter().map(|&id| deal::hand(&state, id)).collect();
    let sizes: Vec<usize> = hands.iter().map(|h| h.cards.len()).collect();
    assert_eq!(sizes, vec![9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    let opens: Vec<usize> = hands.iter().map(|h| h.open.len()).collect();
    assert_eq!(
        opens,
        vec![5, 5, 5, 5, 5, 4, 3, 2, 1, 0],
        "damage − 4 registers locked"
    );
    let dealt: Vec<Card> = hands.iter().flat_map(|h| h.cards.clone()).collect();
    let mut unique = dealt.clone();
    unique.sort_by_key(|c| c.priority);
    unique.dedup();
    assert_eq!(unique.len(), dealt.len(), "no card dealt twice");
    assert!(
        !dealt.contains(&locked_card),
        "a locked card is not in the deck"
    );
    // A robot with 9 damage has all registers locked; its empty ones got a card face up
    // (§7.4.5), and the locked move3 stayed.
    assert_eq!(state.robots[9].program[4], Some(locked_card));
    assert!(state.robots[9].program.iter().all(|c| c.is_some()));
}

#[test]
fn locked_registers_keep_their_cards_and_repairs_unlock_the_lowest_first() {
    // rules.md §1.3: locked = damage − 4 highest registers; each repaired point frees the
    // lowest-numbered locked register first; cleanup wipes only unlocked registers.
    let program: Vec<Option<Card>> = ["move1@490", "move1@500", "move1@510", "left@70", "right@80"]
        .iter()
        .map(|c| Some(Card::parse(c).unwrap()))
        .collect();
    let mut r = Robot::new("A", Pos::new(0, 0), Dir::N);
    r.damage = 6;
    r.program = program.clone();
    let mut state = State::new(vec![r], 0);
    deal::wipe(&mut state, &[false]);
    assert_eq!(state.robots[0].program[..3], [None, None, None]);
    assert_eq!(
        state.robots[0].program[3..],
        program[3..],
        "registers 4 and 5 locked at 6 damage"
    );
    state.robots[0].damage = 5; // one point repaired: register 4 unlocks, 5 stays
    deal::wipe(&mut state, &[false]);
    assert_eq!(state.robots[0].program[3], None);
    assert_eq!(state.robots[0].program[4], program[4]);
    // A destroyed robot loses every card (§6.5).
    deal::wipe(&mut state, &[true]);
    assert!(state.robots[0].program.iter().all(|c| c.is_none()));
}

#[test]
fn a_locked_register_runs_its_card_again_next_turn() {
    let mut m = arena();
    let uturn = Card::parse("uturn@10").unwrap();
    {
        let mut s = m.engine.state_mut();
        s.robots[0].damage = 5;
        s.robots[0].program = vec![None, None, None, None, Some(uturn)];
    }
    let mut seats = Scripted::default();
    m.advance(&mut seats).unwrap();
    let hand = &seats.hands[0];
    assert_eq!(hand.cards.len(), 4);
    assert_eq!(hand.open, vec![0, 1, 2, 3]);
    assert_eq!(m.engine.state().robots[0].program[4], Some(uturn));
    let mut executed = Vec::new();
    while m.progress.phase != Phase::EndOfTurn {
        if let Stage::Register { events, .. } = m.advance(&mut seats).unwrap() {
            executed.extend(
                events
                    .into_iter()
                    .filter(|e| e.what == "card" && e.robot.as_deref() == Some("A")),
            );
        }
    }
    assert_eq!(executed.len(), 5);
    assert_eq!(executed[4].detail.get("card").unwrap(), "uturn@10");
}

#[test]
fn power_down_takes_effect_next_turn_discards_damage_and_skips_the_turn() {
    // rules.md §7.4: announced in turn N, the robot plays turn N; in N+1 its damage is
    // discarded, it gets no cards, does not move and does not fire.
    let mut m = arena();
    m.engine.state_mut().robots[0].damage = 3;
    // B stays down too, so nothing moves A in turn 2.
    let mut seats = Scripted::default();
    m.engine.set_chooser(powering_down(&["A", "B"]));
    m.advance(&mut seats).unwrap(); // turn 1: deal and program
    assert_eq!(m.progress.announced, vec![true, false]);
    while m.progress.phase != Phase::Program {
        m.advance(&mut seats).unwrap();
    }
    assert!(
        !m.engine.state().robots[0].powered_down,
        "turn 1 is played normally"
    );
    seats.hands.clear();
    m.engine.set_chooser(powering_down(&[]));
    // B is put in line with A's laser for turn 2.
    let (at, facing) = (
        m.engine.state().robots[0].at,
        m.engine.state().robots[0].facing,
    );
    {
        let mut s = m.engine.state_mut();
        let target = at.offset(facing, 1);
        if target.x < 0 || target.y < 0 || target.x > 4 || target.y > 4 {
            s.robots[0].facing = facing.opposite();
        }
        let ahead = s.robots[0].at.offset(s.robots[0].facing, 1);
        s.robots[1].at = ahead;
    }
    let facing = m.engine.state().robots[0].facing;
    let mut events = m.advance(&mut seats).unwrap().events().to_vec();
    while m.progress.phase != Phase::Program {
        events.extend(m.advance(&mut seats).unwrap().events().to_vec());
    }
    let a = &m.engine.state().robots[0];
    assert!(events
        .iter()
        .any(|e| e.what == "powered_down" && e.robot.as_deref() == Some("A")));
    assert_eq!(a.damage, 0, "all damage discarded");
    assert!(
        seats.hands.iter().all(|h| h.robot != 0),
        "no cards dealt to a powered-down robot"
    );
    assert_eq!((a.at, a.facing), (at, facing), "no moves");
    assert!(!events.iter().any(|e| e.what == "damaged"
        && e.detail.get("cause").and_then(|c| c.as_str()) == Some("robot laser")
        && e.robot.as_deref() == Some("B")));
}

#[test]
fn touching_the_last_flag_wins_at_once() {
    // rules.md §2 step 4E and §7.1: the game ends in the register the last flag is touched.
    let mut m = start("tests/games/sprint.toml");
    m.engine.state_mut().robots[0].at = Pos::new(0, 0); // on F1, the only flag, walled in N and W
    let mut seats = Scripted::default();
    m.advance(&mut seats).unwrap();
    let stage = m.advance(&mut seats).unwrap();
    assert!(matches!(stage, Stage::Register { register: 1, .. }));
    assert!(m.is_over());
    assert_eq!(
        m.progress.outcome,
        Some(Outcome::Won {
            robot: "A".into(),
            turn: 1
        })
    );
    assert!(
        m.advance(&mut seats).is_err(),
        "nothing runs after the winner"
    );
}

#[test]
fn a_tie_at_the_last_flag_goes_to_the_higher_card_priority() {
    // rules.md §7.1 and §9.2 #10 [prop.]: A stands on the last flag and B, beside it, touches
    // it with a Mechanical Arm in the same segment E. The higher card priority this register
    // wins; A, listed (and docked) first, has the lower one, so the listed order cannot give
    // the right winner. A game is won once: only B logs `won`, A `finished` second.
    let mut m = start("tests/games/sprint.toml");
    {
        let mut state = m.engine.state_mut();
        state.robots[0].at = Pos::new(0, 0);
        state.robots[1].at = Pos::new(1, 0);
        state.robots[1].options.push(HeldOption {
            name: "mechanical_arm".into(),
            uses_left: None,
        });
    }
    let mut seats = Scripted::default();
    m.advance(&mut seats).unwrap();
    let Stage::Register { events, .. } = m.advance(&mut seats).unwrap() else {
        panic!("register 1 expected");
    };
    assert!(m.is_over());
    let logged = |what: &str| -> Vec<_> {
        events
            .iter()
            .filter(|e| e.what == what)
            .filter_map(|e| e.robot.as_deref())
            .collect()
    };
    assert_eq!(logged("won"), ["B"], "won once, by the higher priority");
    assert_eq!(logged("finished"), ["A"], "A is ranked second");
    let state = m.engine.state();
    let priority = |i: usize| state.robots[i].card(1).and_then(|c| c.priority);
    assert!(
        priority(0) < priority(1),
        "the fixture's premise: A's register 1 card has the lower priority"
    );
    drop(state);
    assert_eq!(
        m.progress.outcome,
        Some(Outcome::Won {
            robot: "B".into(),
            turn: 1
        })
    );
}

#[test]
fn resume_then_finish_equals_the_uninterrupted_game_byte_for_byte() {
    let mut whole = start("games/bots.toml");
    let mut bots = Bots::new([Strength::Weak; 4]);
    whole.play_out(&mut bots).unwrap();
    let expected = serde_json::to_string(&whole.save(&[])).unwrap();
    let expected_replay = serde_json::to_string(&whole.replay(&[])).unwrap();

    for stop_after in [1, 4, 9] {
        let mut first = start("games/bots.toml");
        let mut bots = Bots::new([Strength::Weak; 4]);
        for _ in 0..stop_after {
            first.advance(&mut bots).unwrap();
        }
        // Through the file format, as `rally play --resume` does.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.save.json");
        rally::game::save::write_json(&path, &first.save(&[])).unwrap();
        drop(first);
        let save = Save::load(&path).unwrap();
        let setup = Setup::load(&save.game).unwrap();
        let rules = RuleSet::load(&sources(&setup)).unwrap();
        let mut resumed = Game::resume(setup, rules, save).unwrap();
        resumed
            .play_out(&mut Bots::new([Strength::Weak; 4]))
            .unwrap();
        assert_eq!(
            serde_json::to_string(&resumed.save(&[])).unwrap(),
            expected,
            "stopped after {stop_after} stages"
        );
        assert_eq!(
            serde_json::to_string(&resumed.replay(&[])).unwrap(),
            expected_replay
        );
    }
}

#[test]
fn every_save_of_a_game_with_every_option_card_resumes_into_the_same_game() {
    // Every option card is held: their events (`card_set`, `scrambled`, kept cards...) are
    // in the history a save holds. After every stage the game goes through the file format
    // and back, and the resumed game's next stage is the uninterrupted game's.
    let names: Vec<String> = std::fs::read_dir("scripts/options")
        .unwrap()
        .map(|e| {
            e.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let mut whole = start("tests/games/every_option.toml");
    let held: Vec<String> = whole
        .engine
        .state()
        .robots
        .iter()
        .flat_map(|r| &r.options)
        .map(|o| o.name.clone())
        .collect();
    for name in &names {
        assert!(held.contains(name), "nobody holds `{name}`");
    }
    let mut bots = Bots::new([Strength::Weak; 4]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.save.json");
    let mut stages = 0;
    while !whole.is_over() {
        rally::game::save::write_json(&path, &whole.save(&[])).unwrap();
        whole.advance(&mut bots).unwrap();
        let save = Save::load(&path).unwrap_or_else(|e| panic!("stage {stages}: {e}"));
        let setup = Setup::load(&save.game).unwrap();
        let rules = RuleSet::load(&sources(&setup)).unwrap();
        let mut resumed = Game::resume(setup, rules, save).unwrap();
        // The bots plan from the position alone, so the same bots pick the same programs.
        resumed
            .advance(&mut Bots::new([Strength::Weak; 4]))
            .unwrap();
        assert_eq!(
            serde_json::to_string(&resumed.save(&[])).unwrap(),
            serde_json::to_string(&whole.save(&[])).unwrap(),
            "resumed before stage {stages}"
        );
        stages += 1;
    }
    let events: Vec<&str> = whole
        .history
        .iter()
        .flat_map(|t| &t.events)
        .map(|e| e.what.as_ref())
        .collect();
    assert!(
        events.contains(&"card_set"),
        "no card was set: the test would not see a collision"
    );
}

/// Bots wrapped so every program they choose is checked against the hand.
struct Checked(Bots, usize);

impl Seats for Checked {
    fn program(&mut self, game: &mut Engine, hand: &Hand) -> rally::Result<Vec<Card>> {
        let before = serde_json::to_string(&*game.state()).unwrap();
        let cards = self.0.program(game, hand)?;
        assert_eq!(
            before,
            serde_json::to_string(&*game.state()).unwrap(),
            "planning leaves the game as it was"
        );
        // The bot rehearses quietly (no events); the game it hands back logs again.
        assert!(!game.state().quiet, "planning leaves the game logging");
        deal::check_program(hand, &cards)
            .unwrap_or_else(|m| panic!("illegal program {cards:?} for {hand:?}: {m}"));
        self.1 += 1;
        Ok(cards)
    }
}

#[test]
fn bots_never_choose_an_illegal_program_and_are_deterministic() {
    for strength in [Strength::Weak, Strength::Strong] {
        let mut outcomes = Vec::new();
        for _ in 0..2 {
            let mut m = start("games/bots.toml");
            let mut seats = Checked(Bots::new([strength; 4]), 0);
            m.play_out(&mut seats).unwrap();
            assert!(seats.1 > 4);
            outcomes.push(serde_json::to_string(&m.replay(&[])).unwrap());
        }
        assert_eq!(
            outcomes[0], outcomes[1],
            "{strength:?} bots are deterministic"
        );
    }
}

#[test]
fn strong_bots_win_more_often_than_weak_ones() {
    // One strong bot against three weak ones, twelve games: it should win more than its share.
    let setup = Setup::load(Path::new("games/bots.toml")).unwrap();
    let rules = RuleSet::load(&sources(&setup)).unwrap();
    let mut m = Game::start(setup, rules).unwrap();
    m.record = false;
    let start_state = m.engine.state().clone();
    let start_progress = m.progress.clone();
    let mut strong_wins = 0;
    for seed in 0..12 {
        let mut s = start_state.clone();
        s.rng = rally::state::Rng::new(seed);
        m.engine.restore(s);
        m.progress = start_progress.clone();
        m.setup.seats[(seed % 4) as usize].strength = Strength::Strong;
        let result = sim::play_one(&mut m).unwrap();
        if let Some(Outcome::Won { robot, .. }) = &result.outcome {
            if *robot == m.setup.seats[(seed % 4) as usize].name {
                strong_wins += 1;
            }
        }
        m.setup.seats[(seed % 4) as usize].strength = Strength::Weak;
    }
    assert!(strong_wins > 3, "the strong bot won {strong_wins} of 12");
}

#[test]
fn sim_summary_does_not_depend_on_the_thread_count() {
    let setup = Setup::load(Path::new("games/bots.toml")).unwrap();
    let src = sources(&setup);
    let mut figures = Vec::new();
    let one = sim::run(
        &setup,
        &src,
        0..6,
        1,
        sim::Pairing::Keep(&mut figures),
        &mut |_| {},
    )
    .unwrap();
    let two = sim::run(
        &setup,
        &src,
        0..6,
        2,
        sim::Pairing::With(&figures),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(one.games, 6);
    // The same games on the same seeds: every figure of every game is the first's.
    let paired = two.paired.clone().unwrap();
    assert!(paired.values().all(|&n| n == 0), "{paired:?}");
    assert!(paired.contains_key("turns"), "{paired:?}");
    assert_eq!(
        one,
        Tally {
            paired: None,
            ..two.clone()
        }
    );
    let rows = rally::game::tally::rows(&[&one, &two], &Default::default(), &Default::default());
    // Paired, the difference of a column with itself is 0 with no width at all.
    for key in ["turns", "deaths", "damage"] {
        let d = rows.iter().find(|r| r.key == key).unwrap().differences[0].unwrap();
        assert_eq!(
            (d.value, d.low, d.high),
            (0.0, Some(0.0), Some(0.0)),
            "{key}"
        );
    }
    let table = rally::game::tally::table(&["standard".into(), "again".into()], &rows, &[]);
    assert!(table.contains("finish rate"), "{table}");
    assert!(table.contains("deaths per game"), "{table}");
}

#[test]
fn rally_play_at_a_piped_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("duel.save.json");
    let mut input = String::new();
    for _ in 0..40 {
        input.push_str("1 2 3 4 5\nn\n");
    }
    let out = play_with(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            "tests/games/duel.toml",
            "--fast",
            "--save",
            save.to_str().unwrap(),
        ],
        &input,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("Hand       1) "),
        "the hand is numbered:\n{stdout}"
    );
    assert!(stdout.contains("Cards for registers 1 2 3 4 5"), "{stdout}");
    assert!(stdout.contains("key: F1 flag"), "the board's key: {stdout}");
    assert!(stdout.contains("── Register 5 ──"), "{stdout}");
    assert!(stdout.contains("Replay written to"), "{stdout}");
    assert!(!stdout.contains("\x1b["), "no colour when piped");
    let replay: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("duel.replay.json")).unwrap(),
    )
    .unwrap();
    assert!(replay["outcome"]["end"].is_string());
    assert_eq!(replay["turns"][0]["dealt"][0]["robot"], "You");
    // The save is complete and resumable: resuming a finished game just reports the end.
    let again = support::finish(
        support::rally_command(support::root(), &["play", "--fast", "--resume"]).arg(&save),
    );
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
}

/// `rally play` on a copy of the project's files, bots only (its input is empty); stops it
/// once `stop` says so of the lines printed so far (within a minute) and returns them all.
fn play_until(
    dir: &Path,
    args: &[&str],
    mut on_line: impl FnMut(&str),
    stop: impl Fn(&str) -> bool,
) -> String {
    use std::io::BufRead;
    let mut child = support::rally_command(dir, &["play"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut out = String::new();
    while !stop(&out) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                on_line(&line);
                out.push_str(&line);
                out.push('\n');
            }
            Err(_) => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    out
}

/// A copy of the project's scripts, boards and games in a temporary folder.
fn project_copy() -> tempfile::TempDir {
    support::copy_of(&["scripts", "boards", "games"])
}

/// Hot reload in `rally play`: a rule saved during the pause after register 1 is loaded
/// during the pause, said so, and register 2 runs it (docs/games.md).
#[test]
fn rally_play_runs_a_rule_saved_during_the_pause_in_the_next_register() {
    let dir = project_copy();
    let lasers = dir.path().join("scripts/rules/robot_lasers.lua");
    let text = std::fs::read_to_string(&lasers).unwrap();
    let effect = "fire = rally.effect.robot_lasers(),";
    assert!(text.contains(effect), "{text}");
    let edited = text.replace(
        effect,
        "fire = function(ctx) ctx:log(nil, \"nolaser\", {}) end,",
    );
    let out = play_until(
        dir.path(),
        &["games/bots.toml", "--save", "bots.save.json"],
        |line| {
            if line.contains("── Register 1 ──") {
                std::fs::write(&lasers, &edited).unwrap();
            }
        },
        |out| out.contains("── Register 3 ──"),
    );
    let register = |n: u8| {
        out.find(&format!("── Register {n} ──"))
            .unwrap_or_else(|| panic!("no register {n}:\n{out}"))
    };
    let swapped = out
        .find("↻ rules v2")
        .unwrap_or_else(|| panic!("no reload:\n{out}"));
    assert!(
        register(1) < swapped && swapped < register(2),
        "the new rules are loaded between registers 1 and 2:\n{out}"
    );
    assert!(
        out[register(2)..register(3)].contains("nolaser"),
        "register 2 runs the new rules:\n{out}"
    );
}

/// `rally play ARGS` in `dir` with `input` on its standard input.
fn play_with(dir: &Path, args: &[&str], input: &str) -> std::process::Output {
    support::finish(
        support::rally_command(dir, &["play"])
            .args(args)
            .stdin(support::stdin_of(input)),
    )
}

/// A game stopped at its very first question (Ctrl-C, or the input ends) can be resumed:
/// it was saved after the deal was set up, before anyone was asked.
#[test]
fn rally_play_saves_before_the_first_question() {
    let dir = project_copy();
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/games/duel.toml");
    let game = game.to_str().unwrap();
    let stopped = play_with(dir.path(), &[game, "--fast"], "");
    assert_eq!(stopped.status.code(), Some(2));
    let save = dir.path().join("saves/duel.save.json");
    assert!(
        save.is_file(),
        "no save after stopping at the first question"
    );
    let answers = "1 2 3 4 5\nn\n".repeat(10);
    let resumed = play_with(
        dir.path(),
        &["--fast", "--resume", "saves/duel.save.json"],
        &answers,
    );
    let out = String::from_utf8_lossy(&resumed.stdout);
    assert!(resumed.status.success(), "{out}");
    assert!(
        out.contains("Resumed from saves/duel.save.json at turn 1, the deal"),
        "{out}"
    );
}

/// Playing a game again where its save holds one does not replace it without being asked.
#[test]
fn rally_play_refuses_to_replace_the_game_in_its_save() {
    let dir = project_copy();
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/games/duel.toml");
    let game = game.to_str().unwrap();
    play_with(dir.path(), &[game, "--fast"], "1 2 3 4 5\nn\n");
    let save = dir.path().join("saves/duel.save.json");
    let kept = std::fs::read(&save).unwrap();
    let again = play_with(dir.path(), &[game, "--fast"], "");
    let err = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(2), "{err}");
    assert!(
        err.contains("saves/duel.save.json already holds a game in progress (turn 2, the deal)"),
        "{err}"
    );
    assert!(
        err.contains("rally play --resume saves/duel.save.json"),
        "{err}"
    );
    assert!(err.contains("--new"), "{err}");
    assert_eq!(std::fs::read(&save).unwrap(), kept, "the save is untouched");
    // Asked for, it starts anew.
    play_with(dir.path(), &[game, "--fast", "--new"], "");
    let anew: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
    assert_eq!(anew["state"]["turn"], 1);
}

/// Hot seat: with two people at one terminal, each is handed the terminal before seeing
/// their hand (and, on a terminal, the screen is cleared), so nobody sees another's hand or
/// program before the registers reveal them.
#[test]
fn rally_play_hands_the_terminal_over_between_people() {
    let dir = tempfile::tempdir().unwrap();
    let duel = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/games/duel.toml"),
    )
    .unwrap();
    let game = duel.replace("name = \"You\"", "name = \"Ann\"").replace(
        "name = \"Bot\"\nstrength = \"strong\"",
        "name = \"Ben\"\ndriver = \"human\"",
    );
    assert!(game.matches("driver = \"human\"").count() == 2);
    std::fs::write(dir.path().join("hot.toml"), game).unwrap();
    let out = play_with(
        dir.path(),
        &["hot.toml", "--fast"],
        "\n1 2 3 4 5\n\n5 4 3 2 1\n",
    );
    let out = String::from_utf8_lossy(&out.stdout);
    let at = |text: &str| {
        out.find(text)
            .unwrap_or_else(|| panic!("no `{text}` in:\n{out}"))
    };
    let ann = at("── Programming Ann: pass the terminal to Ann's player, then press Enter ──");
    let ben = at("── Programming Ben: pass the terminal to Ben's player, then press Enter ──");
    let hands: Vec<usize> = out
        .match_indices("Hand       1) ")
        .map(|(i, _)| i)
        .collect();
    assert!(
        ann < hands[0] && hands[0] < ben && ben < hands[1],
        "each person is handed the terminal before their hand:\n{out}"
    );
    assert!(
        out[ben..].find("── Register 1 ──") > Some(0),
        "Ben's program is asked before the registers:\n{out}"
    );
    assert!(!out.contains('\x1b'), "a pipe's screen is never cleared");
}

#[test]
fn game_file_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    std::fs::write(
        &path,
        "board = \"missing.toml\"\n[[robot]]\nname = \"A\"\ndriver = \"robot\"\n",
    )
    .unwrap();
    let e = Setup::load(&path).unwrap_err().to_string();
    assert!(e.contains("bad.toml:4"), "{e}");
    assert!(
        e.contains("unknown value `robot`, expected `human` or `bot`"),
        "in users' words, not serde's: {e}"
    );
    // Numbers, and what is only found once the rules are loaded, at their lines too.
    let duel = std::fs::read_to_string("tests/games/duel.toml").unwrap();
    for (edit, expected) in [
        (
            duel.replace("turn_limit = 2", "turn_limit = 0"),
            "bad.toml:6:14: turn_limit = 0: expected at least 1",
        ),
        (
            duel.replace("turn_limit = 2", "turn_limit = -1"),
            "bad.toml:6:14: expected a whole number from 0 to 4294967295, not -1",
        ),
        (
            duel.replace("name = \"Bot\"", "name = \"Bot\"\nstart = 7"),
            "bad.toml:46:1: robot `Bot` starts on dock 7, but the board has no `start` square number 7",
        ),
        (
            duel.replace("name = \"Bot\"", "name = \"Bot\"\noptions = [\"brakez\"]"),
            "bad.toml:46:1: robot `Bot`: there is no option `brakez` (did you mean `brakes`?)",
        ),
    ] {
        std::fs::write(&path, edit).unwrap();
        let e = Setup::load(&path)
            .and_then(|setup| {
                let rules = RuleSet::load(&sources(&setup))?;
                Game::start(setup, rules).map(|_| ())
            })
            .unwrap_err()
            .to_string();
        assert!(e.ends_with(expected), "{e}");
    }
}

#[test]
fn robots_are_kept_in_dock_order_whatever_order_they_are_listed_in() {
    // Dock order settles who re-enters first among robots destroyed at the same time
    // (rules.md §7.5 item 5); the engine reads it as the order of the robots.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docks.toml");
    let game = r#"
[board]
grid = "S1 S2 F1"
[board.legend]
"S1" = { element = "start", number = 1 }
"S2" = { element = "start", number = 2 }
"F1" = { element = "flag", number = 1 }
[[robot]]
name = "Second"
start = 2
[[robot]]
name = "First"
start = 1
"#;
    std::fs::write(&path, game).unwrap();
    let setup = Setup::load(&path).unwrap();
    let docks: Vec<(&str, u32)> = setup
        .seats
        .iter()
        .map(|s| (s.name.as_str(), s.dock))
        .collect();
    assert_eq!(docks, [("First", 1), ("Second", 2)]);
    let rules = RuleSet::load(&sources(&setup)).unwrap();
    let m = Game::start(setup, rules).unwrap();
    let state = m.engine.state();
    let robots: Vec<(&str, Pos)> = state.robots.iter().map(|r| (&*r.name, r.at)).collect();
    assert_eq!(
        robots,
        [("First", Pos::new(0, 0)), ("Second", Pos::new(1, 0))]
    );
}

/// The frames in a page written by `rally replay`.
fn page_frames(page: &str) -> Vec<serde_json::Value> {
    let start = "<script id=\"replay-data\" type=\"application/json\">";
    let data = &page[page.find(start).expect("the page has its data") + start.len()..];
    let data = &data[..data.find("</script>").unwrap()];
    let data: serde_json::Value = serde_json::from_str(data).unwrap();
    data["frames"].as_array().unwrap().clone()
}

#[test]
fn rally_replay_plays_a_whole_game_stage_by_stage() {
    let mut m = start("tests/games/duel.toml");
    let mut bots = Bots::new(m.setup.seats.iter().map(|s| s.strength));
    let mut stages = 0;
    while !m.is_over() {
        m.advance(&mut bots).unwrap();
        stages += 1;
    }
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("duel.replay.json");
    rally::game::save::write_json(&replay, &m.replay(&[])).unwrap();
    let html = dir.path().join("duel.html");
    let run = |input: &Path| {
        support::finish(
            support::rally_command(support::root(), &["replay"])
                .arg(input)
                .arg("-o")
                .arg(&html),
        )
    };
    let out = run(&replay);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    let frames = page_frames(&page);
    // Each stage is one or more frames: a register has one per card and per step in which
    // something happened (`t1r2s3`), named by its stage without the `s` count.
    let stage_of = |f: &serde_json::Value| {
        let id = f["id"].as_str().unwrap();
        id.split('s').next().unwrap().to_string()
    };
    let mut named: Vec<String> = frames.iter().map(stage_of).collect();
    named.dedup();
    assert_eq!(
        named.len(),
        stages,
        "every stage of the game has its frames"
    );
    assert!(frames.len() > stages, "registers are shown step by step");
    assert_eq!(frames[0]["label"], "Turn 1 · Start");
    assert_eq!(frames[0]["id"], "t1r0");
    assert_eq!(frames[1]["id"], "t1r1s1");
    assert_eq!(
        frames[1]["stage"], "card",
        "a register begins with the first card"
    );
    let label = frames[1]["label"].as_str().unwrap();
    let acting = frames[1]["acting"].as_str().unwrap();
    assert!(
        label.starts_with(&format!("Turn 1 · Register 1 · robot {acting} plays ")),
        "{label}"
    );
    assert!(
        frames[1]["robots"][0]["program"].as_array().unwrap().len() == 5,
        "the frames carry the programs dealt"
    );
    // Programs are said in words, like every event the viewer knows ("robot You programs
    // Move 1 (540), Turn Left (90), ..."), not as the log's raw JSON.
    let programmed: Vec<&str> = frames[0]["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["text"].as_str())
        .filter(|t| t.contains("program"))
        .collect();
    assert_eq!(programmed.len(), 2, "{programmed:?}");
    assert!(
        programmed
            .iter()
            .all(|t| t.starts_with("Robot ") && t.contains(" programs ") && !t.contains('[')),
        "{programmed:?}"
    );
    let last = frames.last().unwrap();
    let state = m.engine.state();
    let shown: Vec<_> = last["robots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                serde_json::from_value::<Pos>(r["at"].clone()).unwrap(),
                r["facing"].as_str().unwrap().to_string(),
                r["damage"].as_i64().unwrap() as i32,
                r["lives"].as_i64().unwrap() as i32,
                r["flags"].as_u64().unwrap() as u32,
                r["destroyed"].as_bool().unwrap(),
            )
        })
        .collect();
    let expected: Vec<_> = state
        .robots
        .iter()
        .map(|r| {
            (
                r.name.to_string(),
                r.at,
                r.facing.to_string(),
                r.damage,
                r.lives,
                r.flags,
                r.destroyed,
            )
        })
        .collect();
    assert_eq!(shown, expected, "the last frame is the game's end");
    // Every event of the game is shown once, in the frame of its stage.
    let shown_events: usize = frames
        .iter()
        .map(|f| f["events"].as_array().unwrap().len())
        .sum();
    let events: usize = m.history.iter().map(|t| t.events.len()).sum();
    assert_eq!(shown_events, events);

    // A save plays the same way.
    let save = dir.path().join("duel.save.json");
    rally::game::save::write_json(&save, &m.save(&[])).unwrap();
    assert!(run(&save).status.success());
    assert_eq!(
        page_frames(&std::fs::read_to_string(&html).unwrap()),
        frames
    );

    // Saves from before snapshots still load; the viewer says why it cannot show them.
    let mut old: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
    for turn in old["history"].as_array_mut().unwrap() {
        turn.as_object_mut().unwrap().remove("snapshots");
    }
    std::fs::write(&save, old.to_string()).unwrap();
    let loaded = Save::load(&save).unwrap();
    assert!(loaded.history.iter().all(|t| t.snapshots.is_empty()));
    let out = run(&save);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no robot snapshots"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 6: a finished game's replay re-resolves under the current rules with every recorded
/// decision played back; unchanged rules give the same game, an edited rule shows where the
/// game went another way.
#[test]
fn run_replay_re_resolves_a_whole_game() {
    let mut m = start("games/bots.toml");
    m.play_out(&mut Bots::new(m.setup.seats.iter().map(|s| s.strength)))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let replay = dir.path().join("bots.replay.json");
    rally::game::save::write_json(&replay, &m.replay(&[])).unwrap();
    let run = |scripts: &Path| {
        support::finish(
            support::rally_command(support::root(), &["run", "--replay"])
                .arg(&replay)
                .arg("--scripts")
                .arg(scripts),
        )
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    no_change(&run(&root.join("scripts")));

    // Gears turn the other way: the game parts from the recording at the first gear turn.
    let scripts = dir.path().join("scripts");
    support::copy_dir(&root.join("scripts"), &scripts);
    let gear = scripts.join("elements/gear.lua");
    let edited = std::fs::read_to_string(&gear).unwrap().replace(
        "gears = rally.effect.rotate(\"turn\", { by = \"gear\" }),",
        "gears = function(ctx, tile, robot) ctx:rotate(robot, \"uturn\", \"gear\") end,",
    );
    std::fs::write(&gear, edited).unwrap();
    let changed = run(&scripts);
    let text = String::from_utf8_lossy(&changed.stdout);
    assert_eq!(changed.status.code(), Some(1), "{text}");
    assert!(
        text.contains("first difference at event") && text.contains("rotation=uturn"),
        "{text}"
    );
}

/// A question nobody answered in time is logged as such (`timed_out`), and a replay plays
/// it back as a time-out: the same events, no change.
#[test]
fn run_replay_plays_a_timed_out_answer_back_as_a_time_out() {
    let mut m = start("games/bots.toml");
    m.play_out(&mut Bots::new(m.setup.seats.iter().map(|s| s.strength)))
        .unwrap();
    let mut replay = serde_json::to_value(m.replay(&[])).unwrap();
    // Every default answer becomes one the table took when its time ran out.
    fn time_out(v: &mut serde_json::Value, marked: &mut usize) {
        match v {
            serde_json::Value::Object(map) => {
                if map.get("what") == Some(&serde_json::json!("chose"))
                    && map.get("default") == Some(&serde_json::json!(true))
                {
                    map.insert("timed_out".into(), serde_json::Value::Bool(true));
                    *marked += 1;
                }
                map.values_mut().for_each(|v| time_out(v, marked));
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| time_out(v, marked)),
            _ => {}
        }
    }
    let mut marked = 0;
    time_out(&mut replay, &mut marked);
    assert!(marked > 0, "the bots' game asks questions");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bots.replay.json");
    std::fs::write(&path, replay.to_string()).unwrap();
    no_change(&support::finish(
        support::rally_command(support::root(), &["run", "--replay"]).arg(&path),
    ));
}

/// `rally run --replay` found the game resolved again exactly as recorded.
fn no_change(out: &std::process::Output) {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("no change"), "{text}");
}

/// A table's program preview (`game::preview`) is the engine's own rehearsal: belts and
/// lasers act in it; the other robots play only their face-up cards (a card in another's
/// open register, which a player could not see, changes nothing); the game is left exactly
/// as it was.
#[test]
fn a_program_preview_is_the_engines_rehearsal_with_only_face_up_cards() {
    let mut m = start("tests/games/table.toml");
    let card = |c: &str| Some(Card::parse(c).unwrap());
    // Bob, beside Ann, turned to face her with a hidden Move 2: played, he would push her
    // off her dock before her U-Turn.
    {
        let mut state = m.engine.state_mut();
        state.robots[1].facing = Dir::W;
        state.robots[1].program = vec![card("move2@700"), None, None, None, None];
    }
    let before = serde_json::to_string(&*m.engine.state()).unwrap();
    let pose = |register: u8, x: i32, y: i32, facing: Dir| Pose {
        register,
        at: Pos { x, y },
        facing,
        destroyed: false,
    };
    let program = [
        card("uturn@10"),
        card("uturn@20"),
        card("move2@710"),
        None,
        card("right@80"),
    ];
    let poses = preview::preview(&mut m.engine, 0, &program).unwrap();
    assert_eq!(
        poses,
        vec![
            pose(1, 1, 6, Dir::S),
            pose(2, 1, 6, Dir::N),
            pose(3, 1, 4, Dir::N),
            pose(4, 1, 4, Dir::N),
            pose(5, 1, 4, Dir::E),
        ],
        "Bob's hidden card is not played; register 4, empty, is resolved all the same"
    );
    // Onto the belt (x = 2 carries south): the belt's step moves her in the same register.
    let program = [card("right@80"), card("move1@490"), None, None, None];
    assert_eq!(
        preview::preview(&mut m.engine, 0, &program).unwrap(),
        vec![pose(1, 1, 6, Dir::E), pose(2, 2, 6, Dir::E)],
    );
    let program = [
        None,
        card("move1@490"),
        card("left@70"),
        card("move1@500"),
        None,
    ];
    let poses = preview::preview(&mut m.engine, 0, &program).unwrap();
    assert_eq!(poses.len(), 4, "up to the last card: {poses:?}");
    assert!(preview::preview(&mut m.engine, 0, &[None; 5])
        .unwrap()
        .is_empty());
    assert_eq!(
        serde_json::to_string(&*m.engine.state()).unwrap(),
        before,
        "the game as it was: robots, decks, RNG, events"
    );
}

#[test]
fn every_shipped_game_plays_to_the_end_with_bots() {
    let mut games: Vec<_> = std::fs::read_dir("games")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    games.sort();
    assert!(games.len() >= 5, "{games:?}");
    for game in games {
        let mut m = start(game.to_str().unwrap());
        m.record = false;
        let result = sim::play_one(&mut m).unwrap();
        assert!(result.outcome.is_some(), "{}", game.display());
        assert!(
            m.setup
                .idle_variant_warnings(m.engine.rules())
                .unwrap()
                .is_empty(),
            "{}: every variant it switches on acts on its board",
            game.display()
        );
    }
}

#[test]
fn bots_play_a_game_with_every_option_that_asks() {
    // games/options.toml arms four bots with the options that ask their players something:
    // the game runs to its end, the same every time, and the bots do use them.
    let play = || {
        let mut m = start("games/options.toml");
        let mut bots = Bots::new(m.setup.seats.iter().map(|s| s.strength));
        m.play_out(&mut bots).unwrap();
        m.history
            .iter()
            .flat_map(|t| t.events.clone())
            .collect::<Vec<_>>()
    };
    let events = play();
    assert_eq!(events, play(), "the same game every time");
    let count = |what: &str| events.iter().filter(|e| e.what == what).count();
    let asked = |question: &str| {
        events
            .iter()
            .filter(|e| e.what == "chose")
            .filter(|e| e.detail.get("question").and_then(|q| q.as_str()) == Some(question))
            .count()
    };
    for question in [
        "shot",
        "recompile",
        "flywheel",
        "gyroscopic_stabilizer",
        "abort_switch",
        "conditional_program",
    ] {
        assert!(asked(question) > 0, "nobody was asked `{question}`");
    }
    assert!(count("shot") > 0, "no bot fired an option's shot");
    assert!(count("card_kept") > 0, "no bot kept a card on an option");
}

/// A rule failing in `rally play` (issue 28 §2, docs/debugging.md): before the game pauses for
/// a fix, the events the failed register had logged, the board and the robots as it was
/// rolled back, and when: the turn, the register, the step.
#[test]
fn rally_play_shows_the_state_at_a_script_error() {
    let dir = project_copy();
    let lasers = dir.path().join("scripts/rules/robot_lasers.lua");
    let text = std::fs::read_to_string(&lasers).unwrap();
    let broken = text.replace(
        "fire = rally.effect.robot_lasers(),",
        "fire = function(ctx) if ctx.register == 2 then local held = nil; return held.x end ctx:fire_robot_lasers() end,",
    );
    // Saved during the pause after register 1: the bots programmed with the good rule (they
    // rehearse registers), and register 2 runs the broken one.
    let out = play_until(
        dir.path(),
        &["games/bots.toml", "--save", "bots.save.json"],
        |line| {
            if line.contains("── Register 1 ──") {
                std::fs::write(&lasers, &broken).unwrap();
            }
        },
        |out| out.contains("paused: save a fixed script"),
    );
    let failed = out
        .find("✗ script error in turn 1, register 2, step ")
        .unwrap_or_else(|| panic!("no failure:\n{out}"));
    let before = &out[out.find("── Register 1 ──").expect("register 1")..failed];
    assert!(before.contains("Events up to the failure:"), "{before}");
    assert!(before.contains("T1 R2  robots_move"), "{before}");
    assert!(before.contains("(rolled back)"), "{before}");
    assert!(
        before.contains(
            "The board and robots as the failed stage was rolled back (turn 1, register 2, step "
        ),
        "{before}"
    );
    assert!(out[failed..].contains("robot_lasers.lua:"), "{out}");
}

/// A seat's `facing` is optional: without it a robot faces the way its dock's `facing` says,
/// else north; a seat's own facing wins over its dock's.
#[test]
fn seats_face_as_given_else_as_their_dock_else_north() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.toml");
    std::fs::write(
        &path,
        r#"
seed = 1
[board]
grid = """
F1 S1 S2 S3
"""
[board.legend]
"F1" = { element = "flag", number = 1 }
"S1" = { element = "start", number = 1, facing = "E" }
"S2" = { element = "start", number = 2, facing = "E" }
"S3" = { element = "start", number = 3 }
[[robot]]
name = "docked"
[[robot]]
name = "given"
facing = "W"
[[robot]]
name = "plain"
"#,
    )
    .unwrap();
    let setup = Setup::load(&path).unwrap();
    let rules = RuleSet::load(&sources(&setup)).unwrap();
    let game = Game::start(setup, rules).unwrap();
    let facings: Vec<(String, Dir)> = game
        .engine
        .state()
        .robots
        .iter()
        .map(|r| (r.name.to_string(), r.facing))
        .collect();
    assert_eq!(
        facings,
        [
            ("docked".to_string(), Dir::E),
            ("given".to_string(), Dir::W),
            ("plain".to_string(), Dir::N),
        ]
    );
}
