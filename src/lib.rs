//! rally: a RoboRally rules engine whose board elements and house rules are Lua plugins.
//!
//! The native core owns the game state ([`state`]) and the order of play ([`order`],
//! [`engine`]); the physical rules are enforced once, natively; Lua scripts ([`script`])
//! define what every board element, option card and variant does.
//!
//! # Embedding the engine
//!
//! Load a scenario, the rules it asks for, resolve it and read what happened:
//!
//! ```
//! use rally::{RuleFolders, Scenario};
//! use std::path::Path;
//!
//! # fn main() -> rally::Result<()> {
//! let scenario = Scenario::load(Path::new("boards/tour.toml"))?;
//! // The scripts and variants folders beside the file or above it, else the built-in ones,
//! // as `rally run` finds them; `RuleSet::load` takes them from anywhere else.
//! let rules = RuleFolders::default().rules(Some(&scenario.path), scenario.variants.clone())?;
//! let mut engine = scenario.start(rules)?;
//! scenario.resolve(&mut engine)?;
//! let state = engine.state();
//! for event in &state.events {
//!     let robot = event.robot.as_deref().unwrap_or("-");
//!     println!("turn {} register {}: {robot} {}", event.turn, event.register, event.what);
//! }
//! // "The wall laser burns Bravo", the tour's description says.
//! let bravo = |e: &&rally::Event| e.robot.as_deref() == Some("Bravo");
//! assert!(state.events.iter().filter(bravo).any(|e| e.what == "damaged"));
//! // What its `[expect]` tables say (it has none), checked as `rally test` checks them.
//! assert!(scenario.check(&state).is_empty());
//! # Ok(())
//! # }
//! ```
//!
//! A whole game (a game file's seats, bots and the turn loop) is a [`Game`]
//! ([`game::Setup::load`], [`Game::start`], [`Game::advance`]); [`reload::HotReload`]
//! swaps edited rules into a running engine; [`pictures`] draws boards and replays.
//!
//! # Layers
//!
//! Each module imports only from those below it (tests/layers.rs keeps it so): errors,
//! geometry and text; boards, cards, file reading and the order of play; the Lua host
//! ([`script`]); the state, dealing, decisions and the physical rules; the [`engine`]; file
//! formats above it ([`formats`]); whole games ([`game`]); hot reload; pictures; the browser
//! table ([`table`]); the commands of the `rally` binary.

pub mod board;
pub mod cards;
/// The commands of the `rally` binary (its command line, one module per command): not a
/// library interface.
#[doc(hidden)]
pub mod commands;
pub mod deal;
pub mod decision;
pub mod engine;
pub mod error;
pub(crate) mod files;
pub mod formats;
pub mod game;
pub mod geometry;
pub mod hooks;
pub mod order;
pub mod pictures;
pub mod reload;
pub mod script;
pub(crate) mod snippet;
pub mod state;
#[cfg(feature = "serve")]
pub mod table;
pub(crate) mod text;
pub(crate) mod world;

pub use engine::Engine;
pub use error::{Error, Result};
pub use formats::scenario::Scenario;
pub use game::Game;
pub use script::{RuleFolders, RuleSet, Sources};
pub use state::{Event, Robot, State};
