//! `rally sim --report FILE`: a study as one self-contained HTML page to send to
//! co-designers. Everything is in the page (styles, and charts and heatmaps drawn by rally
//! as SVG): it opens from a mail attachment with no network.

use super::{chart, chart::Point, heatmap};
use crate::board::Board;
use crate::game::study::Study;
use crate::game::tally::{self, Row};
use crate::script::RuleSet;
use crate::text::xml;
use std::fmt::Write;

const STYLE: &str = "body{font-family:'DejaVu Sans',Arial,sans-serif;margin:24px;color:#222;max-width:1200px}\
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc}\
code{background:#f2f2f2;padding:1px 4px;border-radius:3px}\
table{border-collapse:collapse;font-size:13px}td,th{padding:3px 8px;text-align:right;white-space:nowrap}\
th{border-bottom:2px solid #888}td:first-child,th:first-child{text-align:left}\
tr:nth-child(even){background:#f6f6f6}.sig{color:#0b5394;font-weight:bold}\
.pictures{display:flex;flex-wrap:wrap;gap:12px}.pictures figure{margin:0}\
dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px;font-size:13px}dt{font-weight:bold}\
.note{font-size:13px;color:#444}.wide{overflow-x:auto}";

/// A row's estimates as chart points.
fn points(row: &Row) -> Vec<Option<Point>> {
    row.columns
        .iter()
        .map(|e| {
            e.map(|e| Point {
                value: e.value,
                low: e.low,
                high: e.high,
            })
        })
        .collect()
}

/// The rows a trend shows: those named in `keys`, and the scripts' events (those of
/// `--metric`, if any).
fn trend_rows<'a>(
    study: &'a Study,
    metrics: &'a [String],
    keys: &'a [&str],
) -> impl Iterator<Item = &'a Row> {
    study.summary.iter().filter(move |r| {
        keys.contains(&r.key.as_str())
            || (r.key.starts_with("events.") && tally::shown(&r.key, metrics))
    })
}

/// One row across the columns, as a line with its band.
fn trend_chart(study: &Study, row: &Row) -> String {
    let percent = row.kind == tally::Kind::Rate;
    chart::line(
        row.label.trim(),
        &short_labels(&study.names()),
        &points(row),
        percent,
    )
}

/// The columns' names for a chart's axis, without what they all share: a sweep's
/// `sticky-floor(threshold=2)`, `sticky-floor(threshold=3)` become `2`, `3`. Cut only
/// after a `(`, `=`, `+` or `,` and before a `)`, `,` or `+`, so no name is cut inside a word.
pub fn short_labels(names: &[String]) -> Vec<String> {
    let Some(first) = names.first() else {
        return Vec::new();
    };
    if names.len() < 2 {
        return names.to_vec();
    }
    let common = |a: &[char], b: &[char]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let chars: Vec<Vec<char>> = names.iter().map(|n| n.chars().collect()).collect();
    let first: Vec<char> = first.chars().collect();
    let mut prefix = chars.iter().map(|c| common(&first, c)).min().unwrap_or(0);
    while prefix > 0 && !"(=+,".contains(first[prefix - 1]) {
        prefix -= 1;
    }
    let reversed: Vec<Vec<char>> = chars
        .iter()
        .map(|c| c.iter().rev().copied().collect())
        .collect();
    let mut suffix = reversed
        .iter()
        .map(|c| common(&reversed[0], c))
        .min()
        .unwrap_or(0);
    while suffix > 0 && !")+,".contains(reversed[0][suffix - 1]) {
        suffix -= 1;
    }
    let cut: Vec<String> = chars
        .iter()
        .map(|c| {
            c[prefix.min(c.len())..c.len().saturating_sub(suffix).max(prefix.min(c.len()))]
                .iter()
                .collect()
        })
        .collect();
    if cut.iter().any(String::is_empty) {
        names.to_vec()
    } else {
        cut
    }
}

/// `rally sim --trend FILE`: the finish rate, the turns per game and the scripts' events
/// across the columns, one chart above the other, as one SVG document.
pub fn trend(study: &Study, metrics: &[String]) -> String {
    let charts: Vec<String> = trend_rows(study, metrics, &["finish_rate", "turns"])
        .map(|row| trend_chart(study, row))
        .collect();
    let (w, h) = (chart::WIDTH, chart::HEIGHT);
    let total = h * charts.len().max(1) as f64;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{total}\" viewBox=\"0 0 {w} {total}\">\n"
    );
    for (i, c) in charts.iter().enumerate() {
        // A chart is a whole SVG document: nested, each in its own band.
        let _ = writeln!(
            out,
            "<g transform=\"translate(0,{})\">{c}</g>",
            h * i as f64
        );
    }
    out.push_str("</svg>\n");
    out
}

/// The page: what was played (the command, the hashes), the summary table and its notes,
/// the seats, the turns per game, a sweep's trends and the heatmaps.
pub fn page(
    study: &Study,
    command: &str,
    rules: &RuleSet,
    board: &Board,
    metrics: &[String],
) -> String {
    let names = study.names();
    let mut out = String::new();
    let title = format!("Balancing study: {}", study.game.file);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n",
        xml(&title),
        xml(&title)
    );
    let _ = writeln!(
        out,
        "<dl><dt>command</dt><dd><code>rally {}</code></dd><dt>board</dt><dd>{}</dd><dt>games</dt><dd>{} per column, the same seeds in every column</dd><dt>game file</dt><dd><code>{}</code></dd><dt>rules</dt><dd><code>{}</code> ({} files)</dd><dt>rally</dt><dd>{}</dd></dl>",
        xml(command),
        xml(&board.name),
        study.games,
        study.game.sha256,
        study.rules.sha256,
        study.rules.files.len(),
        xml(&study.engine)
    );
    // The table.
    let (header, lines) = tally::cells(&names, &study.summary, metrics);
    out.push_str("<h2 id=\"summary\">Summary</h2>\n<div class=\"wide\"><table><tr><th></th>");
    for h in &header {
        let _ = write!(out, "<th>{}</th>", xml(h));
    }
    out.push_str("</tr>\n");
    for (label, cells) in &lines {
        let _ = write!(
            out,
            "<tr><td>{}</td>",
            xml(label).replace("  ", "&#160;&#160;")
        );
        for c in cells {
            let class = if c.ends_with('*') {
                " class=\"sig\""
            } else {
                ""
            };
            let _ = write!(out, "<td{class}>{}</td>", xml(c.trim_end()));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></div>\n<p class=\"note\">[low, high] and ±: 95% confidence intervals; * (in blue) marks a difference with the first column whose interval excludes 0.</p>\n");
    for note in tally::notes(&names, &study.summary) {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", xml(&note));
    }
    // A sweep's (or any three or more columns') trends.
    if names.len() > 2 {
        out.push_str("<h2 id=\"trends\">Trends across the columns</h2>\n<p class=\"note\">Each point with its 95% interval (the band); the intervals are not corrected for comparing many columns.</p><div class=\"pictures\">\n");
        for row in trend_rows(
            study,
            metrics,
            &["finish_rate", "turns", "deaths", "damage"],
        ) {
            let _ = writeln!(out, "<figure>{}</figure>", trend_chart(study, row));
        }
        out.push_str("</div>\n");
    }
    // Seats.
    out.push_str(
        "<h2 id=\"seats\">Seats: win rate per starting dock</h2>\n<div class=\"pictures\">\n",
    );
    let seat_rows: Vec<&Row> = study
        .summary
        .iter()
        .filter(|r| r.key.starts_with("wins."))
        .collect();
    let test = study.summary.iter().find(|r| r.key == "seats_differ");
    for (c, name) in names.iter().enumerate() {
        let labels: Vec<String> = seat_rows
            .iter()
            .map(|r| r.label.trim_start_matches("wins: ").to_string())
            .collect();
        let values: Vec<Option<Point>> = seat_rows.iter().map(|r| points(r)[c]).collect();
        let p = test.and_then(|t| t.columns[c]).map_or(String::new(), |e| {
            format!(" (χ² test of equal seats: p = {:.3})", e.value)
        });
        let _ = writeln!(
            out,
            "<figure>{}</figure>",
            chart::bars(&format!("{name}{p}"), &labels, &values, true)
        );
    }
    out.push_str("</div>\n<p class=\"note\">A seat is a dock and the bot that plays it: with bots of different strengths, the seats differ by the bots too.</p>\n");
    // Turns per game.
    out.push_str("<h2 id=\"turns\">Turns per game</h2>\n<div class=\"pictures\">\n");
    for column in &study.columns {
        let t = &column.tally;
        let (Some(&low), Some(&high)) = (t.game_turns.keys().next(), t.game_turns.keys().last())
        else {
            continue;
        };
        let labels: Vec<String> = (low..=high).map(|n| n.to_string()).collect();
        let values: Vec<Option<Point>> = (low..=high)
            .map(|n| {
                Some(Point {
                    value: t.game_turns.get(&n).copied().unwrap_or(0) as f64
                        / t.games.max(1) as f64,
                    low: None,
                    high: None,
                })
            })
            .collect();
        let _ = writeln!(
            out,
            "<figure>{}</figure>",
            chart::bars(
                &format!("{}: share of games by turns played", column.name),
                &labels,
                &values,
                true
            )
        );
    }
    out.push_str("</div>\n");
    // Heatmaps.
    let maps = heatmap::all(study, rules, board);
    if !maps.is_empty() {
        out.push_str("<h2 id=\"heatmaps\">Heatmaps</h2>\n<p class=\"note\">Per game, over every game of the column; after the first column, each column's difference with it (purple: less, orange: more). Hover a square for its number.</p><div class=\"pictures\">\n");
        for (title, svg) in maps {
            let _ = writeln!(out, "<figure aria-label=\"{}\">{svg}</figure>", xml(&title));
        }
        out.push_str("</div>\n");
    }
    out.push_str("</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_is_labelled_by_its_values() {
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            short_labels(&names(&["s(threshold=2)", "s(threshold=10)"])),
            ["2", "10"]
        );
        assert_eq!(
            short_labels(&names(&["standard", "sticky(threshold=3)"])),
            ["standard", "sticky(threshold=3)"]
        );
        assert_eq!(short_labels(&names(&["a+b", "a+c"])), ["b", "c"]);
        assert_eq!(short_labels(&names(&["a", "a"])), ["a", "a"]);
    }
}
