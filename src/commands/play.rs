//! `rally play GAME` / `rally play --resume SAVE`: a whole game at the terminal. People
//! program from a numbered hand and answer each decision at a prompt; bots decide for the
//! others. Each register is shown event by event with the board after it, with a pause
//! between registers (a key press on a terminal; `--fast` skips it). The game is saved
//! after every stage, and a finished game leaves its replay beside the save. Rule files are
//! watched: changes are picked up between registers (hot reload).

use super::output::{note, stdout_colour};
use crate::cards::Card;
use crate::deal::{self, Hand};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::game::bot::Bots;
use crate::game::journal::Journal;
use crate::game::save::{self, Save};
use crate::game::{Driver, Game, Outcome, Phase, Seats, Setup, Stage};
use crate::geometry::Pos;
use crate::pictures::{render, stopped};
use crate::reload::{HotReload, Reloaded, WatchOptions};
use crate::script::RuleFolders;
use crate::script::Sources;
use crate::state::{RobotId, REGISTERS};
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::mpsc::{channel, Receiver, TryRecvError};
use std::time::{Duration, Instant};

/// Play a whole game: people at this terminal and bots (see docs/games.md)
#[derive(clap::Args)]
#[command(
    override_usage = "rally play [OPTIONS] <GAME>\n       rally play [OPTIONS] --resume <SAVE>"
)]
pub struct Args {
    /// The game file (.toml); required, except with --resume
    #[arg(required_unless_present = "resume")]
    game: Option<PathBuf>,
    /// No pauses between registers
    #[arg(long)]
    fast: bool,
    /// Continue a saved game where it stopped
    #[arg(long, value_name = "SAVE")]
    resume: Option<PathBuf>,
    /// Where to save after every register [default: saves/GAME.save.json; with --resume, SAVE]
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Start the game anew even if its save holds a game, replacing it (without it, rally play refuses)
    #[arg(long, conflicts_with = "resume")]
    new: bool,
}

impl Args {
    /// Plays a game to its end; true when it finished.
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        play(self.game.as_deref(), self, common)
    }
}

fn play(game_path: Option<&Path>, opts: &Args, common: &RuleFolders) -> Result<bool> {
    let (mut m, extra, save_path, mut journal) = match &opts.resume {
        Some(path) => {
            let save = Save::load(path)?;
            let setup = Setup::load(&save.game)?;
            if !common.extra_variants.is_empty() {
                note("note: --variant is ignored on resume; the save's variants are used");
            }
            let extra = save.extra_variants.clone();
            let rules =
                common_for(common, &extra).rules(Some(&save.game), setup.variants.clone())?;
            let save_path = opts.save.clone().unwrap_or_else(|| path.clone());
            // The save it continues is both an input and where the game goes on saving.
            crate::files::rewritable(path);
            if let Some(changed) = save.rules_changed(&rules) {
                note(changed);
            }
            let journal = Journal::new(&save_path, Some(&save));
            (Game::resume(setup, rules, save)?, extra, save_path, journal)
        }
        None => {
            let path = game_path.ok_or_else(|| {
                Error::Other("rally play needs a game file, or --resume SAVE".into())
            })?;
            let setup = Setup::load(path)?;
            let rules = common.rules(Some(path), setup.variants.clone())?;
            for warning in setup.idle_variant_warnings(&rules)? {
                note(format!("warning: {warning}"));
            }
            let save_path = opts.save.clone().unwrap_or_else(|| default_save(path));
            let extra = common.extra_variants.clone();
            let journal = Journal::new(&save_path, None);
            (Game::start(setup, rules)?, extra, save_path, journal)
        }
    };
    crate::files::check_output(&save_path)?;
    crate::files::check_output(&replay_path(&save_path))?;
    if opts.resume.is_none() && !opts.new {
        refuse_to_replace(&save_path, &m.setup.path)?;
    }
    if opts.resume.is_none() {
        // Saved before the first question, so that a game stopped there can be resumed.
        save::write_with_journal(&save_path, &m, &extra, &mut journal)?;
    }
    let sources = Sources {
        project: common.project(Some(&m.setup.path)),
        choices: m.setup.choices(&extra),
    };
    for warning in m.setup.unused_settings(&sources.choices) {
        note(format!("warning: {warning}"));
    }
    let mut hot = match HotReload::new(sources, &WatchOptions::default()) {
        Ok(hot) => Some(hot),
        Err(e) => {
            note(format!("note: hot reload is off: {e}"));
            None
        }
    };
    let interactive = std::io::stdin().is_terminal();
    let colour = stdout_colour();
    let input: Input = Rc::new(Lines::stdin());
    let mut table = Terminal {
        bots: Bots::new(m.setup.seats.iter().map(|s| s.strength)),
        drivers: m.setup.seats.iter().map(|s| s.driver).collect(),
        input: input.clone(),
        colour,
        screen: std::io::stdout().is_terminal(),
    };
    m.engine.set_chooser(Box::new(TableChooser {
        drivers: table.drivers.clone(),
        bots: m.setup.bot_policy(),
        input,
    }));
    let fast = opts.fast;
    // Names and descriptions come from files: their control characters are shown escaped.
    println!("{}", crate::text::clean(&title(&m)));
    if opts.resume.is_some() {
        println!(
            "Resumed from {} at turn {}, {}.",
            save_path.display(),
            m.engine.state().turn,
            describe_phase(m.progress.phase)
        );
    }
    // The key to the board's glyphs goes under the first board the registers show.
    let mut legend_shown = false;
    while !m.is_over() {
        if let Some(reloaded) = hot.as_mut().and_then(|h| h.at_boundary(&mut m.engine)) {
            println!("{reloaded}");
        }
        if m.progress.phase == Phase::Program {
            println!("\n══ Turn {} ══", m.engine.state().turn);
        }
        let stage = match m.advance(&mut table) {
            Ok(stage) => stage,
            Err(e) => {
                // The state at the failure: the events, the board and robots rolled back.
                if let Some(rolled) = m.engine.take_rolled_back() {
                    print!(
                        "{}",
                        stopped::failure(&m.engine, Some(&rolled), render::Clock::Turns)
                    );
                }
                if !matches!(e, Error::Script(_)) || hot.is_none() {
                    return Err(e);
                }
                // A script failed and was rolled back: wait for a fixed script, then retry.
                println!("✗ {e}");
                if let Some(snippet) = crate::snippet::of(&e, colour) {
                    println!("{snippet}");
                }
                println!("  paused: save a fixed script to go on");
                let hot = hot.as_mut().expect("checked");
                while let Some(reloaded) = hot.wait(&mut m.engine, None) {
                    println!("{reloaded}");
                    if matches!(reloaded, Reloaded::Swapped { .. }) {
                        break;
                    }
                }
                continue;
            }
        };
        if matches!(stage, Stage::Programmed { .. }) && table.hot_seat() {
            // The last person's hand leaves the screen before the registers reveal programs.
            table.clear_screen();
        }
        show(&m, &stage, colour, !legend_shown);
        legend_shown |= matches!(stage, Stage::Register { .. });
        save::write_with_journal(&save_path, &m, &extra, &mut journal)?;
        if matches!(stage, Stage::Register { .. }) && !fast && !m.is_over() {
            let prompt = format!("(Enter for {}) ", coming(m.progress.phase));
            pause(
                &prompt,
                &table.input,
                hot.as_mut(),
                &mut m.engine,
                interactive,
            )?;
        }
    }
    let replay = replay_path(&save_path);
    save::write_json(&replay, &m.replay(&extra))?;
    println!("{}", crate::text::clean(&outcome_text(&m)));
    println!("Replay written to {}.", replay.display());
    Ok(true)
}

/// A new game must not silently replace the game in its save: say how to go on instead.
fn refuse_to_replace(save_path: &Path, game: &Path) -> Result<()> {
    if !save_path.exists() {
        return Ok(());
    }
    let (save, game) = (save_path.display(), game.display());
    let (holds, keep) = match Save::load(save_path) {
        Ok(s) if s.progress.phase == Phase::Over => (
            "a finished game".to_string(),
            format!("watch it with `rally replay {save}`"),
        ),
        Ok(s) => (
            format!(
                "a game in progress (turn {}, {})",
                s.state.turn,
                describe_phase(s.progress.phase)
            ),
            format!("continue it with `rally play --resume {save}`"),
        ),
        Err(_) => (
            "a file that is not a save rally can resume".to_string(),
            "look at it first".to_string(),
        ),
    };
    Err(Error::Other(format!(
        "{save} already holds {holds}: {keep}, start anew over it with \
         `rally play {game} --new`, or save elsewhere with `rally play {game} --save FILE`"
    )))
}

fn common_for(common: &RuleFolders, extra: &[String]) -> RuleFolders {
    RuleFolders {
        extra_variants: extra.to_vec(),
        ..common.clone()
    }
}

fn default_save(game: &Path) -> PathBuf {
    let stem = game
        .file_stem()
        .map_or("game".into(), |s| s.to_string_lossy().to_string());
    PathBuf::from("saves").join(format!("{stem}.save.json"))
}

/// `saves/x.save.json` → `saves/x.replay.json`.
fn replay_path(save: &Path) -> PathBuf {
    save::beside(save, "replay.json")
}

fn title(m: &Game) -> String {
    let board = m.engine.board();
    let mut out = format!(
        "{} — {} ({}×{})",
        m.setup.path.display(),
        board.name,
        board.width,
        board.height
    );
    if !m.setup.description.is_empty() {
        out.push_str(&format!("\n{}", m.setup.description));
    }
    let people = m.setup.seats.iter().filter(|s| s.driver == Driver::Human);
    let you = match people.count() {
        1 => "you, at this terminal",
        _ => "a person at this terminal",
    };
    for seat in &m.setup.seats {
        let who = match seat.driver {
            Driver::Human => you.to_string(),
            Driver::Bot => format!("{} bot", seat.strength.name()),
        };
        out.push_str(&format!(
            "\n  {} ({who}), dock {}",
            robot_label(&seat.name),
            seat.dock
        ));
    }
    out
}

/// A robot as the board shows it: its initial.
fn robot_label(name: &str) -> String {
    format!("{name} (drawn as {})", render::initial(name))
}

fn outcome_text(m: &Game) -> String {
    m.progress
        .outcome
        .as_ref()
        .map_or("The game is not over.".into(), |o| match o {
            Outcome::Won { .. } => format!("🏁 {}", o.text()),
            _ => o.text(),
        })
}

/// What a stage did: the events, then the board (with the key to its glyphs if `legend`).
fn show(m: &Game, stage: &Stage, colour: bool, legend: bool) {
    let state = m.engine.state();
    match stage {
        Stage::Programmed { .. } => {
            for e in stage.events() {
                if e.what != "programmed" {
                    println!(
                        "  {}",
                        render::told(e, &m.engine.rules().sentences, render::Clock::Turns)
                    );
                }
            }
            return;
        }
        Stage::Register { register, .. } => println!("\n── Register {register} ──"),
        Stage::EndOfTurn { .. } => println!("\n── End of turn ──"),
    }
    let mut segment = "";
    for e in stage.events() {
        if e.segment != segment {
            segment = &e.segment;
            println!("  {segment}:");
        }
        println!(
            "    {}",
            render::told(e, &m.engine.rules().sentences, render::Clock::Turns)
        );
    }
    drop(state);
    println!("{}", draw(&m.engine, colour));
    if legend {
        println!("{}", render::legend(m.engine.rules(), &m.engine.board()));
    }
    print!("{}", render::robots(&m.engine.state()));
}

/// The board with robots, coloured on a terminal: each robot its own colour, hazards dark,
/// belts cyan, flags yellow, repair sites green, lasers red, gears magenta.
fn draw(engine: &Engine, colour: bool) -> String {
    let board = engine.board();
    let glyphs = render::glyphs(engine.rules(), &board);
    let state = engine.state();
    if !colour {
        return render::board(&board, &glyphs, &state);
    }
    use anstyle::{AnsiColor::*, Style};
    const ROBOTS: [anstyle::AnsiColor; 6] = [Red, Blue, Green, Magenta, Cyan, Yellow];
    let paint = |p: Pos, robot: Option<usize>, cell: String| {
        let style = match robot {
            Some(id) => ROBOTS[id % ROBOTS.len()].on_default().bold(),
            None => {
                let top = board
                    .tiles_at(p)
                    .iter()
                    .map(|&t| board.tiles[t].name.as_str())
                    .rfind(|n| *n != "floor" && *n != "wall");
                match top {
                    Some("pit") => Black.on(BrightBlack),
                    Some("conveyor") | Some("current") => Cyan.on_default(),
                    Some("flag") => Yellow.on_default().bold(),
                    Some("repair") => Green.on_default(),
                    Some("laser") => Red.on_default(),
                    Some("gear") => Magenta.on_default(),
                    Some(_) => White.on_default(),
                    None => Style::new().dimmed(),
                }
            }
        };
        super::output::paint(style, cell)
    };
    render::board_painted(&board, &glyphs, &state, &paint)
}

/// The pause between registers: until Enter on a terminal, a moment when the input is piped.
/// Rule files saved meanwhile are loaded at once and said so, so the next register runs
/// them (and a broken save can be fixed before going on).
fn pause(
    prompt_text: &str,
    input: &Input,
    hot: Option<&mut HotReload>,
    engine: &mut Engine,
    interactive: bool,
) -> Result<()> {
    let prompt = || {
        if interactive {
            print!("{prompt_text}");
            let _ = std::io::stdout().flush();
        }
    };
    let piped = Duration::from_millis(600);
    prompt();
    let Some(hot) = hot else {
        if interactive {
            input.line()?;
        } else {
            std::thread::sleep(piped);
        }
        return Ok(());
    };
    let until = (!interactive).then(|| Instant::now() + piped);
    loop {
        if interactive && input.try_line()?.is_some() {
            return Ok(());
        }
        // Watch the files in short slices between looks at the keyboard.
        let slice = until.map_or(Duration::from_millis(20), |t| {
            t.saturating_duration_since(Instant::now())
        });
        if slice.is_zero() {
            return Ok(());
        }
        if let Some(reloaded) = hot.wait(engine, Some(slice)) {
            println!("\n{reloaded}");
            prompt();
        }
    }
}

/// The terminal's input, read a line at a time on a thread of its own, so that a pause can
/// wait for Enter and watch the rule files at once. Shared by the seats (programs, power
/// down) and the chooser (questions during the registers).
type Input = Rc<Lines>;

struct Lines(Receiver<std::io::Result<String>>);

impl Lines {
    fn stdin() -> Lines {
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut stdin = std::io::stdin().lock();
            loop {
                let mut line = String::new();
                // The end of the input closes the channel; an error is sent, then closes it.
                let sent = match stdin.read_line(&mut line) {
                    Ok(0) => return,
                    Ok(_) => tx.send(Ok(line)),
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                if sent.is_err() {
                    return;
                }
            }
        });
        Lines(rx)
    }

    /// The next line, trimmed; waits for it.
    fn line(&self) -> Result<String> {
        self.0.recv().map_err(|_| input_ended()).and_then(trimmed)
    }

    /// The next line, trimmed, if one has come.
    fn try_line(&self) -> Result<Option<String>> {
        match self.0.try_recv() {
            Ok(line) => trimmed(line).map(Some),
            Err(TryRecvError::Empty) => Ok(None),
            Err(TryRecvError::Disconnected) => Err(input_ended()),
        }
    }
}

fn trimmed(line: std::io::Result<String>) -> Result<String> {
    line.map(|l| l.trim().to_string())
        .map_err(|e| Error::Other(format!("reading the terminal: {e}")))
}

fn input_ended() -> Error {
    Error::Other("the input ended before the game did (resume later with --resume)".into())
}

/// The seats of a game at the terminal: prompts for people, bots for the others.
struct Terminal {
    bots: Bots,
    drivers: Vec<Driver>,
    input: Input,
    colour: bool,
    /// Standard output is a terminal, whose screen can be cleared.
    screen: bool,
}

/// Answers every question of the game (the scripts' `ctx:choose`, and the turn loop's power
/// down and re-entry, `game::questions`): people are asked at the terminal (Enter takes the
/// default, the first choice; a unique beginning such as `y` will do), bots use their policy,
/// and so does everyone while a bot only rehearses programs.
struct TableChooser {
    drivers: Vec<Driver>,
    bots: crate::decision::BotPolicy,
    input: Input,
}

impl crate::decision::Chooser for TableChooser {
    fn choose(&mut self, q: &crate::decision::Question) -> Option<String> {
        if q.rehearsal || self.drivers[q.robot] != Driver::Human {
            return self.bots.choose(q);
        }
        // The question is a script's text: its control characters are shown, not sent.
        let text = crate::text::clean_line(if q.text.is_empty() { &q.key } else { &q.text });
        loop {
            print!(
                "{}: {text} [{}] (Enter: {}) ",
                crate::text::clean_line(&q.robot_name),
                crate::text::clean_line(&q.choices.join("/")),
                crate::text::clean_line(q.default_answer())
            );
            let _ = std::io::stdout().flush();
            // A closed input takes the default here; the seats report it at their next prompt.
            let answer = self.input.line().ok()?;
            if !std::io::stdin().is_terminal() {
                println!("{answer}");
            }
            if answer.is_empty() {
                return None;
            }
            if let Some(c) = answer_to(q, &answer) {
                return Some(c);
            }
            println!(
                "  answer one of {}",
                crate::text::clean_line(&q.choices.join(", "))
            );
        }
    }
}

/// The choice `answer` names: the choice itself in any case, or the one choice it begins.
fn answer_to(q: &crate::decision::Question, answer: &str) -> Option<String> {
    let lower = answer.to_lowercase();
    if let Some(c) = q.choices.iter().find(|c| c.to_lowercase() == lower) {
        return Some(c.clone());
    }
    match q
        .choices
        .iter()
        .filter(|c| c.to_lowercase().starts_with(&lower))
        .collect::<Vec<_>>()
        .as_slice()
    {
        [one] => Some((*one).clone()),
        _ => None,
    }
}

impl Terminal {
    fn line(&mut self) -> Result<String> {
        self.input.line()
    }

    /// Asks a question on one line (a robot's name in it shows its control characters).
    fn ask(&mut self, prompt: &str) -> Result<String> {
        print!("{} ", crate::text::clean(prompt));
        let _ = std::io::stdout().flush();
        let answer = self.line()?;
        if !std::io::stdin().is_terminal() {
            println!("{answer}");
        }
        Ok(answer)
    }

    fn human(&self, robot: RobotId) -> bool {
        self.drivers[robot] == Driver::Human
    }

    /// Several people share this terminal.
    fn hot_seat(&self) -> bool {
        self.drivers.iter().filter(|d| **d == Driver::Human).count() > 1
    }

    /// Clears the screen and the scrollback, on a terminal only (a pipe keeps everything).
    fn clear_screen(&self) {
        if self.screen {
            print!("\x1b[H\x1b[2J\x1b[3J");
            let _ = std::io::stdout().flush();
        }
    }
}

/// Parses "3 1 4" (or "3,1,4") as hand positions and checks them as a program.
fn parse_choice(text: &str, hand: &Hand) -> std::result::Result<Vec<Card>, String> {
    let mut cards = Vec::new();
    for word in text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
    {
        let n: usize = word
            .parse()
            .map_err(|_| format!("`{word}` is not a card number"))?;
        let card = hand.cards.get(n.wrapping_sub(1)).ok_or_else(|| {
            format!(
                "there is no card {n}: the hand has 1 to {}",
                hand.cards.len()
            )
        })?;
        cards.push(*card);
    }
    deal::check_program(hand, &cards)?;
    Ok(cards)
}

impl Seats for Terminal {
    fn program(&mut self, engine: &mut Engine, hand: &Hand) -> Result<Vec<Card>> {
        if !self.human(hand.robot) {
            return self.bots.program(engine, hand);
        }
        if self.hot_seat() {
            // Each person's hand and program are for their eyes only (programs are secret
            // until everybody has chosen): hand the terminal over on a clean screen.
            let name = engine.state().robots[hand.robot].name.clone();
            self.ask(&format!(
                "\n── Programming {name}: pass the terminal to {name}'s player, then press Enter ──"
            ))?;
            self.clear_screen();
        }
        let (header, registers) = {
            let state = engine.state();
            let r = &state.robots[hand.robot];
            let board = engine.board();
            let total = board.flags().len();
            let next = board
                .flags()
                .iter()
                .find(|(n, _)| Some(*n) == r.flags.checked_add(1))
                .map_or(String::new(), |(n, at)| format!(", next flag F{n} at {at}"));
            let header = format!(
                "\n{}: at {} facing {}, damage {}, lives {}, flags {}/{total}{next}",
                r.name, r.at, r.facing, r.damage, r.lives, r.flags
            );
            let registers: Vec<String> = (0..REGISTERS)
                .map(|i| match r.program.get(i).copied().flatten() {
                    Some(c) if deal::is_locked(r, i) => format!("{}:🔒{c}", i + 1),
                    _ if hand.open.contains(&i) => format!("{}:?", i + 1),
                    _ => format!("{}:-", i + 1),
                })
                .collect();
            (header, registers)
        };
        println!("{}", draw(engine, self.colour));
        println!("{}", render::legend(engine.rules(), &engine.board()));
        println!("{}", crate::text::clean(&header));
        println!("Registers  {}", registers.join("  "));
        let numbered: Vec<String> = hand
            .cards
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{}) {c}", i + 1))
            .collect();
        println!("Hand       {}", numbered.join("   "));
        let needed = hand.open.len().min(hand.cards.len());
        if needed == 0 {
            println!("No cards to play: the locked registers run as they are.");
            return Ok(Vec::new());
        }
        let slots: Vec<String> = hand
            .open
            .iter()
            .take(needed)
            .map(|i| (i + 1).to_string())
            .collect();
        loop {
            let answer = self.ask(&format!(
                "Cards for registers {} ({needed} numbers, in order, e.g. `{}`):",
                slots.join(" "),
                (1..=needed)
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            ))?;
            match parse_choice(&answer, hand) {
                Ok(cards) => return Ok(cards),
                Err(m) => println!("  {m}; try again"),
            }
        }
    }
}

/// What the stage `phase` is, for "(Enter for ...)".
fn coming(phase: Phase) -> &'static str {
    match phase {
        Phase::Program => "the next turn",
        Phase::Register(_) => "the next register",
        Phase::EndOfTurn => "the end of the turn",
        Phase::Over => "the end",
    }
}

/// The phase a save resumes at, for messages.
fn describe_phase(phase: Phase) -> String {
    match phase {
        Phase::Program => "the deal".into(),
        Phase::Register(r) => format!("register {r}"),
        Phase::EndOfTurn => "the end of the turn".into(),
        Phase::Over => "the end".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pause_after_the_last_register_announces_the_end_of_the_turn() {
        assert_eq!(coming(Phase::Register(2)), "the next register");
        assert_eq!(coming(Phase::EndOfTurn), "the end of the turn");
    }

    #[test]
    fn an_answer_is_a_choice_in_any_case_or_its_unique_beginning() {
        let q = crate::decision::Question {
            robot: 0,
            robot_name: "A".into(),
            key: "reenter_facing".into(),
            choices: vec!["N".into(), "E".into(), "stay".into(), "stop".into()],
            text: String::new(),
            detail: Default::default(),
            rehearsal: false,
            turn: 1,
        };
        assert_eq!(answer_to(&q, "e").as_deref(), Some("E"));
        assert_eq!(answer_to(&q, "STAY").as_deref(), Some("stay"));
        assert_eq!(answer_to(&q, "sto").as_deref(), Some("stop"));
        assert_eq!(answer_to(&q, "st"), None, "two choices begin so");
        assert_eq!(answer_to(&q, "x"), None);
    }
}
