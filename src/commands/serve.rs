//! `rally serve GAME...` / `rally serve --resume SAVE`: the playtest table. Each game file
//! (or save) becomes a table on its own thread; the command prints one link per seat, a
//! spectators' link and a host link for each, and serves them until Ctrl-C. Games are saved
//! after every register beside their tokens, so `--resume` brings a table back with the
//! same links.

use super::Common;
use crate::error::{Error, Result};
use crate::table::protocol::Settings;
use crate::table::server::Server;
use crate::table::{self, Launch, Lobby, Tokens};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub struct ServeOptions {
    pub host: String,
    pub port: u16,
    pub resume: Vec<PathBuf>,
    /// Where games are saved: FOLDER/TABLE.save.json.
    pub saves: PathBuf,
    pub settings: Settings,
    /// Watch the rule files (hot reload).
    pub reload: bool,
}

/// Opens a table per game and per save, prints the links and serves until Ctrl-C.
pub fn serve(games: &[PathBuf], opts: &ServeOptions, common: &Common) -> Result<bool> {
    if games.is_empty() && opts.resume.is_empty() {
        return Err(Error::Other(
            "rally serve needs a game file (e.g. games/practice.toml) or --resume SAVE".into(),
        ));
    }
    let lobby = Arc::new(Lobby::default());
    let launches = launches(games, opts, common)?;
    let server = Server::start(lobby.clone(), &opts.host, opts.port)?;
    let base = server.base_url();
    println!(
        "rally serve on {base}: {} table(s). Ctrl-C stops; every game is saved after each register.",
        launches.len()
    );
    if opts.host == "127.0.0.1" || opts.host == "localhost" {
        println!("Only this computer can connect: `--host 0.0.0.0` lets others on your network in (give them this computer's address).");
    }
    for launch in launches {
        let save = launch.save.clone();
        let info = lobby.open(launch)?;
        println!(
            "\n{} — table `{}`, saved to {}",
            info.title,
            info.id,
            save.display()
        );
        for (who, link) in table::links(&base, &info) {
            println!("  {who:<40} {link}");
        }
    }
    wait_for_ctrl_c();
    println!("\nStopping: the games are saved; `rally serve --resume SAVE` brings a table back.");
    drop(server);
    Ok(true)
}

fn wait_for_ctrl_c() {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let _ = runtime.block_on(tokio::signal::ctrl_c());
}

/// One launch per game file and per save, with ids from their names (made unique).
fn launches(games: &[PathBuf], opts: &ServeOptions, common: &Common) -> Result<Vec<Launch>> {
    let mut ids: Vec<String> = Vec::new();
    let mut unique = |name: String| {
        let mut id = name.clone();
        let mut n = 2;
        while ids.contains(&id) {
            id = format!("{name}-{n}");
            n += 1;
        }
        ids.push(id.clone());
        id
    };
    let mut out = Vec::new();
    for path in &opts.resume {
        let (save, tokens) = table::thread::resume(path)?;
        let id = unique(table_name(path));
        let seats = save.state.robots.len();
        let tokens = match tokens {
            Some(t) if t.seats.len() == seats => t,
            _ => Tokens::new(seats)?,
        };
        out.push(Launch {
            id,
            game: save.game.clone(),
            extra: save.extra_variants.clone(),
            resume: Some(save),
            common: common.clone(),
            save: path.clone(),
            tokens,
            settings: opts.settings,
            reload: opts.reload,
        });
    }
    for game in games {
        let id = unique(table_name(game));
        let setup = crate::game::Setup::load(game)?;
        out.push(Launch {
            save: opts.saves.join(format!("{id}.save.json")),
            id,
            game: game.clone(),
            resume: None,
            extra: common.extra_variants.clone(),
            common: common.clone(),
            tokens: Tokens::new(setup.seats.len())?,
            settings: opts.settings,
            reload: opts.reload,
        });
    }
    Ok(out)
}

/// `games/practice.toml` → `practice`; `saves/practice.save.json` → `practice`: letters,
/// digits and dashes only, since it goes into links.
fn table_name(path: &Path) -> String {
    let stem = match path.file_stem() {
        Some(stem) if path.extension().is_some_and(|e| e == "toml") => {
            stem.to_string_lossy().to_string()
        }
        _ => crate::game::save::name(path),
    };
    let clean: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if clean.is_empty() {
        "table".into()
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_named_after_their_game_or_save_in_link_safe_letters() {
        for (path, name) in [
            ("games/practice.toml", "practice"),
            ("saves/practice.save.json", "practice"),
            ("saves/old.json", "old"),
            ("games/Die Bahn 2.toml", "Die-Bahn-2"),
            ("games/ü.toml", "-"),
            (".toml", "-toml"),
        ] {
            assert_eq!(table_name(Path::new(path)), name, "{path}");
        }
    }
}
