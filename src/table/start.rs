//! The start page's side of `rally serve`: what the host may open (the game files of a
//! folder, the variants the rules offer) and opening a table from what they picked — a game,
//! variants on top of the game's own, which seats wait for a person, the classic timer.
//!
//! The start page needs the server's own host token (printed with its link); everything it
//! sends is checked here, so a request names only a game file of the list, known variants and
//! one choice per seat, and is refused with a sentence otherwise.

use super::protocol::Settings;
use super::{Launch, Tokens};
use crate::game::{Driver, Setup};
use crate::script::RuleFolders;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The most tables one server hosts: each is a thread with its own rules.
pub const MAX_TABLES: usize = 64;

/// What the start page may open, and how.
#[derive(Clone)]
pub struct Offer {
    /// The folder whose game files (`*.toml`) the page lists.
    pub games: PathBuf,
    /// Where new tables are saved: SAVES/TABLE.save.json.
    pub saves: PathBuf,
    pub common: RuleFolders,
    /// The settings new tables start with (the host page changes them).
    pub settings: Settings,
    /// Watch the rule files (hot reload).
    pub reload: bool,
    /// The secret in the start page's link.
    pub token: String,
}

/// What the start page shows the host.
#[derive(Serialize)]
pub struct Catalogue {
    /// The folder the games come from, as the page names it.
    pub folder: String,
    pub games: Vec<GameOffer>,
    pub variants: Vec<VariantOffer>,
    pub settings: Settings,
}

/// A game file of the folder: what it is, or why it cannot be played.
#[derive(Serialize)]
pub struct GameOffer {
    /// Its file name: what a request names.
    pub file: String,
    pub description: String,
    pub seats: Vec<SeatOffer>,
    /// The variants the game file switches on (always on at its table).
    pub variants: Vec<String>,
    /// Why it does not load (`file:line:column: message`).
    pub error: Option<String>,
}

#[derive(Serialize)]
pub struct SeatOffer {
    pub name: String,
    /// "person" or "bot", as the game file says.
    pub driver: &'static str,
}

#[derive(Serialize)]
pub struct VariantOffer {
    pub name: String,
    pub description: String,
    pub conflicts: Vec<String>,
}

/// What the host picked on the start page.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// A game file of the list, by its file name.
    pub game: String,
    /// Variants on top of the game file's own.
    #[serde(default)]
    pub variants: Vec<String>,
    /// For each seat: whether the table waits for a person to take it (else a bot plays it
    /// until someone does).
    pub people: Vec<bool>,
    /// The classic timer in seconds (0: off); absent: the server's setting.
    pub timer: Option<u64>,
}

impl Offer {
    /// The game files of the folder, sorted, and the variants there are.
    pub fn catalogue(&self) -> Catalogue {
        let games = self
            .game_files()
            .into_iter()
            .map(|path| {
                let file = file_name(&path);
                match Setup::load(&path) {
                    Ok(setup) => GameOffer {
                        file,
                        description: setup.description.clone(),
                        seats: setup
                            .seats
                            .iter()
                            .map(|s| SeatOffer {
                                name: s.name.clone(),
                                driver: match s.driver {
                                    Driver::Human => "person",
                                    Driver::Bot => "bot",
                                },
                            })
                            .collect(),
                        variants: setup.variants.iter().map(|c| c.name.clone()).collect(),
                        error: None,
                    },
                    Err(e) => GameOffer {
                        file,
                        description: String::new(),
                        seats: Vec::new(),
                        variants: Vec::new(),
                        error: Some(e.to_string()),
                    },
                }
            })
            .collect();
        let variants = self
            .common
            .variants(Some(&self.games.join("game.toml")))
            .map(|(_, variants)| variants)
            .unwrap_or_default()
            .into_iter()
            .map(|(_, v)| VariantOffer {
                name: v.name,
                description: v.description,
                conflicts: v.conflicts,
            })
            .collect();
        Catalogue {
            folder: crate::files::describe_folder(&self.games),
            games,
            variants,
            settings: self.settings,
        }
    }

    fn game_files(&self) -> Vec<PathBuf> {
        crate::files::list(&self.games)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "toml") && crate::files::is_file(p))
            .collect()
    }

    /// The table `request` asks for, as table `id`; or why not. The variants themselves are
    /// checked when the table loads its rules (unknown ones, conflicts).
    pub fn launch(&self, request: Request, id: String) -> Result<Launch, String> {
        let game = self
            .game_files()
            .into_iter()
            .find(|p| file_name(p) == request.game)
            .ok_or_else(|| {
                format!(
                    "there is no game file `{}` in {}",
                    request.game,
                    crate::files::describe_folder(&self.games)
                )
            })?;
        let setup = Setup::load(&game).map_err(|e| e.to_string())?;
        if request.people.len() != setup.seats.len() {
            return Err(format!(
                "{} has {} seats, but the request chooses for {}",
                request.game,
                setup.seats.len(),
                request.people.len()
            ));
        }
        let mut settings = self.settings;
        if let Some(timer) = request.timer {
            if timer > super::protocol::MAX_SECONDS {
                return Err(format!(
                    "timer: at most {} seconds",
                    super::protocol::MAX_SECONDS
                ));
            }
            settings.timer = timer;
        }
        let mut extra = self.common.extra_variants.clone();
        for name in request.variants {
            if !extra.contains(&name) {
                extra.push(name);
            }
        }
        let save = self.saves.join(format!("{id}.save.json"));
        if let Some(why) = super::unfinished_save(&save) {
            return Err(why);
        }
        Ok(Launch {
            save,
            id,
            game,
            resume: None,
            common: self.common.clone(),
            extra,
            tokens: Tokens::new(setup.seats.len()).map_err(|e| e.to_string())?,
            settings,
            reload: self.reload,
            people: Some(request.people),
        })
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}
