//! `rally render BOARD|SCENARIO -o FILE.svg|FILE.png`: a top-down picture of a board, or of a
//! scenario's board with its robots (at the start, or with `--after` once it is resolved),
//! with a legend of its elements on request (`--legend`) and PNGs at any scale (`--scale`).

use crate::board::{Board, Layout};
use crate::error::{Error, Result};
use crate::formats::scenario::Scenario;
use crate::pictures::svg;
use crate::script::RuleFolders;
use std::path::{Path, PathBuf};

/// Draw a board, or a scenario's board with its robots, as SVG or PNG
#[derive(clap::Args)]
pub struct Args {
    /// A board (.toml, or a Tiled map .tmj/.json/.tmx) or a scenario (.toml)
    file: PathBuf,
    /// The picture: FILE.svg, FILE.png, or - for SVG on standard output [default: the input's name with .svg]
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// For a scenario: draw the robots after resolving it, not where they start
    #[arg(long)]
    after: bool,
    /// Add a legend under the board: a sample of each kind of element on it, named
    #[arg(long)]
    legend: bool,
    /// For PNG: pixels per unit of the picture (a square is 64 units), e.g. 3 for print (about 288 dpi at the SVG's size)
    #[arg(long, value_name = "N", default_value_t = 1.0)]
    scale: f32,
    /// For a Tiled map: instead of a picture, list each tile it uses (tileset, id, class, properties, cells), what it became and which mapping entry decided it; tiles that cannot be translated are listed with the reason (exit 1)
    #[arg(long, conflicts_with_all = ["output", "after", "legend"])]
    list: bool,
}

impl Args {
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        if self.list {
            return list(&self.file);
        }
        render(&self.file, self, common).map(|()| true)
    }
}

/// `--list`: the tiles a Tiled map uses and what each became, as a table; false (exit 1) when
/// some tile cannot be translated.
fn list(path: &Path) -> Result<bool> {
    if !crate::board::tiled::is_map(path) {
        return Err(Error::Other(format!(
            "--list needs a Tiled map (.tmj, .json, .tmx); {} is not one",
            path.display()
        )));
    }
    let used = crate::board::tiled::list(path)?;
    let mut rows = vec![[
        "tileset".to_string(),
        "id".into(),
        "class".into(),
        "properties".into(),
        "cells".into(),
        "by".into(),
        "elements".into(),
    ]];
    let mut all = true;
    for u in &used {
        let (by, elements) = match &u.how {
            Ok(how) if u.elements.is_empty() => (how.clone(), "(none)".to_string()),
            Ok(how) => (how.clone(), u.elements.join(" + ")),
            Err(why) => {
                all = false;
                ("NOT TRANSLATED".to_string(), why.clone())
            }
        };
        rows.push([
            u.tileset.clone(),
            u.id.to_string(),
            u.class.clone().unwrap_or_else(|| "-".into()),
            u.properties.clone(),
            u.cells.to_string(),
            by,
            elements,
        ]);
    }
    let widths: Vec<usize> = (0..7)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, w))| match c {
                6 => cell.clone(),
                _ => format!("{cell:<w$}"),
            })
            .collect();
        println!("{}", line.join("  "));
    }
    let untranslated = used.iter().filter(|u| u.how.is_err()).count();
    println!("{} tiles used, {} not translated", used.len(), untranslated);
    Ok(all)
}

fn render(path: &Path, opts: &Args, common: &RuleFolders) -> Result<()> {
    let svg = if is_scenario(path)? {
        let scenario = Scenario::load(path)?;
        let rules = common.rules(Some(path), scenario.variants.clone())?;
        let mut engine = scenario.start(rules)?;
        if opts.after {
            scenario.resolve(&mut engine)?;
        }
        let board = engine.board();
        let robots = engine.state().robots.clone();
        svg::picture(
            engine.rules(),
            &board,
            &robots,
            &svg::Options {
                title: Some(board.name.clone()),
                legend: opts.legend,
            },
        )
    } else {
        if opts.after {
            return Err(Error::Other(format!(
                "--after needs a scenario; {} is a board",
                path.display()
            )));
        }
        let layout = Layout::load(path)?;
        let rules = common.rules(Some(path), Vec::new())?;
        let board = Board::compile(&layout, &rules)?;
        let options = svg::Options {
            title: Some(board.name.clone()),
            legend: opts.legend,
        };
        svg::picture(&rules, &board, &[], &options)
    };
    let output = opts.output.clone().unwrap_or_else(|| default_output(path));
    write_picture(&output, &svg, opts.scale)
}

/// Writes `svg` where `output` says, as PNG (`scale` pixels per unit) when it ends in `.png`.
pub fn write_picture(output: &Path, svg: &str, scale: f32) -> Result<()> {
    if output == Path::new("-") {
        print!("{svg}");
        return Ok(());
    }
    let file_err = |message: String| Error::File {
        file: output.to_path_buf(),
        message,
    };
    let bytes = match output.extension().and_then(|e| e.to_str()) {
        #[cfg(feature = "png")]
        Some("png") => svg::to_png(svg, scale).map_err(file_err)?,
        #[cfg(not(feature = "png"))]
        Some("png") => {
            let _ = scale;
            return Err(super::not_in_this_build(
                "png",
                "write PNG pictures (SVG it can: -o FILE.svg)",
            ));
        }
        Some("svg") => svg.as_bytes().to_vec(),
        _ => return Err(file_err(
            "the picture's file name must end in .svg or .png (or be - for SVG on standard output)"
                .into(),
        )),
    };
    super::output::write_file(output, &bytes)
}

/// A scenario names its `board` (a path or an inline table); a board file does not (a course's
/// `[[board]]` is a list of parts). Non-TOML files (Tiled maps) are boards.
fn is_scenario(path: &Path) -> Result<bool> {
    if path.extension().is_none_or(|e| e != "toml") {
        return Ok(false);
    }
    let table: toml::Table = crate::files::Source::read(path)?.parse_toml()?;
    Ok(matches!(
        table.get("board"),
        Some(toml::Value::String(_) | toml::Value::Table(_))
    ))
}

/// The default picture name: the input's, with `.svg`.
fn default_output(input: &Path) -> PathBuf {
    PathBuf::from(input.file_stem().unwrap_or_default()).with_extension("svg")
}
