//! One full turn (5 registers and the end of the turn) with 8 robots on a 12×12 board carrying
//! about 60 scripted elements: the figure issue 2 sets a budget for (median ≤ 100 µs).
//! Also the rule-set build (what a hot reload costs) and one register alone.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rally::formats::scenario::Scenario;
use rally::script::{RuleSet, Sources};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/fixtures")
        .join(name)
}

fn sources(scenario: &Scenario) -> Sources {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    scenario.sources(&root.join("scripts"), &root.join("variants"), &[])
}

fn bench(c: &mut Criterion) {
    for (label, file) in [
        ("standard", "standard_turn.toml"),
        ("expansion", "expansion_turn.toml"),
    ] {
        let path = fixture(file);
        if !path.is_file() {
            continue;
        }
        let scenario = Scenario::load(&path).expect("fixture loads");
        let rules = RuleSet::load(&sources(&scenario)).expect("rules load");
        let mut game = scenario.start(rules).expect("game starts");
        let start = game.state().clone();
        c.bench_function(&format!("turn/{label}"), |b| {
            b.iter_batched(
                || start.clone(),
                // The replaced state (the last turn's) is returned, so dropping it is not timed.
                |state| {
                    let previous = game.restore(state);
                    scenario.resolve(&mut game).expect("turn resolves");
                    previous
                },
                BatchSize::SmallInput,
            )
        });
    }
    let scenario = Scenario::load(&fixture("standard_turn.toml")).unwrap();
    let src = sources(&scenario);
    c.bench_function("rules/load", |b| {
        b.iter(|| RuleSet::load(&src).expect("rules load"))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
