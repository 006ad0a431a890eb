//! The files rally reads besides boards and scripts: every file goes through [`files`] (regular
//! files only, size-capped, UTF-8 with a line), scenarios and their expectations
//! ([`scenario`]), maps from the Tiled editor ([`tiled`]) and replay logs ([`replay`]).

pub mod files;
pub mod replay;
pub mod scenario;
pub mod tiled;
