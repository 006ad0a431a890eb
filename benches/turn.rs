//! The engine's figures (docs/performance.md), with criterion:
//! - `turn/standard`: one full turn (5 registers and the end of the turn), 8 robots on a
//!   12×12 board with about 60 scripted elements; `turn/expansion`, the same on the Speedway;
//! - `small/*`: the tiniest case (1 robot, 1 register, a 3×3 floor, no elements; with and
//!   without the end of the turn) and a few scenarios of tests/scenarios near their median;
//! - `rules/load`: building a whole rule set (what a hot reload rebuilds);
//! - `bot/weak`, `bot/strong`: one bot planning one hand on the Factory (games/factory.toml).
//!
//! `cargo bench --bench turn -- small` runs one group. `rally bench` times whole folders.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rally::cards::Card;
use rally::deal::Hand;
use rally::engine::Engine;
use rally::error::Result;
use rally::formats::scenario::Scenario;
use rally::game::bot::{Bot, Strength};
use rally::game::{Game, Seats, Setup};
use rally::script::{RuleSet, Sources};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn sources(scenario: &Scenario) -> Sources {
    scenario.sources(
        &rally::script::Project::folders(root().join("scripts"), root().join("variants")),
        &[],
    )
}

/// Times resolving the scenario at `path` (relative to the crate) from its start.
fn scenario(c: &mut Criterion, label: &str, path: &str) {
    let path: PathBuf = root().join(path);
    let scenario = Scenario::load(&path).expect("fixture loads");
    let rules = RuleSet::load(&sources(&scenario)).expect("rules load");
    let mut game = scenario.start(rules).expect("game starts");
    let start = game.state().clone();
    c.bench_function(label, |b| {
        b.iter_batched(
            || start.clone(),
            // The replaced state (the last run's) is returned, so dropping it is not timed.
            |state| {
                let previous = scenario.rewind(&mut game, state);
                scenario.resolve(&mut game).expect("scenario resolves");
                previous
            },
            BatchSize::SmallInput,
        )
    });
}

/// Seats that keep the first hand dealt (and the game as it was then) instead of playing.
struct FirstHand(Option<(Hand, rally::state::State)>);

impl Seats for FirstHand {
    fn program(&mut self, game: &mut Engine, hand: &Hand) -> Result<Vec<Card>> {
        if self.0.is_none() {
            self.0 = Some((hand.clone(), game.state().clone()));
        }
        Ok(hand.cards[..hand.open.len().min(hand.cards.len())].to_vec())
    }
}

/// Times one bot planning the first hand of the Factory game.
fn bot(c: &mut Criterion, strength: Strength) {
    let file = root().join("games/factory.toml");
    let setup = Setup::load(&file).expect("game file loads");
    let rules = RuleSet::load(&Sources {
        project: rally::script::Project::folders(root().join("scripts"), root().join("variants")),
        choices: setup.choices(&[]),
    })
    .expect("rules load");
    let mut m = Game::start(setup, rules).expect("game starts");
    let mut seats = FirstHand(None);
    m.advance(&mut seats).expect("the first turn is dealt");
    let (hand, state) = seats.0.expect("a hand was dealt");
    m.engine.restore(state);
    let mut bot = Bot::new(strength);
    c.bench_function(&format!("bot/{}", strength.name()), |b| {
        b.iter(|| bot.plan(&mut m.engine, &hand).expect("the bot plans"))
    });
}

fn bench(c: &mut Criterion) {
    scenario(c, "turn/standard", "benches/fixtures/standard_turn.toml");
    scenario(c, "turn/expansion", "benches/fixtures/expansion_turn.toml");
    scenario(c, "small/tiny", "benches/fixtures/tiny.toml");
    scenario(
        c,
        "small/tiny_end_of_turn",
        "benches/fixtures/tiny_end_of_turn.toml",
    );
    for (label, path) in [
        (
            "small/belts",
            "tests/scenarios/flags/flag_counts_after_belts.toml",
        ),
        (
            "small/lasers",
            "tests/scenarios/flags/destroyed_in_lasers_no_touch.toml",
        ),
        (
            "small/reentry",
            "tests/scenarios/reentry/crusher_step_dock_order.toml",
        ),
    ] {
        scenario(c, label, path);
    }
    let standard = Scenario::load(&root().join("benches/fixtures/standard_turn.toml")).unwrap();
    let src = sources(&standard);
    c.bench_function("rules/load", |b| {
        b.iter(|| RuleSet::load(&src).expect("rules load"))
    });
    bot(c, Strength::Weak);
    bot(c, Strength::Strong);
}

criterion_group!(benches, bench);
criterion_main!(benches);
