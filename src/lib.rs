//! rally: a RoboRally rules engine whose board elements and house rules are Lua plugins.
//!
//! The native core owns the game state ([`state`]) and the order of play ([`order`],
//! [`engine`]); the physical rules are enforced once in [`world`]; Lua scripts
//! ([`script`]) define what every board element and variant does.

pub mod board;
pub mod cards;
pub mod commands;
pub mod deal;
pub mod decision;
pub mod engine;
pub mod error;
pub mod files;
pub mod formats;
pub mod game;
pub mod geometry;
pub mod order;
pub mod pictures;
pub mod reload;
pub mod script;
pub mod snippet;
pub mod state;
pub mod table;
pub mod text;
pub mod world;

pub use error::{Error, Result};
