//! The documentation's worked examples must keep working: the example element and its
//! scenario are taken out of docs/writing-elements.md, the first scenario out of
//! docs/scenarios.md, and both run in a project holding only the example element, layered on
//! the built-in rules.
//! And the README, the front page, tells a clone the truth.

use crate::support;

use std::path::Path;

/// The fenced blocks of one language, in order.
fn blocks(text: &str, lang: &str) -> Vec<String> {
    let fence = format!("```{lang}\n");
    text.split(&fence)
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn the_worked_examples_in_the_docs_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = |name: &str| std::fs::read_to_string(root.join("docs").join(name)).unwrap();
    let (elements, scenarios) = (page("writing-elements.md"), page("scenarios.md"));
    let (lua, magnet) = (blocks(&elements, "lua"), blocks(&elements, "toml"));
    let scenario = blocks(&scenarios, "toml");
    assert!(
        !lua.is_empty() && !magnet.is_empty(),
        "docs/writing-elements.md lost its worked example"
    );
    assert!(!scenario.is_empty(), "docs/scenarios.md lost its example");

    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scripts/elements")).unwrap();
    std::fs::write(
        dir.path().join("scripts/elements/example_magnet.lua"),
        &lua[0],
    )
    .unwrap();
    std::fs::write(dir.path().join("scenario.toml"), &scenario[0]).unwrap();
    std::fs::write(dir.path().join("example_magnet.toml"), &magnet[0]).unwrap();

    let stdout = support::rally_ok(dir.path(), &["test", "."]);
    assert!(stdout.contains("2 passed, 0 failed"), "{stdout}");
}

/// The README's figures and references hold for a clone: the number of scenario files it
/// gives is right (the audit adds more: raise it when they are a quarter more), and it sends no one to a file outside the repository.
#[test]
fn the_readme_counts_scenarios_and_points_only_inside_the_clone() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    fn count(dir: &Path) -> usize {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| {
                if p.is_dir() {
                    count(&p)
                } else {
                    usize::from(p.extension().is_some_and(|x| x == "toml"))
                }
            })
            .sum()
    }
    let files = count(&root.join("tests/scenarios"));
    let said: usize = readme
        .split("`tests/scenarios/` (more than ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the README says how many scenario files there are");
    assert!(
        said < files && files < said + said / 4,
        "the README says more than {said} scenario files; there are {files}"
    );
    assert!(
        !readme.contains("design follows `../"),
        "the README sends readers to a design document outside the clone"
    );
}

/// Every relative link of the front page, the policy files and docs/ leads to a file of the
/// clone and, into a Markdown page, to a heading or an anchor it has: the manual moved into
/// docs/, and a page that moves again must take its links along.
#[test]
fn every_link_in_the_docs_leads_somewhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages: Vec<_> = [
        "README.md",
        "ARCHITECTURE.md",
        "CONTRIBUTING.md",
        "CHANGELOG.md",
    ]
    .iter()
    .map(|p| root.join(p))
    .collect();
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "md") {
            pages.push(path);
        }
    }
    let mut broken = Vec::new();
    for page in &pages {
        let text = prose(&std::fs::read_to_string(page).unwrap());
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            let shown = page.strip_prefix(root).unwrap().display();
            if !target.exists() {
                broken.push(format!("{shown}: {link}: no such file"));
            } else if !anchor.is_empty()
                && target.extension().is_some_and(|x| x == "md")
                && !anchors(&std::fs::read_to_string(&target).unwrap()).contains(anchor)
            {
                broken.push(format!("{shown}: {link}: no such heading"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The text outside fenced blocks and code spans, where links are links.
fn prose(text: &str) -> String {
    let outside: Vec<&str> = text.split("```").step_by(2).collect();
    let outside = outside.join("\n");
    outside.split('`').step_by(2).collect::<Vec<_>>().join("")
}

/// The targets of `[text](target)` and `src="target"`.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (open, close) in [("](", ')'), ("src=\"", '"')] {
        for rest in text.split(open).skip(1) {
            if let Some(end) = rest.find(close) {
                found.push(rest[..end].to_string());
            }
        }
    }
    found
}

/// The anchors a page offers: its headings as GitHub makes them (lower case, punctuation
/// dropped, spaces as hyphens, `-1`, `-2`... for repeats) and its `<a id="...">`.
fn anchors(text: &str) -> std::collections::HashSet<String> {
    let mut found = std::collections::HashSet::new();
    for rest in text.split("<a id=\"").skip(1) {
        found.insert(rest.split('"').next().unwrap_or_default().to_string());
    }
    let mut seen = std::collections::HashMap::<String, usize>::new();
    let outside: Vec<&str> = text.split("```").step_by(2).collect();
    for line in outside.join("\n").lines() {
        let Some(heading) = line.trim_start_matches('#').strip_prefix(' ') else {
            continue;
        };
        if !line.starts_with('#') {
            continue;
        }
        let slug: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = seen.entry(slug.clone()).or_insert(0);
        found.insert(if *n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        *n += 1;
    }
    found
}

/// The README's performance table is `rally bench --report`'s output, dated, and the same
/// as docs/performance.md's: one run of the report refreshes both, and neither page keeps a
/// figure the report did not print.
#[test]
fn the_readme_performance_table_is_the_reports_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // From the report's first line to the end of its table.
    let report = |page: &str| -> String {
        let text = std::fs::read_to_string(root.join(page)).unwrap();
        let from = text
            .find("\nMeasured ")
            .unwrap_or_else(|| panic!("{page} has no `Measured ...` line of rally bench --report"));
        let lines: Vec<&str> = text[from + 1..].lines().collect();
        let table_end = lines
            .iter()
            .skip(3)
            .position(|l| !l.starts_with("| "))
            .map_or(lines.len(), |n| n + 3);
        lines[..table_end].join("\n")
    };
    let (readme, performance) = (report("README.md"), report("docs/performance.md"));
    assert!(
        readme.contains(" UTC by `rally bench --report")
            && readme.contains("| what | min | median | how |"),
        "{readme}"
    );
    assert_eq!(
        readme, performance,
        "README.md and docs/performance.md show different runs"
    );
}
