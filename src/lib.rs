//! rally: a RoboRally rules engine whose board elements and house rules are Lua plugins.
//!
//! The native core owns the game state ([`state`]) and the order of play ([`order`],
//! [`engine`]); the physical rules are enforced once in [`world`]; Lua scripts
//! ([`script`]) define what every board element and variant does.

pub mod board;
pub mod builtin;
pub mod cards;
pub mod commands;
pub mod decision;
pub mod diff;
pub mod engine;
pub mod error;
pub mod files;
pub mod game;
pub mod geometry;
pub mod html;
pub mod order;
pub mod params;
pub mod reference;
pub mod reload;
pub mod render;
pub mod replay;
pub mod scenario;
pub mod script;
pub mod snippet;
pub mod state;
pub mod svg;
pub mod table;
pub mod text;
pub mod tiled;
pub mod variant;
pub mod world;

pub use error::{Error, Result};
