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
}

impl Tally {
    pub fn add(&mut self, r: &GameResult) {
        self.games += 1;
        self.turns.add(r.turns as u64);
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
    }

    /// Adds another tally's games to this one; `Err` when a sum would overflow (only a
    /// forged file can get there).
    pub fn merge(&mut self, other: &Tally) -> Result<(), String> {
        let overflow = || "the numbers are too large to add up".to_string();
        let add = |a: &mut u64, b: u64| -> Result<(), String> {
            *a = a.checked_add(b).ok_or_else(overflow)?;
            Ok(())
        };
        add(&mut self.games, other.games)?;
        add(&mut self.won, other.won)?;
        add(&mut self.turn_limit, other.turn_limit)?;
        add(&mut self.none_left, other.none_left)?;
        self.turns.merge(&other.turns).ok_or_else(overflow)?;
        for (turn, &n) in &other.win_turns {
            add(self.win_turns.entry(*turn).or_default(), n)?;
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
}

/// The summary of the tallies, one column each.
pub fn rows(tallies: &[&Tally]) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut row = |key: &str, label: &str, kind: Kind, get: &dyn Fn(&Tally) -> Stat| {
        let stats: Vec<Stat> = tallies.iter().map(|t| get(t)).collect();
        rows.push(Row {
            key: key.into(),
            label: label.into(),
            kind,
            columns: stats.iter().map(Stat::estimate).collect(),
            difference: match stats.as_slice() {
                [a, b] => difference(a, b),
                _ => None,
            },
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
        &|t| Stat::Mean(t.win_moments(), t.won),
    );
    for robot in names(tallies, |t| t.wins.keys()) {
        let count = |t: &Tally| t.wins.get(&robot).copied().unwrap_or(0);
        row(
            &format!("wins.{robot}"),
            &format!("wins: {robot}"),
            Kind::Rate,
            &|t| Stat::Rate(count(t), t.games),
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
    Mean(Moments, u64),
    Quantile(Option<u32>),
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
            Stat::Mean(m, n) => mean(m, n),
            Stat::Quantile(q) => q.map(|q| Estimate {
                value: q as f64,
                low: None,
                high: None,
            }),
        }
    }
}

/// `b − a` with its 95% interval: Newcombe's hybrid score interval for two rates (built
/// from their Wilson intervals), Welch's normal interval for two means.
fn difference(a: &Stat, b: &Stat) -> Option<Estimate> {
    match (a, b) {
        (Stat::Rate(..), Stat::Rate(..)) => {
            let (ea, eb) = (a.estimate()?, b.estimate()?);
            let (la, ha, lb, hb) = (ea.low?, ea.high?, eb.low?, eb.high?);
            let d = eb.value - ea.value;
            Some(Estimate {
                value: d,
                low: Some(d - ((eb.value - lb).powi(2) + (ha - ea.value).powi(2)).sqrt()),
                high: Some(d + ((hb - eb.value).powi(2) + (ea.value - la).powi(2)).sqrt()),
            })
        }
        (Stat::Mean(ma, na), Stat::Mean(mb, nb)) => {
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

/// A cell as people read it: `99.8% [99.3, 99.9]`, `9.5 ±0.2`, `12`, or `-`.
fn cell(kind: Kind, e: &Option<Estimate>) -> String {
    let Some(e) = e else {
        return "-".into();
    };
    match kind {
        Kind::Count | Kind::Quantile => format!("{}", e.value),
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
        Kind::Count | Kind::Quantile => String::new(),
    }
}

/// The summary as a table: row labels on the left, a column per tally, and for two
/// columns a `difference` column; a note on the intervals below it.
pub fn table(names: &[String], rows: &[Row]) -> String {
    let two = names.len() == 2;
    // Labels and names come from scripts and files (a damage cause, a column's name): each
    // stays on its line, so none can add a row that looks like the table's own.
    let one_line = |text: &str| crate::text::clean_line(text).into_owned();
    let names: Vec<String> = names.iter().map(|n| one_line(n)).collect();
    let mut header: Vec<String> = names.clone();
    if two {
        header.push(format!("{} − {}", names[1], names[0]));
    }
    let lines: Vec<(String, Vec<String>)> = rows
        .iter()
        .map(|r| {
            let mut cells: Vec<String> = r.columns.iter().map(|e| cell(r.kind, e)).collect();
            if two {
                cells.push(difference_cell(r.kind, &r.difference));
            }
            (one_line(&r.label), cells)
        })
        .collect();
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
    if two {
        out.push_str("; * marks a difference whose interval excludes 0 (rates in points)");
    }
    out.push('\n');
    out
}

/// The summary as CSV, one line per row and column: `metric,column,value,low,high`, rates
/// as fractions (0..1); the difference of two columns as the column `difference`.
pub fn csv(names: &[String], rows: &[Row]) -> String {
    let mut out = String::from("metric,column,value,low,high\n");
    let number = |x: Option<f64>| x.map_or(String::new(), |x| format!("{x}"));
    for r in rows {
        let cells = names
            .iter()
            .map(String::as_str)
            .zip(r.columns.iter())
            .chain(r.difference.as_ref().map(|_| ("difference", &r.difference)));
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
        };
        let text = table(&["rules\nfake".into()], &[row]);
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
        let d = difference(&Stat::Rate(48, 80), &Stat::Rate(56, 70)).unwrap();
        assert!((d.value - 0.2).abs() < 1e-9);
        assert!((d.low.unwrap() - 0.0524).abs() < 1e-4, "{d:?}");
        assert!((d.high.unwrap() - 0.3339).abs() < 1e-4, "{d:?}");
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
            damage: BTreeMap::new(),
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
    }
}
