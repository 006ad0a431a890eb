//! What people look at: the board as text for the terminal (`render`), what changed
//! between two resolutions (`diff`), SVG and PNG pictures ([`svg`]), and the HTML replay
//! viewer whose drawing code the browser table shares ([`html`]); events in words for all of
//! them ([`words`]).

pub(crate) mod chart;
pub(crate) mod diff;
pub(crate) mod heatmap;
pub mod html;
pub(crate) mod probe;
pub(crate) mod render;
pub(crate) mod report;
pub(crate) mod stopped;
pub mod svg;
pub mod words;
