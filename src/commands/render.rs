//! `rally render BOARD|SCENARIO -o FILE.svg|FILE.png`: a top-down picture of a board, or of a
//! scenario's board with its robots (at the start, or with `--after` once it is resolved),
//! with a legend of its elements on request (`--legend`) and PNGs at any scale (`--scale`).

use crate::board::{Board, Layout};
use crate::error::{Error, Result};
use crate::formats::scenario::Scenario;
use crate::pictures::svg;
use crate::script::RuleFolders;
use std::path::{Path, PathBuf};

pub struct RenderOptions {
    /// `.svg`, `.png`, or `-` for SVG on standard output.
    pub output: PathBuf,
    /// Draw a scenario's robots after resolving it instead of where they start.
    pub after: bool,
    /// Add a legend of the board's elements under it.
    pub legend: bool,
    /// PNG pixels per SVG unit (1: a square is 64 pixels).
    pub scale: f32,
}

pub fn render(path: &Path, opts: &RenderOptions, common: &RuleFolders) -> Result<()> {
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
    write_picture(&opts.output, &svg, opts.scale)
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
        Some("png") => svg::to_png(svg, scale).map_err(file_err)?,
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
pub fn default_output(input: &Path) -> PathBuf {
    PathBuf::from(input.file_stem().unwrap_or_default()).with_extension("svg")
}
