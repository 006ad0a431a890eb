//! The integration tests: one binary, one module per area (tests/README.md says where a new
//! test goes). Each module drives the library or the real `rally` binary (`support`). One
//! binary links the engine once, where a binary per file linked it 35 times.
//!
//! `cargo test --test tests cli::` runs one module; the scenario files are the other test
//! binary, `scenarios` (tests/scenarios.rs). The modules of an optional feature (`serve`,
//! `png`) build only with it, as the default build has.

mod support;

mod api_reference;
mod bad_input;
mod bench;
mod check;
mod citations;
mod cli;
mod completions;
mod crowded_fixtures;
mod debugging;
mod drawings;
mod element_steps;
mod errors;
mod events;
mod fields;
mod frames;
mod fuzz;
mod game;
mod hooks;
mod inputs;
mod journal;
mod layers;
mod lua_api;
mod new;
mod options;
mod packs;
mod pictures;
mod readme;
mod replay;
mod replay_browser;
mod sandbox;
mod scaling_fixtures;
mod sim;
mod step;
#[cfg(feature = "serve")]
mod table_browser;
#[cfg(feature = "serve")]
mod table_debug;
mod table_deploy;
#[cfg(feature = "serve")]
mod table_load;
#[cfg(feature = "serve")]
mod table_lobby;
#[cfg(feature = "serve")]
mod table_lobby_browser;
#[cfg(feature = "serve")]
mod table_protocol;
#[cfg(feature = "serve")]
mod table_start;
mod tiled;
mod turns;
mod variants;
mod watch;
mod words;
