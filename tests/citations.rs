//! Every citation in the repository can be followed. A comment that says "rules.md §7.4
//! item 5" sends a reader to docs/rules.md, section 7.4, item 5: that item must be there. The
//! same holds for "design.md principle 4" (docs/design.md), "docs/options.md ruling 12",
//! every document named in passing (`docs/api.md`, `formats.md`), every relative markdown
//! link and its `#anchor`, and the test files docs/rules.md names for its rulings. Nothing
//! may point outside the repository (a user's clone has no `../shared` beside it).
//!
//! How docs/rules.md and the other numbered documents mark what can be cited:
//! - a section is a heading that starts with its number: `## 7. Flags`, `### 7.4 Power down`;
//! - an item of a section is a top-level numbered list entry (`5. ...`), or a list entry or a
//!   table row that starts with a bold label holding a digit (`- **4.A** Reveal`, `- **C2b**`,
//!   `- **5a**`); a section's items include those of its subsections, so `§9 #22` finds
//!   item 22 of §9.2;
//! - `§7.4.5` is item 5 of §7.4 when there is no section 7.4.5.
//!
//! A `§` with no document before it cites rules.md, except after "Issue N" (an issue's
//! item) or another document's name (that document's numbered sections).

use regex::Regex;
use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

/// Where citations are looked for (and the top-level `*.md` files).
const FOLDERS: &[&str] = &[
    "src", "scripts", "tests", "docs", "variants", "boards", "games", "benches",
];
/// The text files among them.
const TEXT: &[&str] = &["rs", "lua", "toml", "md", "js", "html", "css", "sh", "txt"];

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid pattern")
}

/// A section number: one or two digits per part (so a year is never a section).
const SECTION: &str = r"\d{1,2}(?:\.\d{1,2})*";
/// An item label: `5`, `1.1`, `4.A`, `4E`, `C2b`, `5a`.
const LABEL: &str = r"[A-Z]?\d+(?:\.?[0-9A-Za-z]+)*";

static REFERENCE: LazyLock<Regex> =
    LazyLock::new(|| re(&format!(r"^(§)?({SECTION})(?:\s?[–-]\s?§?({SECTION}))?")));
static ITEMS: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"^(?:\s*,\s*|\s+)(?:(steps|items)\s+|(?:step|item)\s+|(#))({LABEL})"
    ))
});
static MORE_ITEMS: LazyLock<Regex> =
    LazyLock::new(|| re(&format!(r"^(?:\s*,\s*|\s+and\s+|\s*[–-]\s*)(#?)({LABEL})")));
static NEXT_REFERENCE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:\s*(?:,|;|/)\s*(?:and\s+)?|\s+and\s+)"));
static RULES_MD: LazyLock<Regex> = LazyLock::new(|| re(r"\brules\.md\b ?"));
static ISSUE_BEFORE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\bissues? #?\d+,? ?$"));
static DOC_BEFORE: LazyLock<Regex> = LazyLock::new(|| re(r"\b([\w-]+)\.md`?,? ?$"));
static PRINCIPLES: LazyLock<Regex> =
    LazyLock::new(|| re(r"\bdesign\.md`?,? principles? (\d+(?:(?:, | and | or )\d+)*)"));
static DESIGN_TITLE: LazyLock<Regex> = LazyLock::new(|| re(r#"\bdesign\.md`?,? ["“]([^"”]+)["”]"#));
static RULINGS: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b([\w-]+)\.md`?,? rulings? (\d+(?:(?:, | and | or )\d+)*)"));
static RULING_HERE: LazyLock<Regex> = LazyLock::new(|| re(r"\bruling #(\d+)"));
static MENTION: LazyLock<Regex> = LazyLock::new(|| re(r"(?:\.\.?/)*(?:[\w.-]+/)*[\w-]+\.md\b"));
static LINK: LazyLock<Regex> =
    LazyLock::new(|| re(r#"\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)(?:\s+"[^"]*")?\)"#));
static NUMBERED_HEADING: LazyLock<Regex> =
    LazyLock::new(|| re(&format!(r"^({SECTION})\.?(?:\s|$)")));
static ITEM_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"^(?:(\d+)\.\s|\s*[-*]\s+\*\*#?({LABEL})\.?(?:\*\*|\s)|\|\s*\**#?({LABEL})\**\s*\|)"
    ))
});
static EXPLICIT_ANCHOR: LazyLock<Regex> =
    LazyLock::new(|| re(r#"<a\s+(?:id|name)\s*=\s*"([^"]+)""#));
static TEST_NAME: LazyLock<Regex> = LazyLock::new(|| re(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+){3,})`"));
static TEST_PATH: LazyLock<Regex> =
    LazyLock::new(|| re(r"`((?:[\w.*-]+/)+(?:[\w.*-]+\.(?:toml|rs|lua|md))?)`"));

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The text files where citations are looked for, relative to the root.
fn files() -> Vec<PathBuf> {
    let root = root();
    let mut out: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "md"))
        .collect();
    for folder in FOLDERS {
        walk(&root.join(folder), &mut out);
    }
    out.sort();
    out.into_iter()
        .map(|p| p.strip_prefix(&root).unwrap().to_path_buf())
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            walk(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| TEXT.iter().any(|t| e == *t))
        {
            out.push(path);
        }
    }
}

/// A file's text with each line's comment marker (`//!`, `///`, `--`, `#`, a list bullet...)
/// taken off and the lines joined by spaces, so that a citation a comment breaks over two
/// lines reads as one. `starts[i]` is where line i + 1 begins in `text`.
struct Flow {
    text: String,
    starts: Vec<usize>,
}

impl Flow {
    fn new(source: &str) -> Flow {
        static MARKER: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(?://[/!]?|--+|#+|\*|>)?\s?"));
        let mut flow = Flow {
            text: String::with_capacity(source.len()),
            starts: Vec::new(),
        };
        for line in source.lines() {
            flow.starts.push(flow.text.len());
            let marker = MARKER.find(line).map_or(0, |m| m.end());
            flow.text.push_str(&line[marker..]);
            flow.text.push(' ');
        }
        flow
    }

    /// The line (from 1) of a byte offset into `text`.
    fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset)
    }
}

/// A markdown document's headings, numbered sections and their items.
#[derive(Default)]
struct Doc {
    /// Section number ("7.4") or `#anchor` of any heading → the items in it (normalised).
    sections: HashMap<String, BTreeSet<String>>,
    /// GitHub-style anchors of the headings, and explicit `<a id>` anchors.
    anchors: BTreeSet<String>,
    /// Heading texts, lower case.
    titles: BTreeSet<String>,
}

/// An item label as it is compared: `#22` → `22`, `4.A` → `4a`, `Step 1.1.` → `1.1`.
fn normal(label: &str) -> String {
    let label = label.trim_start_matches('#').trim_end_matches('.');
    let mut out = String::new();
    let chars: Vec<char> = label.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let before_letter = chars.get(i + 1).is_some_and(|n| n.is_ascii_alphabetic());
        if c == '.' && before_letter {
            continue;
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens.
fn slug(heading: &str) -> String {
    static LINK_TARGET: LazyLock<Regex> = LazyLock::new(|| re(r"\]\([^)]*\)"));
    let text = LINK_TARGET.replace_all(heading, "");
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The lines of a markdown file outside fenced code blocks, with their numbers.
fn prose(source: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<&str> = None;
    let mut out = Vec::new();
    for (i, line) in source.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m => fence = None,
            (None, None) => out.push((i + 1, line)),
            _ => {}
        }
    }
    out
}

fn parse_doc(source: &str) -> Doc {
    let mut doc = Doc::default();
    // The headings whose section is still open: (level, key), outermost first.
    let mut open: Vec<(usize, Vec<String>)> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (_, line) in prose(source) {
        for m in EXPLICIT_ANCHOR.captures_iter(line) {
            doc.anchors.insert(m[1].to_string());
        }
        let level = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&level) && line[level..].starts_with(' ') {
            let text = line[level..].trim();
            let mut anchor = slug(text);
            let n = seen.entry(anchor.clone()).or_insert(0);
            if *n > 0 {
                anchor = format!("{anchor}-{n}");
            }
            *n += 1;
            open.retain(|(l, _)| *l < level);
            let mut keys = vec![format!("#{anchor}")];
            if let Some(m) = NUMBERED_HEADING.captures(text) {
                keys.push(m[1].to_string());
            }
            for key in &keys {
                doc.sections.entry(key.clone()).or_default();
            }
            doc.anchors.insert(anchor);
            doc.titles.insert(text.to_lowercase());
            open.push((level, keys));
            continue;
        }
        if let Some(m) = ITEM_LINE.captures(line) {
            let label = normal(m.get(1).or(m.get(2)).or(m.get(3)).unwrap().as_str());
            for key in open.iter().flat_map(|(_, keys)| keys) {
                doc.sections.get_mut(key).unwrap().insert(label.clone());
            }
        }
    }
    doc
}

/// What the repository's documents are, read once.
struct Repo {
    root: PathBuf,
    docs: HashMap<PathBuf, Option<Doc>>,
}

impl Repo {
    /// The parsed markdown file at `path` (relative to the root), if there is one.
    fn doc(&mut self, path: &Path) -> Option<&Doc> {
        let full = self.root.join(path);
        self.docs
            .entry(path.to_path_buf())
            .or_insert_with(|| fs::read_to_string(full).ok().map(|s| parse_doc(&s)))
            .as_ref()
    }

    /// Where `name` (as written in `file`) is in the repository, if it is.
    fn resolve(&self, file: &Path, name: &str) -> Option<PathBuf> {
        let dir = file.parent().unwrap_or(Path::new(""));
        let mut candidates = vec![dir.join(name), PathBuf::from(name)];
        if !name.contains('/') {
            candidates.push(Path::new("docs").join(name));
        }
        // Source files write text that ends up elsewhere (src/script/reference.rs writes
        // docs/api.md): there `../README.md` is relative to where the text goes.
        if file.extension().is_none_or(|e| e != "md") {
            candidates.push(PathBuf::from(name.trim_start_matches("../")));
        }
        candidates
            .into_iter()
            .filter_map(|c| inside(&c))
            .find(|c| self.root.join(c).exists())
    }
}

/// `path` with `..` and `.` folded, if it stays inside the repository.
fn inside(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir if !out.pop() => return None,
            Component::ParentDir => {}
            Component::Normal(p) => out.push(p),
            _ => {}
        }
    }
    Some(out)
}

/// One cited section with its items: `§2 step 4.D` is ("2", ["4.D"]).
struct Cited {
    section: String,
    items: Vec<String>,
    /// The other end of a range (`§6.4–6.6`).
    to: Option<String>,
}

/// Reads a list of citations at the start of `text`: `§7.4 item 5, §9.2 #22 and #23`, or
/// after "rules.md" also without `§` (`4.3, 5.2 step 4`). Returns them and the bytes read.
fn cited(text: &str, after_document: bool) -> (Vec<Cited>, usize) {
    let mut out = Vec::new();
    let mut at = 0;
    loop {
        let rest = &text[at..];
        let Some(m) = REFERENCE.captures(rest) else {
            break;
        };
        let end = m.get(0).unwrap().end();
        let next = rest[end..].chars().next();
        let bare = m.get(1).is_none();
        let first: u32 = m[2].split('.').next().unwrap().parse().unwrap();
        if next.is_some_and(|c| c.is_alphanumeric()) || (bare && !(after_document && first <= 10)) {
            break;
        }
        let mut reference = Cited {
            section: m[2].to_string(),
            items: Vec::new(),
            to: m.get(3).map(|t| t.as_str().to_string()),
        };
        let mut read = at + end;
        if let Some(items) = ITEMS.captures(&text[read..]) {
            let plural = items.get(1).is_some();
            let hashed = items.get(2).is_some();
            reference.items.push(items[3].to_string());
            read += items.get(0).unwrap().end();
            // After a plural ("steps 1, 2 and 5.2") or `#` ("#9 and #25") more may follow.
            while let Some(more) = (plural || hashed)
                .then(|| MORE_ITEMS.captures(&text[read..]))
                .flatten()
            {
                let range = more[0].trim_start().starts_with(['–', '-']);
                if hashed && more[1].is_empty() && !range {
                    break;
                }
                reference.items.push(more[2].to_string());
                read += more.get(0).unwrap().end();
            }
        }
        out.push(reference);
        at = read;
        match NEXT_REFERENCE.find(&text[at..]) {
            Some(sep) => {
                let after = &text[at + sep.end()..];
                let starts = after.starts_with('§')
                    || (after_document && after.starts_with(|c: char| c.is_ascii_digit()));
                if !starts {
                    break;
                }
                at += sep.end();
            }
            None => break,
        }
    }
    (out, at)
}

/// Checks one cited section (and its items) against `doc`; the problem if it fails.
fn check(doc: &Doc, name: &str, cited: &Cited) -> Option<String> {
    let mut sections = vec![(&cited.section, &cited.items)];
    let none = Vec::new();
    if let Some(to) = &cited.to {
        sections.push((to, &none));
    }
    for (section, items) in sections {
        let (key, mut items): (&str, Vec<String>) = if doc.sections.contains_key(section) {
            (section, items.iter().map(|i| normal(i)).collect())
        } else {
            // §7.4.5: item 5 of §7.4.
            let Some((parent, item)) = section.rsplit_once('.') else {
                return Some(format!("{name} has no section §{section}"));
            };
            if !doc.sections.contains_key(parent) || !items.is_empty() {
                return Some(format!("{name} has no section §{section}"));
            }
            if !doc.sections[parent].contains(&normal(item)) {
                return Some(format!(
                    "{name} has no section §{section} (nor an item `{item}` of §{parent})"
                ));
            }
            (parent, vec![normal(item)])
        };
        items.dedup();
        for item in items {
            if !doc.sections[key].contains(&item) {
                return Some(format!("{name} §{key} has no item `{item}`"));
            }
        }
    }
    None
}

const RULES: &str = "docs/rules.md";
const DESIGN: &str = "docs/design.md";

#[test]
fn every_citation_points_at_something_in_the_repository() {
    let mut repo = Repo {
        root: root(),
        docs: HashMap::new(),
    };
    for doc in [RULES, DESIGN] {
        assert!(repo.doc(Path::new(doc)).is_some(), "{doc} is missing");
    }
    let mut problems: Vec<String> = Vec::new();
    for file in files() {
        let Ok(source) = fs::read_to_string(repo.root.join(&file)) else {
            continue;
        };
        let mut scan = Scan {
            flow: Flow::new(&source),
            file: &file,
            repo: &mut repo,
            problems: &mut problems,
        };
        scan.sections();
        scan.principles();
        scan.rulings();
        if file == Path::new(RULES) {
            scan.own_references();
        }
        scan.documents();
        if file.extension().is_some_and(|e| e == "md") {
            check_links(&mut repo, &file, &source, &mut problems);
        }
    }
    problems.dedup();
    assert!(
        problems.is_empty(),
        "{} citation(s) point at nothing:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// One file's citations being checked.
struct Scan<'a> {
    flow: Flow,
    file: &'a Path,
    repo: &'a mut Repo,
    problems: &'a mut Vec<String>,
}

impl Scan<'_> {
    fn report(&mut self, offset: usize, problem: impl std::fmt::Display) {
        let line = self.flow.line(offset);
        self.problems
            .push(format!("{}:{line}: {problem}", self.file.display()));
    }

    /// Checks `refs` against the numbered sections of the document at `path`.
    fn against(&mut self, path: &Path, offset: usize, refs: Vec<Cited>) {
        let name = path.display().to_string();
        let found: Vec<String> = match self.repo.doc(path) {
            Some(doc) => refs.iter().filter_map(|r| check(doc, &name, r)).collect(),
            None => return, // reported by `documents`
        };
        for problem in found {
            self.report(offset, problem);
        }
    }

    /// "rules.md §7.4 item 5", "rules.md 4.3, 5.2 step 4", and a `§` on its own: rules.md's,
    /// an issue's, or the numbered section of the document named just before it.
    fn sections(&mut self) {
        let text = self.flow.text.clone();
        let mut consumed: Vec<std::ops::Range<usize>> = Vec::new();
        for m in RULES_MD.find_iter(&text) {
            let (refs, read) = cited(&text[m.end()..], true);
            consumed.push(m.end()..m.end() + read);
            self.against(Path::new(RULES), m.start(), refs);
        }
        for (offset, _) in text.match_indices('§') {
            if consumed.iter().any(|r| r.contains(&offset)) {
                continue;
            }
            let before = &text[..offset];
            let (refs, read) = cited(&text[offset..], false);
            consumed.push(offset..offset + read.max(1));
            if ISSUE_BEFORE.is_match(before) {
                continue;
            }
            let target = match DOC_BEFORE.captures(before) {
                Some(d) if &d[1] != "rules" => {
                    match self.repo.resolve(self.file, &format!("{}.md", &d[1])) {
                        Some(path) => path,
                        None => continue, // reported by `documents`
                    }
                }
                _ => PathBuf::from(RULES),
            };
            self.against(&target, offset, refs);
        }
    }

    /// "design.md principle 4", "design.md principles 5 and 6", design.md, "The table".
    fn principles(&mut self) {
        let text = self.flow.text.clone();
        for m in PRINCIPLES.captures_iter(&text) {
            let design = self.repo.doc(Path::new(DESIGN)).unwrap();
            let missing: Vec<String> = numbers(&m[1])
                .filter(|n| !design.sections.contains_key(*n))
                .map(|n| format!("{DESIGN} has no principle {n}"))
                .collect();
            for problem in missing {
                self.report(m.get(0).unwrap().start(), problem);
            }
        }
        for m in DESIGN_TITLE.captures_iter(&text) {
            let design = self.repo.doc(Path::new(DESIGN)).unwrap();
            if !design.titles.contains(&m[1].to_lowercase()) {
                let problem = format!("{DESIGN} has no section \"{}\"", &m[1]);
                self.report(m.get(0).unwrap().start(), problem);
            }
        }
    }

    /// "docs/options.md ruling 12": item 12 of that document's section "Rulings".
    fn rulings(&mut self) {
        let text = self.flow.text.clone();
        for m in RULINGS.captures_iter(&text) {
            let offset = m.get(0).unwrap().start();
            let Some(path) = self.repo.resolve(self.file, &format!("{}.md", &m[1])) else {
                continue; // reported by `documents`
            };
            let shown = path.display().to_string();
            let problems: Vec<String> = match self
                .repo
                .doc(&path)
                .and_then(|d| d.sections.get("#rulings"))
            {
                None => vec![format!("{shown} has no section \"Rulings\"")],
                Some(items) => numbers(&m[2])
                    .filter(|n| !items.contains(*n))
                    .map(|n| format!("{shown} has no ruling {n}"))
                    .collect(),
            };
            for problem in problems {
                self.report(offset, problem);
            }
        }
    }

    /// docs/rules.md's own "ruling #13", and the test files and tests it names.
    fn own_references(&mut self) {
        let text = self.flow.text.clone();
        let rulings = self.repo.doc(Path::new(RULES)).unwrap().sections["9.2"].clone();
        for m in RULING_HERE.captures_iter(&text) {
            if !rulings.contains(&m[1]) {
                self.report(
                    m.get(0).unwrap().start(),
                    format!("§9.2 has no ruling #{}", &m[1]),
                );
            }
        }
        for m in TEST_PATH.captures_iter(&text) {
            let name = &m[1];
            let found = [PathBuf::from(name), Path::new("tests/scenarios").join(name)]
                .iter()
                .any(|p| matches_any(&self.repo.root, p));
            if !found {
                let problem = format!("names `{name}`, which does not exist");
                self.report(m.get(0).unwrap().start(), problem);
            }
        }
        let tests = test_functions(&self.repo.root);
        for m in TEST_NAME.captures_iter(&text) {
            if !tests.contains(&m[1]) {
                let problem = format!("there is no test `{}` in tests/", &m[1]);
                self.report(m.get(0).unwrap().start(), problem);
            }
        }
    }

    /// Every document named in passing: in the repository, not beside it.
    fn documents(&mut self) {
        let text = self.flow.text.clone();
        for m in MENTION.find_iter(&text) {
            let word_start = text[..m.start()]
                .rfind(|c: char| c.is_whitespace() || "([<`'\"".contains(c))
                .map_or(0, |i| i + 1);
            let word = &text[word_start..m.end()];
            if word.contains("://") || word.contains('{') {
                continue;
            }
            let name = m.as_str();
            if name.contains("shared/") {
                let problem = format!(
                    "`{name}` is outside the repository (a clone has no shared folder): cite the repository's own document"
                );
                self.report(m.start(), problem);
            } else if self.repo.resolve(self.file, name).is_none() {
                self.report(
                    m.start(),
                    format!("names `{name}`, which is not in the repository"),
                );
            }
        }
    }
}

/// The numbers of a list such as "5 and 6" or "1, 2 or 3".
fn numbers(list: &str) -> impl Iterator<Item = &str> {
    list.split([',', ' ']).filter(|s| s.parse::<u32>().is_ok())
}

/// The names of the functions in tests/ (the tests docs/rules.md names by name).
fn test_functions(root: &Path) -> BTreeSet<String> {
    static FUNCTION: LazyLock<Regex> = LazyLock::new(|| re(r"\bfn ([a-z0-9_]+)"));
    let mut files = Vec::new();
    walk(&root.join("tests"), &mut files);
    files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "rs"))
        .filter_map(|f| fs::read_to_string(f).ok())
        .flat_map(|s| {
            FUNCTION
                .captures_iter(&s)
                .map(|m| m[1].to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Whether a path, possibly with `*` in its last part, names at least one file or folder.
fn matches_any(root: &Path, path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string());
    match name {
        Some(n) if n.contains('*') => {
            let pattern = re(&format!("^{}$", regex::escape(&n).replace(r"\*", ".*")));
            let dir = root.join(path.parent().unwrap());
            fs::read_dir(dir).is_ok_and(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .any(|e| pattern.is_match(&e.file_name().to_string_lossy()))
            })
        }
        _ => root.join(path).exists(),
    }
}

fn check_links(repo: &mut Repo, file: &Path, source: &str, problems: &mut Vec<String>) {
    static CODE_SPAN: LazyLock<Regex> = LazyLock::new(|| re(r"`[^`]*`"));
    for (line_number, line) in prose(source) {
        let line = CODE_SPAN.replace_all(line, "");
        for m in LINK.captures_iter(&line) {
            let target = &m[1];
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
            let here = format!("{}:{line_number}", file.display());
            let resolved = if path.is_empty() {
                Some(file.to_path_buf())
            } else {
                inside(&file.parent().unwrap_or(Path::new("")).join(path))
            };
            let Some(resolved) = resolved.filter(|p| repo.root.join(p).exists()) else {
                problems.push(format!(
                    "{here}: the link `{target}` leads to nothing in the repository"
                ));
                continue;
            };
            if anchor.is_empty() || resolved.extension().is_none_or(|e| e != "md") {
                continue;
            }
            let has = repo
                .doc(&resolved)
                .is_some_and(|d| d.anchors.contains(anchor));
            if !has {
                problems.push(format!(
                    "{here}: the link `{target}`: {} has no heading `#{anchor}`",
                    resolved.display()
                ));
            }
        }
    }
}

#[test]
fn a_citation_reads_sections_items_and_ranges() {
    let parse = |s: &str, after: bool| {
        cited(s, after)
            .0
            .into_iter()
            .map(|c| (c.section, c.items, c.to))
            .collect::<Vec<_>>()
    };
    let s = |v: &str| v.to_string();
    assert_eq!(
        parse("§2 step 1.1, 7.4.2)", true),
        vec![(s("2"), vec![s("1.1")], None), (s("7.4.2"), vec![], None)]
    );
    assert_eq!(
        parse("§2 steps 1, 2 and 5.2", false),
        vec![(s("2"), vec![s("1"), s("2"), s("5.2")], None)]
    );
    assert_eq!(
        parse("§8.9 #9 and #25: A", false),
        vec![(s("8.9"), vec![s("9"), s("25")], None)]
    );
    assert_eq!(
        parse("§9.2 #11-12.", false),
        vec![(s("9.2"), vec![s("11"), s("12")], None)]
    );
    assert_eq!(parse("§6.4–6.6, §7.3", false)[0].2, Some(s("6.6")));
    assert_eq!(parse("§6.4–6.6, §7.3", false).len(), 2);
    // A year or a plain number after a comma is not a section.
    assert_eq!(parse("4.1, 1994 FAQ", true).len(), 1);
    assert_eq!(parse("§8.6, 12 damage", false).len(), 1);
    assert_eq!(normal("4.A"), "4a");
    assert_eq!(normal("#22"), "22");
    assert_eq!(slug("7.4 Power down"), "74-power-down");
    assert_eq!(
        slug("`rally play` and [docs](rules.md)"),
        "rally-play-and-docs"
    );
}

#[test]
fn a_document_marks_sections_and_items() {
    let doc = parse_doc(
        "# T\n## 7. Flags\n### 7.4 Power down\n1. one\n2. two\n- **5a** five a\n\
         ```\n3. not an item in code\n```\n## 9. Rulings\n### 9.2 List\n22. **Fire Control.**\n",
    );
    assert!(doc.sections["7.4"].contains("1") && doc.sections["7.4"].contains("5a"));
    assert!(!doc.sections["7.4"].contains("3"));
    assert!(
        doc.sections["7"].contains("2"),
        "a section holds its subsections' items"
    );
    let nine = |items: &[&str]| Cited {
        section: "9".into(),
        items: items.iter().map(|s| s.to_string()).collect(),
        to: None,
    };
    assert!(check(&doc, "d", &nine(&["22"])).is_none());
    assert!(check(&doc, "d", &nine(&["23"])).is_some());
    let item_as_section = Cited {
        section: "7.4.2".into(),
        items: vec![],
        to: None,
    };
    assert!(check(&doc, "d", &item_as_section).is_none());
    assert!(doc.anchors.contains("74-power-down"));
}
