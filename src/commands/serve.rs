//! `rally serve [GAME...]` / `rally serve --resume SAVE`: the playtest table. Each game
//! file (or save) becomes a table on its own thread; the command prints one link per seat, a
//! spectators' link and a host link for each, and the start page's link (the host opens more
//! tables there: a game file, its variants and seats), and serves them until Ctrl-C. Games
//! are saved after every register beside their tokens, so `--resume` brings a table back
//! with the same links.

use crate::error::Result;
use crate::script::RuleFolders;
use std::path::PathBuf;
#[cfg(feature = "serve")]
use {
    crate::error::Error,
    crate::table::protocol::Settings,
    crate::table::server::Server,
    crate::table::start::Offer,
    crate::table::{self, Launch, Lobby, Tokens},
    std::sync::Arc,
};

/// Serve a playtest table in the browser: a link per seat, bots in empty seats, hot reload for everyone
///
/// Prints one link per seat, a spectators' link and a host link for each game, and serves
/// them until Ctrl-C. Each player opens their seat's link; the game starts when every
/// person's seat is taken (or the host presses Start: bots play the empty seats).
/// Without a game file, open the printed start page: pick a game file of --games-dir DIR,
/// variants and which seats wait for a person, and it opens the table and shows its links.
/// Games are saved from the start and after every register to SAVES/TABLE.save.json, with
/// the links' tokens beside it; `--resume` brings a table back as the people left it (the
/// cards placed, Ready, the seats, the host's settings) and the same links work again. A
/// game file whose save holds an unfinished game is refused: `--resume` it, or `--new`.
///
/// By default only this computer can connect (127.0.0.1): `--host 0.0.0.0` lets others
/// on your network in, and the links name this computer's network addresses. Behind a
/// reverse proxy (HTTPS for playtesters elsewhere: deploy/, docs/deploy.md), `--base-url`
/// is the public URL the links start with, a path prefix included; the pages and their
/// WebSockets follow the address they were opened at.
///
/// Examples:
///   rally serve                                  # the start page: pick a game in the browser
///   rally serve games/practice.toml
///   rally serve games/practice.toml games/practice.toml --host 0.0.0.0 --port 8000
///   rally serve --resume saves/practice.save.json
///   rally serve games/practice.toml --host 0.0.0.0 --base-url https://HOST/rally
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Game files (.toml); each becomes a table (none: pick one on the start page)
    games: Vec<PathBuf>,
    /// The folder of game files the start page offers
    #[arg(long, value_name = "DIR", default_value = "games")]
    games_dir: PathBuf,
    /// The address to listen on; 0.0.0.0 lets others on your network (LAN) in
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The URL the printed links start with, behind a reverse proxy (https://HOST/PREFIX)
    #[arg(long, value_name = "URL", value_parser = base_url)]
    base_url: Option<String>,
    /// Bring back a table from its save (repeatable); its links stay the same
    #[arg(long, value_name = "SAVE")]
    resume: Vec<PathBuf>,
    /// Folder for the saves, tokens and replays of new tables
    #[arg(long, value_name = "DIR", default_value = "saves")]
    saves: PathBuf,
    /// The classic timer: seconds the last player has once all others are ready (0: off)
    #[arg(long, value_name = "SECS", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=86_400))]
    timer: u64,
    /// Seconds an absent player's seat waits before a bot decides for it (0: it waits)
    #[arg(long, value_name = "SECS", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=86_400))]
    bot_after: u64,
    /// Seconds a player has to answer a question before its default is taken
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    choice_timeout: u64,
    /// Do not watch the rule files (no hot reload)
    #[arg(long)]
    no_reload: bool,
    /// Start a game file's table over an unfinished game saved in its place (without it,
    /// such a save is refused: `--resume` brings it back)
    #[arg(long)]
    new: bool,
}

/// `--base-url`, checked where the table is built in (`table::links::base_url`).
fn base_url(text: &str) -> std::result::Result<String, String> {
    #[cfg(feature = "serve")]
    return table::links::base_url(text);
    #[cfg(not(feature = "serve"))]
    Ok(text.to_string())
}

impl Args {
    /// Opens a table per game and per save, prints the links and serves until Ctrl-C.
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        #[cfg(feature = "serve")]
        return serve(&self.games, self, common);
        #[cfg(not(feature = "serve"))]
        {
            let _ = common;
            Err(super::not_in_this_build(
                "serve",
                "serve the playtest table",
            ))
        }
    }

    /// The tables' timers.
    #[cfg(feature = "serve")]
    fn settings(&self) -> Settings {
        Settings {
            bot_after: self.bot_after,
            choice_timeout: self.choice_timeout,
            timer: self.timer,
        }
    }
}

#[cfg(feature = "serve")]
fn serve(games: &[PathBuf], opts: &Args, common: &RuleFolders) -> Result<bool> {
    let offer = Offer {
        games: opts.games_dir.clone(),
        saves: opts.saves.clone(),
        common: common.clone(),
        settings: opts.settings(),
        reload: !opts.no_reload,
        token: table::token()?,
    };
    let start_token = offer.token.clone();
    let lobby = Arc::new(Lobby::with_offer(offer));
    let launches = launches(&lobby, games, opts, common)?;
    let server = Server::start(lobby.clone(), &opts.host, opts.port)?;
    let bases = table::links::bases(server.addr, opts.base_url.as_deref());
    let base = bases[0].clone();
    println!(
        "rally serve on {}: {} table(s). Ctrl-C stops; every game is saved after each register.",
        server.base_url(),
        launches.len()
    );
    if let [_, others @ ..] = &bases[..] {
        if !others.is_empty() {
            println!(
                "The links below use {base}; this computer is also at {}.",
                others.join(", ")
            );
        }
    }
    if server.addr.ip().is_loopback() && opts.base_url.is_none() {
        println!(
            "Only this computer can connect: `--host 0.0.0.0` lets others on your network in."
        );
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
    let start = format!("{base}/#{start_token}");
    if lobby.list().is_empty() {
        println!(
            "\nNo table yet: open the start page to pick a game file of `{}`, its variants and seats:\n  {start}",
            crate::files::describe_folder(&opts.games_dir)
        );
    } else {
        println!("\nThe start page opens more tables (keep its link to yourself):\n  {start}");
    }
    wait_for_ctrl_c();
    println!("\nStopping: the games are saved; `rally serve --resume SAVE` brings a table back.");
    drop(server);
    Ok(true)
}

#[cfg(feature = "serve")]
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
#[cfg(feature = "serve")]
fn launches(
    lobby: &Lobby,
    games: &[PathBuf],
    opts: &Args,
    common: &RuleFolders,
) -> Result<Vec<Launch>> {
    let reserve = |name: String| {
        lobby.reserve(&name).ok_or_else(|| {
            Error::Other(format!(
                "at most {} tables on one server",
                table::start::MAX_TABLES
            ))
        })
    };
    let mut out = Vec::new();
    for path in &opts.resume {
        let (save, tokens) = table::thread::resume(path)?;
        let id = reserve(table::table_name(path))?;
        let tokens = match tokens {
            Some(t) => t,
            None => Tokens::new(save.state.robots.len())?,
        };
        out.push(Launch {
            id,
            game: save.game.clone(),
            extra: save.extra_variants.clone(),
            resume: Some(save),
            common: common.clone(),
            save: path.clone(),
            tokens,
            settings: opts.settings(),
            reload: !opts.no_reload,
            people: None,
        });
    }
    for game in games {
        let id = reserve(table::table_name(game))?;
        let setup = crate::game::Setup::load(game)?;
        let save = opts.saves.join(format!("{id}.save.json"));
        if let Some(why) = table::unfinished_save(&save).filter(|_| !opts.new) {
            return Err(Error::Other(why));
        }
        out.push(Launch {
            save,
            id,
            game: game.clone(),
            resume: None,
            extra: common.extra_variants.clone(),
            common: common.clone(),
            tokens: Tokens::new(setup.seats.len())?,
            settings: opts.settings(),
            reload: !opts.no_reload,
            people: None,
        });
    }
    Ok(out)
}
