//! What people look at: the board as text for the terminal ([`render`]), what changed
//! between two resolutions ([`diff`]), SVG and PNG pictures ([`svg`]), and the HTML replay
//! viewer whose drawing code the browser table shares ([`html`]).

pub mod diff;
pub mod html;
pub mod render;
pub mod svg;
