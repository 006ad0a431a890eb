//! The files rally reads besides boards and scripts: scenarios and their expectations
//! ([`scenario`]) and replay logs ([`replay`]); and what it writes for the Tiled editor
//! (`tiled_types`). Every file is read through `crate::files` (regular files only,
//! size-capped, UTF-8 with a line). Boards, TOML or Tiled maps, are read by [`crate::board`].

pub mod replay;
pub mod scenario;
pub(crate) mod tiled_types;
