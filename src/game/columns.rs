//! The columns of a study (`rally sim --compare`, `--sweep`): each column is the game
//! file's variants changed by a list of [`Change`]s, written on the command line as
//! `sticky-floor.threshold=5,more-lives,-ice-rink` (docs/simulations.md).
//!
//! A column names its variants and every parameter set for them (by the game file or the
//! column), so two columns that differ only in a setting have different headers, and a
//! shard of another setting is another study.

use crate::script::variant::Choice;
use std::collections::BTreeMap;

/// One change a column makes to the game file's variants.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// `NAME`: switch the variant on (with the game file's settings for it, if any).
    On(String),
    /// `-NAME`: switch off a variant the game file (or `--variant`) switches on.
    Off(String),
    /// `NAME.PARAM=VALUE`: switch the variant on, with this parameter set.
    Set {
        variant: String,
        param: String,
        value: toml::Value,
    },
}

/// What a column's variants set, variant by variant: parameter name to value (JSON, as the
/// tally file keeps it). Only what the game file or the column sets; defaults are not shown.
pub type Settings = BTreeMap<String, BTreeMap<String, serde_json::Value>>;

/// A value as written after `=`: a TOML value (`5`, `true`, `"max"`, `1.5`), or else the
/// bare text as a string (`speed_damage=max`).
fn value(text: &str) -> toml::Value {
    match format!("v = {text}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").expect("the table has the key just written"),
        Err(_) => toml::Value::String(text.to_string()),
    }
}

/// A variant name as a column writes it: letters, digits, `-` and `_`.
fn name(text: &str, whole: &str) -> Result<String, String> {
    if text.is_empty()
        || !text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "`{whole}`: expected NAME, -NAME or NAME.PARAM=VALUE (a variant's name, letters, digits, - and _)"
        ));
    }
    Ok(text.to_string())
}

/// One change: `NAME`, `-NAME` or `NAME.PARAM=VALUE`.
fn change(item: &str) -> Result<Change, String> {
    if let Some(off) = item.strip_prefix('-') {
        return Ok(Change::Off(name(off, item)?));
    }
    match item.split_once('=') {
        None => Ok(Change::On(name(item, item)?)),
        Some((left, text)) => {
            let (variant, param) = left.split_once('.').ok_or_else(|| {
                format!("`{item}`: a setting is NAME.PARAM=VALUE (sticky-floor.threshold=5)")
            })?;
            let text = text.trim();
            if text.is_empty() {
                return Err(format!("`{item}`: no value after `=`"));
            }
            Ok(Change::Set {
                variant: name(variant.trim(), item)?,
                param: name(param.trim(), item)?,
                value: value(text),
            })
        }
    }
}

/// A column as written after `--compare`: changes separated by commas.
pub fn parse(text: &str) -> Result<Vec<Change>, String> {
    let items: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if items.is_empty() {
        return Err(format!(
            "`{text}`: expected at least one variant or setting"
        ));
    }
    items.into_iter().map(change).collect()
}

/// The most columns a sweep makes: each plays every game of the study.
pub const MAX_SWEEP: usize = 50;

/// `--sweep NAME.PARAM=A..B` (integers, step 1) or `NAME.PARAM=V1,V2,...`: one column per
/// value, each setting only that parameter.
pub fn sweep(text: &str) -> Result<Vec<Vec<Change>>, String> {
    let usage = || {
        format!("`{text}`: expected NAME.PARAM=LOW..HIGH (integers) or NAME.PARAM=V1,V2,... (sticky-floor.threshold=2..6)")
    };
    let (left, values) = text.split_once('=').ok_or_else(usage)?;
    let values: Vec<toml::Value> = match values.split_once("..") {
        Some((low, high)) => {
            let low: i64 = low.trim().parse().map_err(|_| usage())?;
            let high: i64 = high.trim().parse().map_err(|_| usage())?;
            if low > high {
                return Err(format!("`{text}`: {low} is above {high}"));
            }
            if high as i128 - low as i128 >= MAX_SWEEP as i128 {
                return Err(format!(
                    "`{text}`: {} values; a sweep has at most {MAX_SWEEP} columns",
                    high as i128 - low as i128 + 1
                ));
            }
            (low..=high).map(toml::Value::Integer).collect()
        }
        None => values
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(value)
            .collect(),
    };
    if values.len() < 2 {
        return Err(format!("`{text}`: a sweep needs at least two values"));
    }
    if values.len() > MAX_SWEEP {
        return Err(format!(
            "`{text}`: {} values; a sweep has at most {MAX_SWEEP} columns",
            values.len()
        ));
    }
    let Change::Set { variant, param, .. } = change(&format!("{left}=0"))? else {
        return Err(usage());
    };
    Ok(values
        .into_iter()
        .map(|value| {
            vec![Change::Set {
                variant: variant.clone(),
                param: param.clone(),
                value,
            }]
        })
        .collect())
}

/// The game file's choices (`base`, with `--variant`'s) changed by a column's `changes`; a
/// variant switched on takes the file's `parked` settings for it, if any.
pub fn apply(
    base: &[Choice],
    parked: &[Choice],
    changes: &[Change],
) -> Result<Vec<Choice>, String> {
    let mut choices = base.to_vec();
    let switch_on = |choices: &mut Vec<Choice>, variant: &str| -> usize {
        if let Some(at) = choices.iter().position(|c| c.name == variant) {
            return at;
        }
        choices.push(
            parked
                .iter()
                .find(|p| p.name == variant)
                .cloned()
                .unwrap_or_else(|| Choice {
                    name: variant.to_string(),
                    ..Choice::default()
                }),
        );
        choices.len() - 1
    };
    for change in changes {
        match change {
            Change::On(variant) => {
                switch_on(&mut choices, variant);
            }
            Change::Off(variant) => {
                let before = choices.len();
                choices.retain(|c| &c.name != variant);
                if choices.len() == before {
                    let on: Vec<&str> = base.iter().map(|c| c.name.as_str()).collect();
                    return Err(format!(
                        "-{variant}: the game does not switch `{variant}` on (it switches on: {})",
                        if on.is_empty() {
                            "none".to_string()
                        } else {
                            on.join(", ")
                        }
                    ));
                }
            }
            Change::Set {
                variant,
                param,
                value,
            } => {
                let at = switch_on(&mut choices, variant);
                let choice = &mut choices[at];
                choice.params.insert(param.clone(), value.clone());
                // Set here, not in the file: an error about it points at no line of it.
                if let Some(w) = choice.written.as_mut() {
                    w.params.remove(param);
                }
            }
        }
    }
    Ok(choices)
}

/// What the choices set, for the tally file and the header.
pub fn settings(choices: &[Choice]) -> Settings {
    choices
        .iter()
        .filter(|c| !c.params.is_empty())
        .map(|c| {
            let params = c
                .params
                .iter()
                .map(|(k, v)| {
                    let json = serde_json::to_value(v).unwrap_or(serde_json::Value::Null);
                    (k.clone(), json)
                })
                .collect();
            (c.name.clone(), params)
        })
        .collect()
}

/// A column's header: its variants joined by `+`, each with what is set for it,
/// `sticky-floor(threshold=5)`; `standard` for none.
pub fn header(variants: &[String], settings: &Settings) -> String {
    if variants.is_empty() {
        return "standard".into();
    }
    variants
        .iter()
        .map(|v| match settings.get(v) {
            Some(set) if !set.is_empty() => {
                let shown: Vec<String> = set
                    .iter()
                    .map(|(k, value)| match value {
                        serde_json::Value::String(s) => format!("{k}={s}"),
                        other => format!("{k}={other}"),
                    })
                    .collect();
                format!("{v}({})", shown.join(", "))
            }
            _ => v.clone(),
        })
        .collect::<Vec<_>>()
        .join("+")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(name: &str, params: &[(&str, i64)]) -> Choice {
        Choice {
            name: name.into(),
            params: params
                .iter()
                .map(|(k, v)| (k.to_string(), toml::Value::Integer(*v)))
                .collect(),
            written: None,
        }
    }

    #[test]
    fn changes_are_parsed() {
        assert_eq!(
            parse("sticky-floor.threshold=5, more-lives,-ice-rink").unwrap(),
            vec![
                Change::Set {
                    variant: "sticky-floor".into(),
                    param: "threshold".into(),
                    value: toml::Value::Integer(5)
                },
                Change::On("more-lives".into()),
                Change::Off("ice-rink".into()),
            ]
        );
        let Change::Set { value, .. } = &parse("ice-rink.speed_damage=max").unwrap()[0] else {
            panic!()
        };
        assert_eq!(value, &toml::Value::String("max".into()));
        assert!(parse("sticky-floor:threshold=5").is_err());
        assert!(parse("a.b=").is_err());
        assert!(parse(",").is_err());
        assert!(parse("a=1").unwrap_err().contains("NAME.PARAM=VALUE"));
    }

    #[test]
    fn sweeps_make_a_column_per_value() {
        assert_eq!(sweep("s.t=2..6").unwrap().len(), 5);
        assert_eq!(sweep("s.t=2,4,6").unwrap().len(), 3);
        assert!(sweep("s.t=6..2").is_err());
        assert!(sweep("s.t=1..1000").unwrap_err().contains("at most"));
        assert!(sweep("s.t=-9223372036854775808..9223372036854775807").is_err());
        assert!(sweep("s.t=3").is_err());
        assert!(sweep("s=1..3").is_err());
    }

    #[test]
    fn columns_switch_on_set_and_switch_off() {
        let base = [
            choice("ice-rink", &[]),
            choice("more-lives", &[("extra", 2)]),
        ];
        let parked = [choice("sticky-floor", &[("threshold", 4), ("loss", 1)])];
        let column = apply(
            &base,
            &parked,
            &parse("-ice-rink,sticky-floor.threshold=5").unwrap(),
        )
        .unwrap();
        let names: Vec<&str> = column.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["more-lives", "sticky-floor"]);
        // The file's parked setting for `loss` stays; the column's `threshold` wins.
        let set = settings(&column);
        assert_eq!(set["sticky-floor"]["threshold"], 5);
        assert_eq!(set["sticky-floor"]["loss"], 1);
        let names: Vec<String> = column.iter().map(|c| c.name.clone()).collect();
        assert_eq!(
            header(&names, &set),
            "more-lives(extra=2)+sticky-floor(loss=1, threshold=5)"
        );
        let off = apply(&base, &parked, &parse("-thaw").unwrap()).unwrap_err();
        assert!(off.contains("ice-rink, more-lives"), "{off}");
    }
}
