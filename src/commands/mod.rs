//! The `rally` commands. `main.rs` only parses the command line; each command lives here,
//! one module each, on top of the library.

pub mod bench;
pub mod catalogue;
pub mod completions;
pub mod help;
pub mod new;
pub mod output;
pub mod play;
pub mod render;
pub mod run;
pub mod serve;
pub mod sim;
pub mod test;
pub mod types;
pub mod viewer;
pub mod watch;
