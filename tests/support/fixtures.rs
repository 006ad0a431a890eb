//! Benchmark fixtures written by a generator and committed (benches/fixtures/scaling,
//! benches/fixtures/crowded): the test that owns them checks each committed file is what
//! its generator makes, and resolves it.

use rally::formats::scenario::Scenario;
use rally::script::{Project, RuleSet};
use rally::Engine;
use std::path::Path;

/// Whether `RALLY_REGENERATE` asks for the fixtures to be written again.
fn regenerating() -> bool {
    std::env::var_os("RALLY_REGENERATE").is_some()
}

/// Checks that the committed fixture at `path` is `text`, what the generator makes, after
/// writing it there when regenerating; `module` is the test module that writes them.
pub fn check_committed(path: &Path, text: &str, module: &str) {
    if regenerating() {
        std::fs::create_dir_all(path.parent().expect("a fixture's folder")).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == text,
        "{} is not what the generator makes: RALLY_REGENERATE=1 cargo test --test tests {module}",
        path.display()
    );
}

/// Resolves the scenario at `path` with the standard rules, taken from `rules` (the
/// previous fixture's, so they are loaded once for the set) and returned to it afterwards
/// by the caller (`Engine::into_rules`).
pub fn resolve(path: &Path, rules: &mut Option<RuleSet>) -> Engine {
    let scenario = Scenario::load(path).unwrap();
    let loaded = rules.take().unwrap_or_else(|| {
        let root = super::root();
        let sources = scenario.sources(
            &Project::folders(root.join("scripts"), root.join("variants")),
            &[],
        );
        RuleSet::load(&sources).unwrap()
    });
    let mut game = scenario.start(loaded).unwrap();
    scenario.resolve(&mut game).unwrap();
    game
}
