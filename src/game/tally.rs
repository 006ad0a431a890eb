//! What many games add up to, and what a designer reads off it.
//!
//! A [`Tally`] keeps only integers: counts, and per game-level number its sum and sum of
//! squares (turns, deaths, damage, each cause on its own), plus a histogram of the turns to
//! win. Integer sums add up exactly in any order, so the tallies of any split of the games
//! (threads, or shards run on other machines and merged) are the same numbers, and the
//! summary printed from them is the same to the byte.
//!
//! The summary ([`rows`]) gives every rate with a 95% Wilson score interval and every mean
//! with a 95% normal interval (from the sums of squares), and, for two columns, the
//! difference between them with its interval (Newcombe's hybrid score interval for rates,
//! Welch's for means): a difference whose interval excludes zero is marked `*`.

use super::Outcome;
use crate::geometry::Pos;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The normal quantile for a two-sided 95% interval.
const Z: f64 = 1.959_963_984_540_054;

/// Sum and sum of squares of one number per game (how many games: the tally's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Moments {
    pub sum: u64,
    pub squares: u64,
}

impl Moments {
    fn add(&mut self, x: u64) {
        self.sum += x;
        self.squares += x * x;
    }

    fn merge(&mut self, other: &Moments) -> Option<()> {
        self.sum = self.sum.checked_add(other.sum)?;
        self.squares = self.squares.checked_add(other.squares)?;
        Some(())
    }
}

/// What one game came to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameResult {
    pub outcome: Option<Outcome>,
    pub turns: u32,
    /// Destructions by cause (`pit`, `laser`, `off the board`, ...).
    pub deaths: BTreeMap<String, u64>,
    /// Damage points by cause (the element or rule that dealt them).
    pub damage: BTreeMap<String, u64>,
    /// The events scripts logged (`ctx:log`), by name, then by robot (`""`: no robot).
    pub events: BTreeMap<String, BTreeMap<String, u64>>,
    /// What happened where, by map ([`MAPS`]): square to count.
    pub squares: BTreeMap<&'static str, BTreeMap<Pos, u64>>,
    /// Each flag a robot touched in order: its number and the turns it took from the
    /// robot's previous flag (or the start).
    pub flags: Vec<(u32, u32)>,
}

/// The heatmaps a study keeps, by name: where robots were destroyed, where they took damage
/// (points), the squares they entered, and where they ended their turns.
pub const MAPS: [&str; 4] = ["deaths", "damage", "visits", "ends"];

/// How often robots reached a flag, and the turns it took them from their previous one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reached {
    pub times: u64,
    pub turns: Moments,
}

/// A square as a tally file's key: `"x,y"`.
pub fn square_key(p: Pos) -> String {
    format!("{},{}", p.x, p.y)
}

/// A tally file's square key read back.
pub fn square_of(key: &str) -> Option<Pos> {
    let (x, y) = key.split_once(',')?;
    Some(Pos::new(x.parse().ok()?, y.parse().ok()?))
}

/// Many games added up: counts and sums only, so tallies merge exactly.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tally {
    pub games: u64,
    /// Games a robot won.
    pub won: u64,
    /// Games undecided at the turn limit.
    pub turn_limit: u64,
    /// Games where every robot ran out of lives.
    pub none_left: u64,
    /// Turns played, over every game.
    pub turns: Moments,
    /// How many games were won on each turn.
    pub win_turns: BTreeMap<u32, u64>,
    /// Games won by each robot.
    pub wins: BTreeMap<String, u64>,
    /// Destructions per game, all causes together.
    pub deaths: Moments,
    pub deaths_by: BTreeMap<String, Moments>,
    /// Damage points per game, all causes together.
    pub damage: Moments,
    pub damage_by: BTreeMap<String, Moments>,
    /// Script events per game, by name, in all and (`events_by`) by robot.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub events: BTreeMap<String, Moments>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub events_by: BTreeMap<String, BTreeMap<String, Moments>>,
    /// Heatmaps ([`MAPS`]): square (`"x,y"`) to count, over every game.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub squares: BTreeMap<String, BTreeMap<String, u64>>,
    /// Per flag number: how often a robot reached it and the turns it took.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub flags: BTreeMap<u32, Reached>,
    /// How many games lasted each number of turns.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub game_turns: BTreeMap<u32, u64>,
    /// In a column after the first: per row (its key, as [`figures`] names it), the sum over
    /// games of the squared difference between this column's figure and the first column's
    /// on the same seed. With the two columns' sums it gives the paired difference's
    /// interval. `None` in the first column (and in files of an older rally).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<BTreeMap<String, u64>>,
}

/// One game's figures by row key, those that are not zero: the per-game numbers behind the
/// rates (0 or 1) and the means per game of [`rows`], which a paired difference compares
/// seed by seed.
pub type Figures = BTreeMap<String, u64>;

/// The figures of one game ([`Figures`]); their sums over games are the tally's (a test
/// holds them to it).
pub fn figures(r: &GameResult) -> Figures {
    let mut out = Figures::new();
    let mut put = |key: String, n: u64| {
        if n > 0 {
            *out.entry(key).or_default() += n;
        }
    };
    match &r.outcome {
        Some(Outcome::Won { robot, .. }) => {
            put("finish_rate".into(), 1);
            put(format!("wins.{robot}"), 1);
        }
        Some(Outcome::TurnLimit { .. }) => put("turn_limit_rate".into(), 1),
        Some(Outcome::NoneLeft { .. }) | None => put("none_left_rate".into(), 1),
    }
    put("turns".into(), r.turns as u64);
    for (key, by) in [("deaths", &r.deaths), ("damage", &r.damage)] {
        put(key.into(), by.values().sum());
        for (cause, &n) in by {
            put(format!("{key}.{cause}"), n);
        }
    }
    for (event, by) in &r.events {
        put(format!("events.{event}"), by.values().sum());
        for (robot, &n) in by {
            put(format!("events_by.{event}.{robot}"), n);
        }
    }
    out
}

impl Tally {
    pub fn add(&mut self, r: &GameResult) {
        self.games += 1;
        self.turns.add(r.turns as u64);
        *self.game_turns.entry(r.turns).or_default() += 1;
        match &r.outcome {
            Some(Outcome::Won { robot, turn }) => {
                self.won += 1;
                *self.win_turns.entry(*turn).or_default() += 1;
                *self.wins.entry(robot.clone()).or_default() += 1;
            }
            Some(Outcome::TurnLimit { .. }) => self.turn_limit += 1,
            Some(Outcome::NoneLeft { .. }) | None => self.none_left += 1,
        }
        self.deaths.add(r.deaths.values().sum());
        for (cause, &n) in &r.deaths {
            self.deaths_by.entry(cause.clone()).or_default().add(n);
        }
        self.damage.add(r.damage.values().sum());
        for (cause, &n) in &r.damage {
            self.damage_by.entry(cause.clone()).or_default().add(n);
        }
        for (event, by) in &r.events {
            self.events
                .entry(event.clone())
                .or_default()
                .add(by.values().sum());
            let mine = self.events_by.entry(event.clone()).or_default();
            for (robot, &n) in by {
                mine.entry(robot.clone()).or_default().add(n);
            }
        }
        for (map, counts) in &r.squares {
            let mine = self.squares.entry(map.to_string()).or_default();
            for (&at, &n) in counts {
                *mine.entry(square_key(at)).or_default() += n;
            }
        }
        for &(flag, turns) in &r.flags {
            let mine = self.flags.entry(flag).or_default();
            mine.times += 1;
            mine.turns.add(turns as u64);
        }
    }

    /// Adds the squared differences of a game's figures (`this`, played in this column)
    /// from the first column's on the same seed (`first`) to [`Tally::paired`].
    pub fn pair(&mut self, this: &Figures, first: &Figures) {
        let paired = self.paired.get_or_insert_with(BTreeMap::new);
        for key in this
            .keys()
            .chain(first.keys().filter(|k| !this.contains_key(*k)))
        {
            let (a, b) = (
                first.get(key).copied().unwrap_or(0),
                this.get(key).copied().unwrap_or(0),
            );
            *paired.entry(key.clone()).or_default() += a.abs_diff(b).pow(2);
        }
    }

    /// Adds another tally's games to this one; `Err` when a sum would overflow (only a
    /// forged file can get there).
    pub fn merge(&mut self, other: &Tally) -> Result<(), String> {
        let overflow = || "the numbers are too large to add up".to_string();
        let add = |a: &mut u64, b: u64| -> Result<(), String> {
            *a = a.checked_add(b).ok_or_else(overflow)?;
            Ok(())
        };
        // An empty tally (where a merge starts) takes the other's pairing.
        if self.games == 0 && self.paired.is_none() {
            self.paired = other.paired.as_ref().map(|_| BTreeMap::new());
        }
        add(&mut self.games, other.games)?;
        add(&mut self.won, other.won)?;
        add(&mut self.turn_limit, other.turn_limit)?;
        add(&mut self.none_left, other.none_left)?;
        self.turns.merge(&other.turns).ok_or_else(overflow)?;
        for (turn, &n) in &other.win_turns {
            add(self.win_turns.entry(*turn).or_default(), n)?;
        }
        for (turn, &n) in &other.game_turns {
            add(self.game_turns.entry(*turn).or_default(), n)?;
        }
        for (robot, &n) in &other.wins {
            add(self.wins.entry(robot.clone()).or_default(), n)?;
        }
        self.deaths.merge(&other.deaths).ok_or_else(overflow)?;
        self.damage.merge(&other.damage).ok_or_else(overflow)?;
        for (cause, m) in &other.deaths_by {
            let mine = self.deaths_by.entry(cause.clone()).or_default();
            mine.merge(m).ok_or_else(overflow)?;
        }
        for (cause, m) in &other.damage_by {
            let mine = self.damage_by.entry(cause.clone()).or_default();
            mine.merge(m).ok_or_else(overflow)?;
        }
        for (event, m) in &other.events {
            let mine = self.events.entry(event.clone()).or_default();
            mine.merge(m).ok_or_else(overflow)?;
        }
        for (event, by) in &other.events_by {
            let mine = self.events_by.entry(event.clone()).or_default();
            for (robot, m) in by {
                mine.entry(robot.clone())
                    .or_default()
                    .merge(m)
                    .ok_or_else(overflow)?;
            }
        }
        for (map, counts) in &other.squares {
            let mine = self.squares.entry(map.clone()).or_default();
            for (at, &n) in counts {
                add(mine.entry(at.clone()).or_default(), n)?;
            }
        }
        for (flag, r) in &other.flags {
            let mine = self.flags.entry(*flag).or_default();
            add(&mut mine.times, r.times)?;
            mine.turns.merge(&r.turns).ok_or_else(overflow)?;
        }
        match (&mut self.paired, &other.paired) {
            (Some(mine), Some(theirs)) => {
                for (key, &n) in theirs {
                    add(mine.entry(key.clone()).or_default(), n)?;
                }
            }
            (_, None) if other.games == 0 => {}
            (None, None) => {}
            _ => {
                return Err(
                    "one part pairs its games with the first column's, the other does not".into(),
                )
            }
        }
        Ok(())
    }

    /// Whether the counts agree with each other (a tally read from a file is checked).
    pub fn check(&self) -> Result<(), String> {
        fn sum<'a>(values: impl IntoIterator<Item = &'a u64>) -> Option<u64> {
            values.into_iter().try_fold(0u64, |a, &b| a.checked_add(b))
        }
        if sum(&[self.won, self.turn_limit, self.none_left]) != Some(self.games) {
            return Err(format!(
                "{} games, but {} won + {} undecided + {} with every robot out make another number",
                self.games, self.won, self.turn_limit, self.none_left
            ));
        }
        if sum(self.win_turns.values()) != Some(self.won)
            || sum(self.wins.values()) != Some(self.won)
        {
            return Err(format!(
                "{} games won, but the wins per turn or per robot add up to another number",
                self.won
            ));
        }
        for (map, counts) in &self.squares {
            if !MAPS.contains(&map.as_str()) {
                return Err(format!(
                    "no heatmap `{map}` (there are {})",
                    MAPS.join(", ")
                ));
            }
            if let Some(bad) = counts.keys().find(|k| square_of(k).is_none()) {
                return Err(format!(
                    "heatmap `{map}`: `{bad}` is not a square (\"x,y\")"
                ));
            }
        }
        Ok(())
    }

    /// Turns to win: their sum and sum of squares, from the histogram.
    fn win_moments(&self) -> Moments {
        let mut m = Moments::default();
        for (&turn, &n) in &self.win_turns {
            // Saturating: only a forged file comes near the limit.
            m.sum = m.sum.saturating_add((turn as u64).saturating_mul(n));
            m.squares = m
                .squares
                .saturating_add((turn as u64).pow(2).saturating_mul(n));
        }
        m
    }

    /// The `q` quantile (0..=1) of the turns to win: the value at index round((won-1)·q)
    /// of the sorted list.
    fn win_quantile(&self, q: f64) -> Option<u32> {
        if self.won == 0 {
            return None;
        }
        let index = ((self.won - 1) as f64 * q).round() as u64;
        let mut seen = 0;
        for (&turn, &n) in &self.win_turns {
            seen += n;
            if seen > index {
                return Some(turn);
            }
        }
        None
    }
}

/// A number with its 95% interval (`None` when there is too little data for one).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Estimate {
    pub value: f64,
    pub low: Option<f64>,
    pub high: Option<f64>,
}

/// The proportion k/n with its Wilson score interval.
fn rate(k: u64, n: u64) -> Option<Estimate> {
    if n == 0 {
        return None;
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let denominator = 1.0 + Z * Z / n;
    let centre = (p + Z * Z / (2.0 * n)) / denominator;
    let half = Z / denominator * (p * (1.0 - p) / n + Z * Z / (4.0 * n * n)).sqrt();
    Some(Estimate {
        value: p,
        low: Some((centre - half).max(0.0)),
        high: Some((centre + half).min(1.0)),
    })
}

/// The mean of n numbers with sum and sum of squares `m`, and the standard error.
fn mean_and_error(m: Moments, n: u64) -> Option<(f64, Option<f64>)> {
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let mean = m.sum as f64 / nf;
    if n < 2 {
        return Some((mean, None));
    }
    // The sample variance from the sums; exact integers as far as f64 carries them.
    let variance = ((m.squares as f64 - m.sum as f64 * mean) / (nf - 1.0)).max(0.0);
    Some((mean, Some((variance / nf).sqrt())))
}

fn mean(m: Moments, n: u64) -> Option<Estimate> {
    let (value, error) = mean_and_error(m, n)?;
    Some(Estimate {
        value,
        low: error.map(|e| value - Z * e),
        high: error.map(|e| value + Z * e),
    })
}

/// What a row holds, which decides how it is printed and whether columns can be compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A plain count.
    Count,
    /// A proportion of games (0..=1; printed as a percentage).
    Rate,
    /// A mean per game, printed with this many decimals.
    Mean(u8),
    /// A quantile of the turns to win (no interval).
    Quantile,
    /// The p-value of a test (no interval): the chance of a spread at least this large if
    /// there were no difference.
    PValue,
}

/// One line of the summary: a value per column and, for two columns, their difference.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// A stable name for programs: `finish_rate`, `wins.Ada`, `deaths.pit`.
    pub key: String,
    /// What people read.
    pub label: String,
    pub kind: Kind,
    pub columns: Vec<Option<Estimate>>,
    /// The second column minus the first, when there are exactly two.
    pub difference: Option<Estimate>,
    /// Each column after the first minus the first (the same seeds in every column).
    #[serde(default)]
    pub differences: Vec<Option<Estimate>>,
}

/// The summary of the tallies, one column each; `docks` gives each robot's starting dock
/// (for the seat rows), `phrases` what a script event's row says besides its name
/// (`slid per game: a robot slides … on the oil`).
pub fn rows(
    tallies: &[&Tally],
    docks: &BTreeMap<String, u32>,
    phrases: &BTreeMap<String, String>,
) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut row = |key: &str, label: &str, kind: Kind, get: &dyn Fn(&Tally) -> Stat| {
        let stats: Vec<Stat> = tallies.iter().map(|t| get(t)).collect();
        let differences: Vec<Option<Estimate>> = match stats.split_first() {
            Some((first, rest)) => rest
                .iter()
                .zip(&tallies[1..])
                .map(|(b, t)| {
                    let squares = t.paired.as_ref().map(|p| p.get(key).copied().unwrap_or(0));
                    difference(first, b, squares)
                })
                .collect(),
            None => Vec::new(),
        };
        rows.push(Row {
            key: key.into(),
            label: label.into(),
            kind,
            columns: stats.iter().map(Stat::estimate).collect(),
            difference: match differences.as_slice() {
                [d] => *d,
                _ => None,
            },
            differences,
        });
    };
    row("games", "games", Kind::Count, &|t| Stat::Count(t.games));
    row(
        "finish_rate",
        "finish rate (a robot won)",
        Kind::Rate,
        &|t| Stat::Rate(t.won, t.games),
    );
    row(
        "turn_limit_rate",
        "undecided at the turn limit",
        Kind::Rate,
        &|t| Stat::Rate(t.turn_limit, t.games),
    );
    row(
        "none_left_rate",
        "every robot out of lives",
        Kind::Rate,
        &|t| Stat::Rate(t.none_left, t.games),
    );
    row("turns", "turns per game", Kind::Mean(1), &|t| {
        Stat::Mean(t.turns, t.games)
    });
    for (key, label, q) in [
        ("win_turns.p10", "turns to win: 10%", 0.1),
        ("win_turns.median", "turns to win: median", 0.5),
        ("win_turns.p90", "turns to win: 90%", 0.9),
    ] {
        row(key, label, Kind::Quantile, &|t| {
            Stat::Quantile(t.win_quantile(q))
        });
    }
    row(
        "win_turns.mean",
        "turns to win: mean",
        Kind::Mean(1),
        &|t| Stat::MeanOver(t.win_moments(), t.won),
    );
    // Seats: every robot of the game, in dock order, even one that never won.
    let mut seats: Vec<String> = names(tallies, |t| t.wins.keys());
    seats.extend(
        docks
            .keys()
            .filter(|r| !seats.contains(r))
            .cloned()
            .collect::<Vec<_>>(),
    );
    seats.sort_by_key(|r| (docks.get(r).copied().unwrap_or(u32::MAX), r.clone()));
    for robot in &seats {
        let count = |t: &Tally| t.wins.get(robot).copied().unwrap_or(0);
        let label = match docks.get(robot) {
            Some(dock) => format!("wins: {robot} (dock {dock})"),
            None => format!("wins: {robot}"),
        };
        row(&format!("wins.{robot}"), &label, Kind::Rate, &|t| {
            Stat::Rate(count(t), t.games)
        });
    }
    if seats.len() > 1 {
        row(
            "seats_differ",
            "seats differ: χ² test p",
            Kind::PValue,
            &|t| {
                let wins: Vec<u64> = seats
                    .iter()
                    .map(|r| t.wins.get(r).copied().unwrap_or(0))
                    .collect();
                Stat::Test(stats::equal_shares_p(&wins))
            },
        );
    }
    // Deaths and damage, in all and by cause.
    type ByCause = fn(&Tally) -> (&Moments, &BTreeMap<String, Moments>);
    let parts: [(&str, &str, ByCause); 2] = [
        ("deaths", "deaths per game", |t| (&t.deaths, &t.deaths_by)),
        ("damage", "damage per game", |t| (&t.damage, &t.damage_by)),
    ];
    for (key, label, part) in parts {
        row(key, label, Kind::Mean(2), &|t| {
            Stat::Mean(*part(t).0, t.games)
        });
        for cause in names(tallies, |t| part(t).1.keys()) {
            let of = |t: &Tally| part(t).1.get(&cause).copied().unwrap_or_default();
            row(
                &format!("{key}.{cause}"),
                &format!("  {cause}"),
                Kind::Mean(2),
                &|t| Stat::Mean(of(t), t.games),
            );
        }
    }
    // The scripts' own events, in all and by robot.
    for event in names(tallies, |t| t.events.keys()) {
        let of = |t: &Tally| t.events.get(&event).copied().unwrap_or_default();
        row(
            &format!("events.{event}"),
            &match phrases.get(&event) {
                Some(phrase) => format!("{event} per game: {phrase}"),
                None => format!("{event} per game"),
            },
            Kind::Mean(2),
            &|t| Stat::Mean(of(t), t.games),
        );
        let robots = names(tallies, |t| {
            t.events_by.get(&event).into_iter().flat_map(|by| by.keys())
        });
        for robot in robots {
            let of = |t: &Tally| {
                t.events_by
                    .get(&event)
                    .and_then(|by| by.get(&robot))
                    .copied()
                    .unwrap_or_default()
            };
            let shown = if robot.is_empty() {
                "(no robot)"
            } else {
                &robot
            };
            row(
                &format!("events_by.{event}.{robot}"),
                &format!("  {shown}"),
                Kind::Mean(2),
                &|t| Stat::Mean(of(t), t.games),
            );
        }
    }
    // Turns to reach each flag from the robot's previous one.
    let flags: Vec<u32> = {
        let mut all: Vec<u32> = tallies
            .iter()
            .flat_map(|t| t.flags.keys().copied())
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    };
    for flag in flags {
        let of = |t: &Tally| t.flags.get(&flag).copied().unwrap_or_default();
        row(
            &format!("flag_turns.{flag}"),
            &format!("turns to reach flag {flag}"),
            Kind::Mean(1),
            &|t| Stat::MeanOver(of(t).turns, of(t).times),
        );
    }
    rows
}

/// Every name any tally has under `keys`, sorted, once each.
fn names<'a, I: Iterator<Item = &'a String>>(
    tallies: &[&'a Tally],
    keys: impl Fn(&'a Tally) -> I,
) -> Vec<String> {
    let mut all: Vec<String> = tallies.iter().flat_map(|t| keys(t)).cloned().collect();
    all.sort();
    all.dedup();
    all
}

/// The raw numbers behind one cell.
enum Stat {
    Count(u64),
    Rate(u64, u64),
    /// A mean per game (of the games' figures, [`figures`]).
    Mean(Moments, u64),
    /// A mean over something other than the games (the games won, the flags reached): no
    /// pairs, so its difference is unpaired.
    MeanOver(Moments, u64),
    Quantile(Option<u32>),
    Test(Option<f64>),
}

impl Stat {
    fn estimate(&self) -> Option<Estimate> {
        match *self {
            Stat::Count(n) => Some(Estimate {
                value: n as f64,
                low: None,
                high: None,
            }),
            Stat::Rate(k, n) => rate(k, n),
            Stat::Mean(m, n) | Stat::MeanOver(m, n) => mean(m, n),
            Stat::Quantile(q) => q.map(|q| Estimate {
                value: q as f64,
                low: None,
                high: None,
            }),
            Stat::Test(p) => p.map(|p| Estimate {
                value: p,
                low: None,
                high: None,
            }),
        }
    }
}

/// `b − a` with its 95% interval. With `paired` (the sum of the squared differences of the
/// games' figures, seed by seed, [`Tally::paired`]), the interval of the paired
/// difference: the columns' games share their seeds, so what the seed decides cancels.
/// Without, the columns are taken as independent samples: Newcombe's hybrid score interval
/// for two rates (built from their Wilson intervals), Welch's normal interval for two means.
fn difference(a: &Stat, b: &Stat, paired: Option<u64>) -> Option<Estimate> {
    match (a, b, paired) {
        (&Stat::Rate(ka, n), &Stat::Rate(kb, nb), Some(squares)) if n == nb => {
            paired_rates(ka, kb, n, squares)
        }
        (&Stat::Mean(ma, n), &Stat::Mean(mb, nb), Some(squares)) if n == nb => {
            paired_means(ma.sum, mb.sum, n, squares)
        }
        (Stat::Rate(..), Stat::Rate(..), _) => {
            let (ea, eb) = (a.estimate()?, b.estimate()?);
            newcombe(&ea, &eb, 0.0)
        }
        (
            Stat::Mean(ma, na) | Stat::MeanOver(ma, na),
            Stat::Mean(mb, nb) | Stat::MeanOver(mb, nb),
            _,
        ) => {
            let (va, ea) = mean_and_error(*ma, *na)?;
            let (vb, eb) = mean_and_error(*mb, *nb)?;
            let d = vb - va;
            let half = match (ea, eb) {
                (Some(ea), Some(eb)) => Some(Z * (ea * ea + eb * eb).sqrt()),
                _ => None,
            };
            Some(Estimate {
                value: d,
                low: half.map(|h| d - h),
                high: half.map(|h| d + h),
            })
        }
        _ => None,
    }
}

/// `b − a` for two rates with Wilson intervals `a` and `b`, by Newcombe's hybrid score
/// interval; `phi` is the correlation of the two samples (0: independent; Newcombe 1998,
/// method 10 for paired samples).
fn newcombe(a: &Estimate, b: &Estimate, phi: f64) -> Option<Estimate> {
    let (la, ha, lb, hb) = (a.low?, a.high?, b.low?, b.high?);
    let d = b.value - a.value;
    let spread = |x: f64, y: f64| (x * x - 2.0 * phi * x * y + y * y).max(0.0).sqrt();
    Some(Estimate {
        value: d,
        low: Some(d - spread(b.value - lb, ha - a.value)),
        high: Some(d + spread(hb - b.value, a.value - la)),
    })
}

/// `b − a` for two rates over the same `n` games, `ka` and `kb` of them with a yes, and
/// `squares` games where the two differ. The 2×2 table of pairs follows (the games where
/// only one column says yes differ by `kb − ka` and add up to `squares`); Newcombe's
/// method 10 uses its correlation φ. `None` for counts no games could give.
fn paired_rates(ka: u64, kb: u64, n: u64, squares: u64) -> Option<Estimate> {
    let (ka, kb, n, s) = (ka as i128, kb as i128, n as i128, squares as i128);
    let diff = kb - ka;
    if s < diff.abs() || (s + diff) % 2 != 0 {
        return None;
    }
    let (only_b, only_a) = ((s + diff) / 2, (s - diff) / 2);
    let both = ka - only_a;
    let neither = n - both - s;
    if both < 0 || neither < 0 {
        return None;
    }
    let margins = (ka * (n - ka)) as f64 * (kb * (n - kb)) as f64;
    let phi = if margins > 0.0 {
        (both * neither - only_a * only_b) as f64 / margins.sqrt()
    } else {
        0.0
    };
    newcombe(
        &rate(ka as u64, n as u64)?,
        &rate(kb as u64, n as u64)?,
        phi,
    )
}

/// `b − a` for two means over the same `n` games with sums `sa` and `sb` and `squares` the
/// sum of the squared per-game differences: the normal interval of the differences' mean.
fn paired_means(sa: u64, sb: u64, n: u64, squares: u64) -> Option<Estimate> {
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let sum = sb as f64 - sa as f64;
    let value = sum / nf;
    if n < 2 {
        return Some(Estimate {
            value,
            low: None,
            high: None,
        });
    }
    let variance = ((squares as f64 - sum * value) / (nf - 1.0)).max(0.0);
    let half = Z * (variance / nf).sqrt();
    Some(Estimate {
        value,
        low: Some(value - half),
        high: Some(value + half),
    })
}

/// A cell as people read it: `99.8% [99.3, 99.9]`, `9.5 ±0.2`, `12`, or `-`.
fn cell(kind: Kind, e: &Option<Estimate>) -> String {
    let Some(e) = e else {
        return "-".into();
    };
    match kind {
        Kind::Count | Kind::Quantile => format!("{}", e.value),
        Kind::PValue if e.value < 0.001 => "p < 0.001".into(),
        Kind::PValue => format!("p = {:.3}", e.value),
        Kind::Rate => match (e.low, e.high) {
            (Some(l), Some(h)) => format!(
                "{:.1}% [{:.1}, {:.1}]",
                100.0 * e.value,
                100.0 * l,
                100.0 * h
            ),
            _ => format!("{:.1}%", 100.0 * e.value),
        },
        Kind::Mean(d) => {
            let d = d as usize;
            match (e.low, e.high) {
                (Some(l), Some(h)) => format!("{:.d$} ±{:.d$}", e.value, (h - l) / 2.0),
                _ => format!("{:.d$}", e.value),
            }
        }
    }
}

/// A difference as people read it: rates in percentage points with their interval, means
/// with ±; `*` when the interval excludes zero.
fn difference_cell(kind: Kind, e: &Option<Estimate>) -> String {
    let Some(e) = e else {
        return String::new();
    };
    let marked = |text: String| match (e.low, e.high) {
        (Some(l), Some(h)) if l > 0.0 || h < 0.0 => format!("{text} *"),
        _ => format!("{text}  "),
    };
    match kind {
        Kind::Rate => match (e.low, e.high) {
            (Some(l), Some(h)) => marked(format!(
                "{:+.1} [{:+.1}, {:+.1}]",
                100.0 * e.value,
                100.0 * l,
                100.0 * h
            )),
            _ => marked(format!("{:+.1}", 100.0 * e.value)),
        },
        Kind::Mean(d) => {
            let d = d as usize;
            match (e.low, e.high) {
                (Some(l), Some(h)) => marked(format!("{:+.d$} ±{:.d$}", e.value, (h - l) / 2.0)),
                _ => marked(format!("{:+.d$}", e.value)),
            }
        }
        Kind::Count | Kind::Quantile | Kind::PValue => String::new(),
    }
}

/// Whether a table shows the row `key`: the scripts' events in all, each by robot only when
/// named with `--metric`; with `--metric`, only the events named.
pub fn shown(key: &str, metrics: &[String]) -> bool {
    if let Some(rest) = key.strip_prefix("events_by.") {
        return metrics.iter().any(|m| {
            rest.strip_prefix(m.as_str())
                .is_some_and(|r| r.starts_with('.'))
        });
    }
    match key.strip_prefix("events.") {
        Some(event) => metrics.is_empty() || metrics.iter().any(|m| m == event),
        None => true,
    }
}

/// The headers of a table's columns: each column's name, then its difference with the
/// first. With more than two columns they are numbered, and the differences say `2 − 1`.
fn headers(names: &[String]) -> Vec<String> {
    match names {
        [a, b] => vec![a.clone(), b.clone(), format!("{b} − {a}")],
        [_, _, ..] => {
            let mut all: Vec<String> = names
                .iter()
                .enumerate()
                .map(|(i, n)| format!("{}: {n}", i + 1))
                .collect();
            all.extend((2..=names.len()).map(|i| format!("{i} − 1")));
            all
        }
        _ => names.to_vec(),
    }
}

/// The table's cells as text: the headers, then each row shown ([`shown`]) with its label
/// and a cell per header (what the table and the report print).
pub fn cells(
    names: &[String],
    rows: &[Row],
    metrics: &[String],
) -> (Vec<String>, Vec<(String, Vec<String>)>) {
    // Labels and names come from scripts and files (a damage cause, an event's name, a
    // column's name): each stays on its line, so none can add a row that looks like the
    // table's own.
    let one_line = |text: &str| crate::text::clean_line(text).into_owned();
    let names: Vec<String> = names.iter().map(|n| one_line(n)).collect();
    let header = headers(&names);
    let lines = rows
        .iter()
        .filter(|r| shown(&r.key, metrics))
        .map(|r| {
            let mut cells: Vec<String> = r.columns.iter().map(|e| cell(r.kind, e)).collect();
            if names.len() > 1 {
                cells.extend(r.differences.iter().map(|d| difference_cell(r.kind, d)));
                cells.resize(header.len(), String::new());
            }
            (one_line(&r.label), cells)
        })
        .collect();
    (header, lines)
}

/// The summary as a table: row labels on the left, a column per tally, and with more than
/// one column the difference of each with the first; a note on the intervals below it.
/// `metrics`: as [`shown`].
pub fn table(names: &[String], rows: &[Row], metrics: &[String]) -> String {
    let (header, lines) = cells(names, rows, metrics);
    let label_width = lines
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0);
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            lines
                .iter()
                .map(|(_, v)| v[c].chars().count())
                .chain(std::iter::once(header[c].chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let mut line = |label: &str, cells: &[String]| {
        let mut text = format!("{label:label_width$}");
        for (c, v) in cells.iter().enumerate() {
            let _ = write!(text, "  {v:>w$}", w = widths[c]);
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line("", &header);
    for (label, cells) in &lines {
        line(label, cells);
    }
    out.push_str("\n[low, high] and ±: 95% confidence intervals");
    if names.len() > 1 {
        out.push_str("; * marks a difference whose interval excludes 0 (rates in points)");
    }
    out.push('\n');
    for note in notes(names, rows) {
        out.push_str(&note);
        out.push('\n');
    }
    out
}

/// What the table cannot show by itself: the games it would take to tell a difference of
/// the size seen in the main rows, and that a sweep's intervals are each at 95%.
pub fn notes(names: &[String], rows: &[Row]) -> Vec<String> {
    let mut notes = Vec::new();
    if names.len() > 2 {
        notes.push(format!(
            "{} columns, each compared with the first at 95%: the intervals are not corrected for comparing many columns, so about one difference in 20 that is pure noise is marked *",
            names.len()
        ));
    }
    let games = rows
        .iter()
        .find(|r| r.key == "games")
        .and_then(|r| r.columns.first().copied().flatten())
        .map_or(0.0, |e| e.value);
    for r in rows
        .iter()
        .filter(|r| ["finish_rate", "turns"].contains(&r.key.as_str()))
    {
        for (i, d) in r.differences.iter().enumerate() {
            let Some(Estimate {
                value,
                low: Some(low),
                high: Some(high),
            }) = *d
            else {
                continue;
            };
            let half = (high - low) / 2.0;
            if value == 0.0 || low > 0.0 || high < 0.0 || games == 0.0 {
                continue;
            }
            // The interval narrows with the square root of the games.
            let needed = (games * (half / value.abs()).powi(2)).ceil();
            notes.push(format!(
                "{}: {} against {} differ by less than the noise of {games} games: run about {needed} games to tell a difference of this size",
                r.label, names[i + 1], names[0]
            ));
        }
    }
    notes
}

/// The CSV column of each difference: `difference` for two columns, `difference.K` (K the
/// column's number from 1) for more.
fn difference_names(names: &[String]) -> Vec<String> {
    match names.len() {
        0 | 1 => Vec::new(),
        2 => vec!["difference".into()],
        n => (2..=n).map(|k| format!("difference.{k}")).collect(),
    }
}

/// The summary as CSV, one line per row and column: `metric,column,value,low,high`, rates
/// as fractions (0..1); the differences with the first column as `difference_names`.
pub fn csv(names: &[String], rows: &[Row]) -> String {
    let mut out = String::from("metric,column,value,low,high\n");
    let number = |x: Option<f64>| x.map_or(String::new(), |x| format!("{x}"));
    let differences = difference_names(names);
    for r in rows {
        let cells = names
            .iter()
            .map(String::as_str)
            .zip(r.columns.iter())
            .chain(
                differences
                    .iter()
                    .map(String::as_str)
                    .zip(r.differences.iter())
                    .filter(|(_, d)| d.is_some()),
            );
        for (column, e) in cells {
            let _ = writeln!(
                out,
                "{},{},{},{},{}",
                csv_field(&r.key),
                csv_field(column),
                number(e.map(|e| e.value)),
                number(e.and_then(|e| e.low)),
                number(e.and_then(|e| e.high)),
            );
        }
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The chi-square test of the seats.
mod stats {
    /// The p-value of Pearson's chi-square test that `counts` (games won from each seat)
    /// come from equal shares: `None` with fewer than two seats or no games won.
    pub fn equal_shares_p(counts: &[u64]) -> Option<f64> {
        let total: u64 = counts.iter().sum();
        if counts.len() < 2 || total == 0 {
            return None;
        }
        let expected = total as f64 / counts.len() as f64;
        let chi2: f64 = counts
            .iter()
            .map(|&o| (o as f64 - expected).powi(2) / expected)
            .sum();
        Some(chi_square_upper(chi2, (counts.len() - 1) as f64))
    }

    /// P(X ≥ x) for X chi-square with `k` degrees of freedom: Q(k/2, x/2).
    pub fn chi_square_upper(x: f64, k: f64) -> f64 {
        upper_gamma(k / 2.0, x / 2.0)
    }

    /// ln Γ(x), Lanczos' approximation (g = 7, 9 terms; about 15 digits).
    fn ln_gamma(x: f64) -> f64 {
        const C: [f64; 9] = [
            0.999_999_999_999_809_9,
            676.520_368_121_885_1,
            -1_259.139_216_722_402_8,
            771.323_428_777_653_1,
            -176.615_029_162_140_6,
            12.507_343_278_686_905,
            -0.138_571_095_265_720_12,
            9.984_369_578_019_572e-6,
            1.505_632_735_149_311_6e-7,
        ];
        let x = x - 1.0;
        let t = x + 7.5;
        let sum = C[0] + (1..9).map(|i| C[i] / (x + i as f64)).sum::<f64>();
        0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
    }

    /// The regularized upper incomplete gamma function Q(a, x): a series below a + 1, a
    /// continued fraction above (Numerical Recipes §6.2).
    fn upper_gamma(a: f64, x: f64) -> f64 {
        if x <= 0.0 {
            return 1.0;
        }
        let front = (-x + a * x.ln() - ln_gamma(a)).exp();
        if x < a + 1.0 {
            let (mut term, mut sum, mut n) = (1.0 / a, 1.0 / a, a);
            for _ in 0..500 {
                n += 1.0;
                term *= x / n;
                sum += term;
                if term.abs() < sum.abs() * 1e-15 {
                    break;
                }
            }
            (1.0 - sum * front).clamp(0.0, 1.0)
        } else {
            let tiny = 1e-300;
            let mut b = x + 1.0 - a;
            let mut c = 1.0 / tiny;
            let mut d = 1.0 / b;
            let mut h = d;
            for i in 1..500 {
                let an = -(i as f64) * (i as f64 - a);
                b += 2.0;
                d = an * d + b;
                if d.abs() < tiny {
                    d = tiny;
                }
                c = b + an / c;
                if c.abs() < tiny {
                    c = tiny;
                }
                d = 1.0 / d;
                let step = d * c;
                h *= step;
                if (step - 1.0).abs() < 1e-15 {
                    break;
                }
            }
            (front * h).clamp(0.0, 1.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_or_name_from_a_script_stays_on_its_row() {
        // A damage cause holding a newline added a fake row to `rally sim`'s table.
        let row = Row {
            key: "deaths.x".into(),
            label: "deaths by x\nfinish rate        100.0% [99.0, 100.0]\u{202e}".into(),
            kind: Kind::Count,
            columns: vec![None],
            difference: None,
            differences: vec![],
        };
        let text = table(&["rules\nfake".into()], &[row], &[]);
        assert_eq!(text.lines().count(), 4, "{text}");
        assert!(
            text.contains("deaths by x\\nfinish rate") && text.contains("\\u{202e}"),
            "{text}"
        );
        assert!(text.contains("rules\\nfake"), "{text}");
    }

    #[test]
    fn wilson_interval_matches_the_textbook() {
        // 81 of 263: 0.3080, interval [0.2553, 0.3662] (Wilson 1927, as tabulated by Newcombe 1998).
        let e = rate(81, 263).unwrap();
        assert!((e.value - 0.30798).abs() < 1e-4);
        assert!((e.low.unwrap() - 0.2553).abs() < 1e-4, "{e:?}");
        assert!((e.high.unwrap() - 0.3662).abs() < 1e-4, "{e:?}");
        // Nothing at all still has an interval above zero.
        let none = rate(0, 10).unwrap();
        assert_eq!(none.low, Some(0.0));
        assert!(none.high.unwrap() > 0.25);
    }

    #[test]
    fn newcombe_difference_matches_the_textbook() {
        // Newcombe (1998), example (a): 56/70 against 48/80: difference 0.2, [0.0524, 0.3339].
        let d = difference(&Stat::Rate(48, 80), &Stat::Rate(56, 70), None).unwrap();
        assert!((d.value - 0.2).abs() < 1e-9);
        assert!((d.low.unwrap() - 0.0524).abs() < 1e-4, "{d:?}");
        assert!((d.high.unwrap() - 0.3339).abs() < 1e-4, "{d:?}");
    }

    #[test]
    fn chi_square_matches_the_tables() {
        // Critical values: chi-square 3.841 with 1 degree of freedom and 7.815 with 3 are
        // the 5% points; 11.345 with 3 is the 1% point.
        assert!((stats::chi_square_upper(3.841, 1.0) - 0.05).abs() < 1e-3);
        assert!((stats::chi_square_upper(7.815, 3.0) - 0.05).abs() < 1e-3);
        assert!((stats::chi_square_upper(11.345, 3.0) - 0.01).abs() < 1e-3);
        assert_eq!(stats::equal_shares_p(&[10, 10, 10]), Some(1.0));
        // 30 and 10 of 40: chi-square 10 with 1 degree of freedom, p = 0.0016.
        let p = stats::equal_shares_p(&[30, 10]).unwrap();
        assert!((p - 0.001_565).abs() < 1e-4, "{p}");
        assert_eq!(stats::equal_shares_p(&[0, 0]), None);
    }

    #[test]
    fn means_come_from_sums_of_squares() {
        let mut m = Moments::default();
        for x in [2, 4, 4, 4, 5, 5, 7, 9] {
            m.add(x);
        }
        let (mean, error) = mean_and_error(m, 8).unwrap();
        assert_eq!(mean, 5.0);
        // Sample variance 32/7.
        assert!((error.unwrap() - (32.0f64 / 7.0 / 8.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn tallies_merge_in_any_order() {
        let game = |robot: &str, turn: u32, pits: u64| GameResult {
            outcome: Some(Outcome::Won {
                robot: robot.into(),
                turn,
            }),
            turns: turn,
            deaths: BTreeMap::from([("pit".into(), pits)]),
            events: BTreeMap::from([("stuck".into(), BTreeMap::from([(robot.into(), pits)]))]),
            squares: BTreeMap::from([("deaths", BTreeMap::from([(Pos::new(1, 2), pits)]))]),
            flags: vec![(1, turn)],
            ..GameResult::default()
        };
        let games = [game("A", 5, 1), game("B", 7, 0), game("A", 9, 3)];
        let mut whole = Tally::default();
        games.iter().for_each(|g| whole.add(g));
        let (mut a, mut b) = (Tally::default(), Tally::default());
        a.add(&games[2]);
        b.add(&games[0]);
        b.add(&games[1]);
        a.merge(&b).unwrap();
        assert_eq!(a, whole);
        assert!(whole.check().is_ok());
        assert_eq!(whole.win_quantile(0.5), Some(7));
        assert_eq!(
            whole.deaths_by["pit"],
            Moments {
                sum: 4,
                squares: 10
            }
        );
        assert_eq!(whole.events["stuck"], whole.deaths_by["pit"]);
        assert_eq!(whole.events_by["stuck"]["A"].sum, 4);
        assert_eq!(whole.squares["deaths"]["1,2"], 4);
        assert_eq!(whole.flags[&1].times, 3);
        assert_eq!(whole.flags[&1].turns.sum, 21);
    }

    #[test]
    fn a_table_shows_each_column_against_the_first() {
        let tally = |won: u64| Tally {
            games: 100,
            won,
            none_left: 100 - won,
            win_turns: BTreeMap::from([(5, won)]),
            wins: BTreeMap::from([("A".to_string(), won)]),
            ..Tally::default()
        };
        let (a, b, c) = (tally(50), tally(60), tally(90));
        let docks = BTreeMap::from([("A".to_string(), 1), ("B".to_string(), 2)]);
        let rows = rows(&[&a, &b, &c], &docks, &BTreeMap::new());
        let finish = rows.iter().find(|r| r.key == "finish_rate").unwrap();
        assert_eq!(finish.differences.len(), 2);
        assert!((finish.differences[1].unwrap().value - 0.4).abs() < 1e-12);
        assert_eq!(finish.difference, None);
        let names = ["x".to_string(), "y".to_string(), "z".to_string()];
        let text = table(&names, &rows, &[]);
        assert!(text.contains("3: z") && text.contains("3 − 1"), "{text}");
        assert!(text.contains("+40.0 ["), "{text}");
        assert!(text.contains("wins: B (dock 2)"), "{text}");
        assert!(
            text.contains("not corrected for comparing many columns"),
            "{text}"
        );
        // 60 against 50 of 100 is within the noise: the note says how many games would tell.
        assert!(text.contains("run about"), "{text}");
        assert!(csv(&names, &rows).contains("finish_rate,difference.3,0.4,"));
    }

    /// Two columns of ten games on the same seeds: the second wins every game the first
    /// wins and one more, and takes a turn or more longer on each.
    fn paired_columns() -> (Tally, Tally, Vec<i64>) {
        let game = |won: bool, turns: u32| GameResult {
            outcome: Some(match won {
                true => Outcome::Won {
                    robot: "A".into(),
                    turn: turns,
                },
                false => Outcome::TurnLimit { turn: turns },
            }),
            turns,
            ..GameResult::default()
        };
        let turns_a = [3, 5, 7, 9, 4, 6, 8, 10, 5, 5];
        let more = [1, 1, 1, 3, 0, 1, 1, 1, 2, 1];
        let (mut a, mut b) = (Tally::default(), Tally::default());
        for i in 0..10 {
            let (ga, gb) = (game(i < 5, turns_a[i]), game(i < 6, turns_a[i] + more[i]));
            a.add(&ga);
            b.add(&gb);
            b.pair(&figures(&gb), &figures(&ga));
        }
        (a, b, more.iter().map(|&m| m as i64).collect())
    }

    #[test]
    fn the_paired_difference_matches_a_hand_computation() {
        let (a, b, more) = paired_columns();
        let rows = rows(&[&a, &b], &BTreeMap::new(), &BTreeMap::new());
        let get = |key: &str| {
            rows.iter()
                .find(|r| r.key == key)
                .unwrap()
                .difference
                .unwrap()
        };
        // Turns: the mean of the ten differences ± 1.96 of their standard deviation / √10.
        let n = more.len() as f64;
        let mean = more.iter().sum::<i64>() as f64 / n;
        let sd = (more.iter().map(|&d| (d as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let turns = get("turns");
        assert!((turns.value - mean).abs() < 1e-12);
        assert!(
            (turns.low.unwrap() - (mean - Z * sd / n.sqrt())).abs() < 1e-9,
            "{turns:?}"
        );
        assert!(
            (turns.high.unwrap() - (mean + Z * sd / n.sqrt())).abs() < 1e-9,
            "{turns:?}"
        );
        // Finish rate: 5 and 6 of 10, pairs (both, only the second, only the first, neither)
        // = (5, 1, 0, 4), φ = (5·4 − 0·1)/√(5·5·6·4) = 0.8165; Newcombe's method 10 from the
        // Wilson intervals [0.2366, 0.7634] and [0.3127, 0.8318] gives [−0.0684, 0.2530].
        for key in ["finish_rate", "wins.A"] {
            let d = get(key);
            assert!((d.value - 0.1).abs() < 1e-12);
            assert!((d.low.unwrap() + 0.068_37).abs() < 1e-4, "{key} {d:?}");
            assert!((d.high.unwrap() - 0.253_00).abs() < 1e-4, "{key} {d:?}");
        }
    }

    #[test]
    fn paired_intervals_are_narrower_than_independent_ones_when_columns_go_together() {
        let (a, b, _) = paired_columns();
        let unpaired = Tally {
            paired: None,
            ..b.clone()
        };
        let width = |t: &Tally, key: &str| {
            let rows = rows(&[&a, t], &BTreeMap::new(), &BTreeMap::new());
            let d = rows
                .iter()
                .find(|r| r.key == key)
                .unwrap()
                .difference
                .unwrap();
            d.high.unwrap() - d.low.unwrap()
        };
        for key in ["turns", "finish_rate", "turn_limit_rate"] {
            let (paired, independent) = (width(&b, key), width(&unpaired, key));
            assert!(
                paired < independent / 2.0,
                "{key}: {paired} against {independent}"
            );
        }
        // Welch's interval for the turns, by hand: the variances of the two columns.
        assert!((width(&unpaired, "turns") / 2.0 - 2.4).abs() < 0.5);
    }

    #[test]
    fn pairs_merge_like_the_rest_and_refuse_a_mix() {
        let (_, b, _) = paired_columns();
        let mut whole = Tally::default();
        whole.merge(&b).unwrap();
        whole.merge(&b).unwrap();
        assert_eq!(
            whole.paired.as_ref().unwrap()["turns"],
            2 * b.paired.as_ref().unwrap()["turns"]
        );
        let unpaired = Tally {
            paired: None,
            ..b.clone()
        };
        assert!(whole.merge(&unpaired).is_err());
        // Counts no pairs could give (more differing games than the rates allow) have no
        // interval rather than a wrong one.
        assert_eq!(paired_rates(5, 6, 10, 2), None);
        assert_eq!(paired_rates(5, 6, 10, 13), None);
    }

    #[test]
    fn a_games_figures_add_up_to_the_tally() {
        let games = [
            GameResult {
                outcome: Some(Outcome::Won {
                    robot: "A".into(),
                    turn: 4,
                }),
                turns: 4,
                deaths: BTreeMap::from([("pit".into(), 2), ("laser".into(), 1)]),
                damage: BTreeMap::from([("laser".into(), 3)]),
                events: BTreeMap::from([(
                    "stuck".into(),
                    BTreeMap::from([("A".into(), 2), ("".into(), 1)]),
                )]),
                ..GameResult::default()
            },
            GameResult {
                outcome: Some(Outcome::NoneLeft { turn: 9 }),
                turns: 9,
                deaths: BTreeMap::from([("pit".into(), 4)]),
                ..GameResult::default()
            },
        ];
        let mut t = Tally::default();
        let mut sums = Figures::new();
        for g in &games {
            t.add(g);
            for (key, n) in figures(g) {
                *sums.entry(key).or_default() += n;
            }
        }
        // Every per-game row of the summary is the mean of its figure over the games.
        let rows = rows(&[&t], &BTreeMap::new(), &BTreeMap::new());
        let mut checked = 0;
        for r in rows
            .iter()
            .filter(|r| matches!(r.kind, Kind::Rate | Kind::Mean(_)))
        {
            if r.key.starts_with("win_turns") || r.key.starts_with("flag_turns") {
                continue;
            }
            let sum = sums.get(&r.key).copied().unwrap_or(0) as f64;
            assert!(
                (r.columns[0].unwrap().value - sum / 2.0).abs() < 1e-12,
                "{}",
                r.key
            );
            checked += 1;
        }
        assert!(checked >= 12, "{checked}");
    }
}
