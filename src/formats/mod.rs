//! The files rally reads besides boards and scripts: scenarios and their expectations
//! ([`scenario`]), maps from the Tiled editor ([`tiled`]) and replay logs ([`replay`]). Every
//! file is read through [`crate::files`] (regular files only, size-capped, UTF-8 with a line).

pub mod replay;
pub mod scenario;
pub mod tiled;
