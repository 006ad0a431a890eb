//! The scripting API reference (docs/api.md), generated from the LuaLS annotations in
//! scripts/types/rally.lua: one source for editor hovers and for the written reference, so
//! the two cannot disagree. tests/lua_api.rs keeps the annotations in step with what the host
//! exposes (through [`parse`]); tests/api_reference.rs keeps docs/api.md in step with the
//! annotations; `rally types --markdown docs/api.md` regenerates it.
//!
//! The annotations follow LuaLS conventions, read strictly:
//! - `---text` lines describe what follows them: a class, a field (`---@field`), a function,
//!   or, between `---@param` tags, the next parameter. Fenced blocks (```` ```lua ````) in a
//!   description are its example.
//! - `---@class NAME` then `local VAR = {}` binds a class to a table whose
//!   `function VAR:name(...)` / `function VAR.name(...)` are its methods and functions.
//! - `---@type T` before `VAR.name = ...` (or a global `NAME = ...`) documents a value.
//!
//! Anything else (an unknown tag, a `@param` that does not match the function's arguments)
//! is an error with the line, so a mistake in the annotations cannot silently drop an entry.

use std::collections::HashMap;
use std::fmt::Write;

/// The annotations the binary carries (`rally types`).
pub const ANNOTATIONS: &str = include_str!("../../scripts/types/rally.lua");
/// Where the annotations live in the repository, for messages.
pub const ANNOTATIONS_PATH: &str = "scripts/types/rally.lua";

/// The parsed annotations: sections (classes, simple types, globals) in file order.
#[derive(Debug, Default)]
pub struct Api {
    pub sections: Vec<Section>,
}

#[derive(Debug)]
pub struct Section {
    /// The class name (`rally.Ctx`), or a title for the simple types and the globals.
    pub name: String,
    pub kind: SectionKind,
    pub doc: String,
    /// The Lua table the class is bound to (`Ctx`, `rally`, `rally.param`), if any.
    pub var: Option<String>,
    pub entries: Vec<Entry>,
    pub line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionKind {
    Class,
    /// `---@alias` names.
    Aliases,
    /// Globals that are no class's members (`params`).
    Globals,
}

#[derive(Debug)]
pub struct Entry {
    /// The member's own name (`move`, `on_enter`, `dirs`).
    pub name: String,
    /// How a script writes it: `ctx:move`, `rally.step`, `on_enter`.
    pub call: String,
    pub doc: String,
    pub kind: EntryKind,
    pub line: usize,
}

#[derive(Debug)]
pub enum EntryKind {
    Function {
        params: Vec<Param>,
        returns: Vec<Return>,
    },
    /// A class field (`---@field`) or a documented value (`---@type`).
    Field {
        ty: String,
        optional: bool,
    },
    Alias {
        ty: String,
    },
}

#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub ty: String,
    pub optional: bool,
    pub doc: String,
}

#[derive(Debug, Clone)]
pub struct Return {
    pub ty: String,
    pub name: String,
    pub doc: String,
}

impl Api {
    /// The section of a class, by class name.
    pub fn class(&self, name: &str) -> Option<&Section> {
        self.sections
            .iter()
            .find(|s| s.kind == SectionKind::Class && s.name == name)
    }

    /// The section of the class bound to a Lua table (`Ctx`, `rally`).
    pub fn bound(&self, var: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.var.as_deref() == Some(var))
    }

    /// Entries that are not described or have no example: every function, declaration key
    /// and step needs both; the fields of a class with an example of its own need a
    /// description only.
    pub fn undocumented(&self) -> Vec<String> {
        let mut missing = Vec::new();
        for s in &self.sections {
            if s.kind == SectionKind::Class && s.doc.trim().is_empty() {
                missing.push(format!(
                    "{}:{}: class {}: no description",
                    ANNOTATIONS_PATH, s.line, s.name
                ));
            }
            for e in &s.entries {
                let place = format!("{}:{}: {}", ANNOTATIONS_PATH, e.line, e.call);
                if e.doc.trim().is_empty() {
                    missing.push(format!("{place}: no description"));
                }
                if own_heading(s, e) && !has_example(&e.doc) {
                    missing.push(format!(
                        "{place}: no example (a ```lua block in its description)"
                    ));
                }
                if let EntryKind::Function { params, .. } = &e.kind {
                    for p in params.iter().filter(|p| p.doc.trim().is_empty()) {
                        missing.push(format!(
                            "{place}: argument `{}` has no meaning (text after its type)",
                            p.name
                        ));
                    }
                }
            }
        }
        missing
    }
}

impl Section {
    /// The names of its entries of one sort.
    pub fn names(&self, functions: bool) -> Vec<String> {
        self.entries
            .iter()
            .filter(|e| matches!(e.kind, EntryKind::Function { .. }) == functions)
            .map(|e| e.name.clone())
            .collect()
    }
}

fn has_example(doc: &str) -> bool {
    doc.contains("```")
}

/// What a run of `---` lines has said so far, until the code line or blank line it documents.
#[derive(Default)]
struct Block {
    /// Description lines not yet given to a tag.
    text: Vec<String>,
    /// The description of the block itself (the lines before its first tag).
    doc: Option<String>,
    class: Option<(String, usize)>,
    fields: Vec<Entry>,
    params: Vec<Param>,
    returns: Vec<Return>,
    ty: Option<String>,
    aliases: Vec<Entry>,
    start: usize,
}

impl Block {
    fn is_empty(&self) -> bool {
        self.doc.is_none() && self.text.is_empty()
    }

    /// The pending description lines: the block's own before its first tag, else the next
    /// tag's.
    fn take_text(&mut self) -> String {
        let text = join(std::mem::take(&mut self.text));
        if self.doc.is_none() {
            self.doc = Some(text);
            String::new()
        } else {
            text
        }
    }

    fn doc(&mut self) -> String {
        let rest = join(std::mem::take(&mut self.text));
        let mut doc = self.doc.take().unwrap_or_default();
        if !rest.is_empty() {
            if !doc.is_empty() {
                doc.push('\n');
            }
            doc.push_str(&rest);
        }
        doc
    }
}

fn join(lines: Vec<String>) -> String {
    lines.join("\n").trim_matches('\n').to_string()
}

/// Reads the annotations. Errors name the line: `scripts/types/rally.lua:12: message`.
pub fn parse(text: &str) -> Result<Api, String> {
    let mut api = Api::default();
    let mut block = Block::default();
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let at = |m: String| format!("{ANNOTATIONS_PATH}:{n}: {m}");
        let line = raw.trim_end();
        if block.is_empty() && block.class.is_none() {
            block.start = n;
        }
        if let Some(tag) = line.strip_prefix("---@") {
            tag_line(&mut block, tag, n).map_err(at)?;
        } else if let Some(doc) = line.strip_prefix("---") {
            block.text.push(doc.to_string());
        } else if line.trim().is_empty() || line.starts_with("--") {
            if line.trim().is_empty() {
                end_block(&mut api, std::mem::take(&mut block), None, n).map_err(at)?;
            }
        } else {
            end_block(&mut api, std::mem::take(&mut block), Some(line), n).map_err(at)?;
        }
    }
    end_block(&mut api, block, None, 0)?;
    Ok(api)
}

fn tag_line(block: &mut Block, tag: &str, line: usize) -> Result<(), String> {
    let (name, rest) = tag.split_once(' ').unwrap_or((tag, ""));
    let rest = rest.trim();
    match name {
        "meta" | "generic" => {}
        "class" => {
            block.take_text();
            let class = rest
                .split_whitespace()
                .next()
                .ok_or("---@class without a name")?;
            block.class = Some((class.to_string(), line));
        }
        "field" => {
            let doc = block.take_text();
            let (name, rest) = word(rest);
            let (ty, desc) = split_type(rest);
            if ty.is_empty() {
                return Err(format!("---@field {name} has no type"));
            }
            let (name, optional) = optional(name);
            block.fields.push(Entry {
                call: name.to_string(),
                name: name.to_string(),
                doc: paragraphs(&doc, &desc),
                kind: EntryKind::Field { ty, optional },
                line,
            });
        }
        "param" => {
            let doc = block.take_text();
            let (name, rest) = word(rest);
            let (ty, desc) = split_type(rest);
            let (name, optional) = optional(name);
            block.params.push(Param {
                name: name.to_string(),
                ty,
                optional,
                doc: paragraphs(&doc, &desc),
            });
        }
        "return" => {
            let doc = block.take_text();
            let (ty, rest) = split_type(rest);
            let (name, desc) = match word(&rest) {
                (w, d) if !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                    (w.to_string(), d.to_string())
                }
                _ => (String::new(), rest.clone()),
            };
            block.returns.push(Return {
                ty,
                name,
                doc: paragraphs(&doc, &desc),
            });
        }
        "type" => {
            block.take_text();
            block.ty = Some(split_type(rest).0);
        }
        "alias" => {
            // A description above an alias is the alias's, even as the block's first tag.
            let mut doc = block.take_text();
            if doc.is_empty() {
                doc = block.doc.replace(String::new()).unwrap_or_default();
            }
            let (name, ty) = word(rest);
            block.aliases.push(Entry {
                name: name.to_string(),
                call: name.to_string(),
                doc,
                kind: EntryKind::Alias {
                    ty: ty.trim().to_string(),
                },
                line,
            });
        }
        other => return Err(format!("unknown annotation ---@{other}")),
    }
    Ok(())
}

/// The first word and the rest.
fn word(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    match text.split_once(char::is_whitespace) {
        Some((w, rest)) => (w, rest.trim_start()),
        None => (text, ""),
    }
}

fn optional(name: &str) -> (&str, bool) {
    match name.strip_suffix('?') {
        Some(n) => (n, true),
        None => (name, false),
    }
}

/// Joins a description written above a tag and the one after it.
fn paragraphs(above: &str, after: &str) -> String {
    let after = after.trim().trim_start_matches('#').trim();
    match (above.is_empty(), after.is_empty()) {
        (true, _) => after.to_string(),
        (_, true) => above.to_string(),
        _ => format!("{after}\n\n{above}"),
    }
}

/// Splits `TYPE description` where the type may hold spaces inside brackets
/// (`fun(ctx: rally.Ctx): integer`, `{ cause: string? }`) and around `|`.
fn split_type(text: &str) -> (String, String) {
    let mut depth = 0i32;
    let chars: Vec<char> = text.chars().collect();
    let mut end = chars.len();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '(' | '{' | '<' | '[' => depth += 1,
            ')' | '}' | '>' | ']' => depth -= 1,
            c if c.is_whitespace() && depth == 0 => {
                let before: String = chars[..i].iter().collect();
                let after: String = chars[i..].iter().collect();
                let before = before.trim_end();
                let after = after.trim_start();
                let continues = before.ends_with([':', '|', ','])
                    || after.starts_with('|')
                    || (before.ends_with(')') && after.starts_with(':'));
                if !continues {
                    end = i;
                    break;
                }
            }
            _ => {}
        }
    }
    let ty: String = chars[..end].iter().collect();
    let rest: String = chars[end..].iter().collect();
    (ty.trim().to_string(), rest.trim().to_string())
}

/// A block ended: at a code line it documents, or at a blank line.
fn end_block(api: &mut Api, mut b: Block, code: Option<&str>, line: usize) -> Result<(), String> {
    let doc = b.doc();
    if !b.aliases.is_empty() {
        let section = gathering(
            api,
            SectionKind::Aliases,
            "Simple types",
            "Names the annotations use for strings with a fixed set of values.",
            b.start,
        );
        section.entries.append(&mut b.aliases);
    }
    let Some(code) = code else {
        if let Some((name, class_line)) = b.class {
            api.sections.push(Section {
                name,
                kind: SectionKind::Class,
                doc,
                var: None,
                entries: b.fields,
                line: class_line,
            });
        } else if !b.params.is_empty()
            || !b.returns.is_empty()
            || b.ty.is_some()
            || !b.fields.is_empty()
        {
            return Err("annotations followed by a blank line: they document nothing".into());
        }
        return Ok(());
    };
    let code = code.trim();
    if let Some(rest) = code.strip_prefix("function ") {
        let (path, args) = rest
            .split_once('(')
            .ok_or_else(|| format!("cannot read `{code}`"))?;
        let args: Vec<&str> = args
            .split(')')
            .next()
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .collect();
        let (owner, name, method) = match path.rsplit_once(':') {
            Some((owner, name)) => (owner, name, true),
            None => path
                .rsplit_once('.')
                .map(|(o, n)| (o, n, false))
                .ok_or_else(|| format!("`{path}` is not a member of a table"))?,
        };
        let declared: Vec<&str> = b.params.iter().map(|p| p.name.as_str()).collect();
        if declared != args {
            return Err(format!(
                "`{path}` takes ({}) but its ---@param tags name ({})",
                args.join(", "),
                declared.join(", ")
            ));
        }
        let call = if method {
            format!("{}:{name}", owner.to_lowercase())
        } else {
            format!("{owner}.{name}")
        };
        let section = bound_section(api, owner)?;
        section.entries.push(Entry {
            name: name.to_string(),
            call,
            doc,
            kind: EntryKind::Function {
                params: b.params,
                returns: b.returns,
            },
            line,
        });
        return Ok(());
    }
    let target = code
        .strip_prefix("local ")
        .unwrap_or(code)
        .split('=')
        .next()
        .unwrap_or_default()
        .trim();
    if let Some((name, class_line)) = b.class {
        // The fields of a class bound to a table read as scripts write them: `ctx.turn`.
        let mut entries = b.fields;
        for e in &mut entries {
            e.call = format!("{}.{}", target.to_lowercase(), e.name);
        }
        api.sections.push(Section {
            name,
            kind: SectionKind::Class,
            doc,
            var: Some(target.to_string()),
            entries,
            line: class_line,
        });
        return Ok(());
    }
    let ty =
        b.ty.ok_or_else(|| format!("`{code}` has no ---@class or ---@type"))?;
    let field = |name: &str, call: String| Entry {
        name: name.to_string(),
        call,
        doc: doc.clone(),
        kind: EntryKind::Field {
            ty: ty.clone(),
            optional: false,
        },
        line,
    };
    match target.rsplit_once('.') {
        Some((owner, name)) => {
            let entry = field(name, target.to_string());
            bound_section(api, owner)?.entries.push(entry);
        }
        None => {
            let entry = field(target, target.to_string());
            let globals = gathering(
                api,
                SectionKind::Globals,
                "Globals",
                "Names a script sees besides `rally` and the safe parts of Lua's standard library.",
                line,
            );
            globals.entries.push(entry);
        }
    }
    Ok(())
}

/// The one section that gathers entries of a kind that belong to no class (simple types,
/// globals), made where the first of them appears.
fn gathering<'a>(
    api: &'a mut Api,
    kind: SectionKind,
    name: &str,
    doc: &str,
    line: usize,
) -> &'a mut Section {
    let i = match api.sections.iter().position(|s| s.kind == kind) {
        Some(i) => i,
        None => {
            api.sections.push(Section {
                name: name.into(),
                kind,
                doc: doc.into(),
                var: None,
                entries: Vec::new(),
                line,
            });
            api.sections.len() - 1
        }
    };
    &mut api.sections[i]
}

fn bound_section<'a>(api: &'a mut Api, var: &str) -> Result<&'a mut Section, String> {
    api.sections
        .iter_mut()
        .find(|s| s.var.as_deref() == Some(var))
        .ok_or_else(|| {
            format!("`{var}` is not bound to a ---@class (`local {var} = {{}}` after the class)")
        })
}

/// The order sections are presented in: how a script is written, then what it works with.
/// Sections not listed here follow in the order of the annotations.
const READING_ORDER: &[&str] = &[
    "rally",
    "rally.ElementDecl",
    "rally.RuleDecl",
    "rally.OptionDecl",
    "rally.VariantToml",
    "rally.VariantParamToml",
    "rally.VariantStepToml",
    "rally.Steps",
    "rally.Ctx",
    "rally.Robot",
    "rally.Tile",
    "rally.Card",
    "rally.MoveInfo",
    "rally.HeldOption",
    "rally.Builder",
    "rally.Draw",
    "rally.param",
    "rally.ParamOpts",
    "rally.ParamSpec",
    "rally.effect",
    "rally.Effect",
    "rally.EffectOpts",
    "rally.Pos",
    "Simple types",
];

/// An HTML anchor for a name: `ctx:move` → `ctx-move`.
fn anchor(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// docs/api.md, from the annotations.
pub fn markdown(api: &Api) -> String {
    let mut sections: Vec<&Section> = READING_ORDER
        .iter()
        .filter_map(|name| api.sections.iter().find(|s| s.name == *name))
        .collect();
    for s in &api.sections {
        if !READING_ORDER.contains(&s.name.as_str()) {
            sections.push(s);
        }
    }
    // Every class and simple type links to its section or entry.
    let mut links: HashMap<String, String> = HashMap::new();
    for s in &sections {
        match s.kind {
            SectionKind::Class => {
                links.insert(s.name.clone(), section_anchor(s));
            }
            _ => {
                for e in &s.entries {
                    if matches!(e.kind, EntryKind::Alias { .. }) {
                        links.insert(e.name.clone(), anchor(&e.name));
                    }
                }
            }
        }
    }
    let mut out = String::new();
    out.push_str(INTRO);
    out.push_str("\n## Contents\n\n");
    for s in &sections {
        let _ = write!(out, "- [{}](#{})", title(s), section_anchor(s));
        let headed: Vec<String> = s
            .entries
            .iter()
            .filter(|e| own_heading(s, e))
            .map(|e| format!("[{}](#{})", e.name, entry_anchor(s, e)))
            .collect();
        if !headed.is_empty() {
            let _ = write!(out, ": {}", headed.join(" · "));
        }
        out.push('\n');
    }
    for s in &sections {
        let _ = write!(
            out,
            "\n<a id=\"{}\"></a>\n\n## {}\n\n",
            section_anchor(s),
            title(s)
        );
        if !s.doc.is_empty() {
            let _ = writeln!(out, "{}\n", s.doc);
        }
        let table: Vec<&Entry> = s.entries.iter().filter(|e| !own_heading(s, e)).collect();
        if !table.is_empty() {
            let head = if s.kind == SectionKind::Aliases {
                "name"
            } else {
                "field"
            };
            let _ = writeln!(out, "| {head} | type | meaning |\n| --- | --- | --- |");
            for e in table {
                let (ty, optional) = match &e.kind {
                    EntryKind::Field { ty, optional } => (ty.as_str(), *optional),
                    EntryKind::Alias { ty } => (ty.as_str(), false),
                    EntryKind::Function { .. } => unreachable!("functions have headings"),
                };
                let _ = writeln!(
                    out,
                    "| <a id=\"{}\"></a>`{}`{} | {} | {} |",
                    entry_anchor(s, e),
                    e.name,
                    if optional { " (optional)" } else { "" },
                    typed(ty, &links, true),
                    one_line(&e.doc)
                );
            }
            out.push('\n');
        }
        for e in s.entries.iter().filter(|e| own_heading(s, e)) {
            entry(&mut out, s, e, &links);
        }
    }
    out
}

const INTRO: &str = "# Scripting API reference

<!-- Generated from scripts/types/rally.lua by `rally types --markdown docs/api.md`. Do not
edit this file: edit the annotations and regenerate it (tests/api_reference.rs fails while
the two disagree). -->

Everything a board element, rule, option or variant script can use, generated from
[`scripts/types/rally.lua`](../scripts/types/rally.lua), the same annotations that give
editors completion and hover help (`rally types -o DIR` writes them out; `rally new` sets a
fresh folder up with them). [Writing a board element](writing-elements.md)
is the gentle introduction; [variants](variants.md) and [options](options.md) explain those
folders.

How to read it: a script **returns a declaration** (`rally.element { ... }`, `rally.rule
{ ... }`, `rally.option { ... }`), whose keys are listed below with what each handler
receives. Handlers attach to the **steps** of the order of play and to moments such as
`on_enter`. Every change goes through **`ctx`**, the handler's first argument. `robot`,
`tile` and `card` are read-only views. Squares are `{ x =, y = }` with `y` growing
southwards; directions are `\"N\"`, `\"E\"`, `\"S\"`, `\"W\"`.
";

fn title(s: &Section) -> String {
    match s.kind {
        SectionKind::Class => format!("`{}`", s.name),
        _ => s.name.clone(),
    }
}

fn section_anchor(s: &Section) -> String {
    anchor(&s.name)
}

fn entry_anchor(s: &Section, e: &Entry) -> String {
    match s.kind {
        SectionKind::Aliases => anchor(&e.name),
        _ if e.call.contains([':', '.']) => anchor(&e.call),
        _ => anchor(&format!("{}.{}", s.name, e.name)),
    }
}

/// Functions, and the fields of classes without an example of their own (declaration keys,
/// steps, `ctx`'s fields, globals), get a heading and an example each; the fields of a data
/// class (`rally.Robot`) are a table under the class's example.
fn own_heading(s: &Section, e: &Entry) -> bool {
    match e.kind {
        EntryKind::Function { .. } => true,
        EntryKind::Field { .. } => s.kind != SectionKind::Aliases && !has_example(&s.doc),
        EntryKind::Alias { .. } => false,
    }
}

/// The description on one line, for a table cell (first paragraph only).
fn one_line(doc: &str) -> String {
    doc.split("\n\n")
        .next()
        .unwrap_or_default()
        .replace('\n', " ")
        .replace('|', "\\|")
}

/// A type with every class or simple type it names linked to its section.
fn typed(ty: &str, links: &HashMap<String, String>, in_table: bool) -> String {
    let mut out = String::new();
    let mut plain = String::new();
    let flush = |plain: &mut String, out: &mut String| {
        if !plain.is_empty() {
            let text = if in_table {
                plain.replace('|', "\\|")
            } else {
                plain.clone()
            };
            let _ = write!(out, "`{text}`");
            plain.clear();
        }
    };
    let chars: Vec<char> = ty.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_alphabetic() || chars[i] == '_' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
            {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            match links.get(&name) {
                Some(a) => {
                    flush(&mut plain, &mut out);
                    let _ = write!(out, "[`{name}`](#{a})");
                }
                None => plain.push_str(&name),
            }
        } else {
            plain.push(chars[i]);
            i += 1;
        }
    }
    flush(&mut plain, &mut out);
    out
}

/// The parameters and return types of a `fun(a: T, b: U): R` type.
fn fun_type(ty: &str) -> Option<(Vec<Param>, Vec<Return>)> {
    let inner = ty.trim().strip_prefix("fun(")?;
    let mut depth = 0;
    let mut close = None;
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '{' | '<' | '[' => depth += 1,
            ')' | '}' | '>' | ']' if depth == 0 => {
                close = Some(i);
                break;
            }
            ')' | '}' | '>' | ']' => depth -= 1,
            _ => {}
        }
    }
    let close = close?;
    let params = split_top(&inner[..close], ',')
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let (name, ty) = p.split_once(':').unwrap_or((p.as_str(), "any"));
            let (name, optional) = optional(name.trim());
            Param {
                name: name.to_string(),
                ty: ty.trim().to_string(),
                optional,
                doc: String::new(),
            }
        })
        .collect();
    let returns = inner[close + 1..]
        .trim()
        .strip_prefix(':')
        .map(|r| {
            vec![Return {
                ty: r.trim().to_string(),
                name: String::new(),
                doc: String::new(),
            }]
        })
        .unwrap_or_default();
    Some((params, returns))
}

/// Splits at `sep` outside brackets.
fn split_top(text: &str, sep: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut depth = 0;
    for c in text.chars() {
        match c {
            '(' | '{' | '<' | '[' => depth += 1,
            ')' | '}' | '>' | ']' => depth -= 1,
            _ => {}
        }
        if c == sep && depth == 0 {
            parts.push(String::new());
        } else {
            parts.last_mut().expect("one part at least").push(c);
        }
    }
    parts
}

/// One entry with its own heading: signature, description, arguments, returns, example.
fn entry(out: &mut String, s: &Section, e: &Entry, links: &HashMap<String, String>) {
    let _ = write!(
        out,
        "<a id=\"{}\"></a>\n\n### {}\n\n",
        entry_anchor(s, e),
        e.call
    );
    let (signature, params, returns) = match &e.kind {
        EntryKind::Function { params, returns } => {
            let args: Vec<String> = params
                .iter()
                .map(|p| format!("{}{}", p.name, if p.optional { "?" } else { "" }))
                .collect();
            let mut signature = format!("{}({})", e.call, args.join(", "));
            if !returns.is_empty() {
                let types: Vec<&str> = returns.iter().map(|r| r.ty.as_str()).collect();
                signature.push_str(&format!("  --> {}", types.join(", ")));
            }
            (signature, params.clone(), returns.clone())
        }
        EntryKind::Field { ty, optional } => match fun_type(ty) {
            Some((params, returns)) => {
                let args: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
                (
                    format!(
                        "{} = function({}) ... end{}",
                        e.call,
                        args.join(", "),
                        if *optional { "  -- optional" } else { "" }
                    ),
                    params,
                    returns,
                )
            }
            None => {
                let _ = writeln!(
                    out,
                    "**Type:** {}{}\n",
                    typed(ty, links, false),
                    if *optional { " (optional)" } else { "" }
                );
                (String::new(), Vec::new(), Vec::new())
            }
        },
        EntryKind::Alias { .. } => unreachable!("aliases are in a table"),
    };
    if !signature.is_empty() {
        let _ = writeln!(out, "```lua\n{signature}\n```\n");
    }
    let (prose, example) = match e.doc.find("```") {
        Some(i) => (e.doc[..i].trim(), e.doc[i..].trim()),
        None => (e.doc.trim(), ""),
    };
    if !prose.is_empty() {
        let _ = writeln!(out, "{prose}\n");
    }
    if !params.is_empty() && params.iter().all(|p| p.doc.is_empty()) {
        // A handler's arguments, from its `fun(...)` type: their types say what they are.
        let args: Vec<String> = params
            .iter()
            .map(|p| format!("`{}` {}", p.name, typed(&p.ty, links, false)))
            .collect();
        let _ = writeln!(out, "**Arguments:** {}\n", args.join(", "));
    } else if !params.is_empty() {
        let _ = writeln!(out, "| argument | type | meaning |\n| --- | --- | --- |");
        for p in &params {
            let _ = writeln!(
                out,
                "| `{}`{} | {} | {} |",
                p.name,
                if p.optional { " (optional)" } else { "" },
                typed(&p.ty, links, true),
                p.doc.replace('\n', " ").replace('|', "\\|")
            );
        }
        out.push('\n');
    }
    for r in &returns {
        let mut line = format!("**Returns** {}", typed(&r.ty, links, false));
        if !r.name.is_empty() {
            let _ = write!(line, " `{}`", r.name);
        }
        if !r.doc.is_empty() {
            let _ = write!(line, ": {}", r.doc.replace('\n', " "));
        }
        let _ = writeln!(out, "{line}\n");
    }
    if !example.is_empty() {
        let _ = writeln!(out, "**Example**\n\n{example}\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_with_spaces_are_read_whole() {
        assert_eq!(
            split_type("fun(ctx: rally.Ctx, tile: rally.Tile): integer|nil the rest"),
            (
                "fun(ctx: rally.Ctx, tile: rally.Tile): integer|nil".into(),
                "the rest".into()
            )
        );
        assert_eq!(
            split_type("{ cause: string?, through: integer? } options"),
            (
                "{ cause: string?, through: integer? }".into(),
                "options".into()
            )
        );
        assert_eq!(
            split_type("string | nil"),
            ("string | nil".into(), String::new())
        );
    }

    #[test]
    fn a_function_block_becomes_an_entry_with_its_params() {
        let api = parse(
            "---A thing.\n---@class T\nlocal T = {}\n\n---Does it.\n---```lua\n---t:go(1)\n---```\n---@param n integer how many\n---Long words\n---@param s? string\n---@return boolean done yes\nfunction T:go(n, s) end\n",
        )
        .unwrap();
        let e = &api.class("T").unwrap().entries[0];
        assert_eq!(e.call, "t:go");
        assert!(e.doc.starts_with("Does it."));
        let EntryKind::Function { params, returns } = &e.kind else {
            panic!()
        };
        assert_eq!(params[0].doc, "how many");
        assert_eq!(params[1].doc, "Long words");
        assert!(params[1].optional);
        assert_eq!(returns[0].name, "done");
        assert!(api.undocumented().is_empty(), "{:?}", api.undocumented());
    }

    #[test]
    fn mismatched_params_and_unknown_tags_are_errors_with_the_line() {
        let err = parse("---@class T\nlocal T = {}\n\n---@param a integer\nfunction T:go(b) end\n")
            .unwrap_err();
        assert!(err.contains(":5:") && err.contains("(b)"), "{err}");
        let err = parse("---@clas T\n").unwrap_err();
        assert!(err.contains(":1:") && err.contains("---@clas"), "{err}");
    }
}
