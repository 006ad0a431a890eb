//! `rally check`: a static pass over every script of a project's layers (built-in, packs,
//! project) and of every variant they offer, before anything runs, so that a mistake on a
//! path no scenario takes is found at once, not when a robot happens to trigger it.
//!
//! Two parts:
//!
//! 1. Each file is compiled (never run) and its bytecode read (`bytecode.rs`): reads and
//!    assignments of globals (`GETTABUP`/`SETTABUP` on `_ENV`), `rally.NAME` (a field read
//!    from the register the global `rally` was just loaded into), and `ctx:NAME(...)` and
//!    `ctx.NAME` (a method or field looked up on the local or upvalue named `ctx`). Why the
//!    bytecode and not a Lua parser crate (full_moon and the like): Lua's own compiler has
//!    already resolved every name (local, upvalue or global) by Lua 5.4's exact rules, so the
//!    check never disagrees with the interpreter that runs the script; the reader is the one
//!    `upvalues.rs` already needed (a few hundred lines, no new dependency); and the line of
//!    each instruction is in the chunk. What bytecode loses (the columns) the messages do
//!    not need. The names come from the annotations (scripts/types/rally.lua), which
//!    tests/lua_api.rs keeps equal to the API, and from the sandbox's list of globals.
//! 2. The rules are loaded as a game would load them (declaration keys, handler names, step
//!    names: `decl.rs`), and each handler's parameters are compared with what its hook
//!    passes (`crate::hooks`): more parameters than it is given, or a parameter named after
//!    another one of the signature (`function(ctx, robot)` as an element's step, which is
//!    given the tile second).
//!
//! The pass reports what is certainly wrong, never a guess: a name is checked only where
//! the bytecode says for sure what it is looked up on.

use super::bytecode::{self, Proto, Reader};
use super::decl::{Handlers, Step};
use super::reference::{self, EntryKind};
use super::{layers, lua_files, sandbox, Defs, Sources};
use crate::error::{Error, Result};
use crate::files::display_path;
use crate::hooks::{Hook, Listener};
use mlua::{Function, Lua, LuaOptions, StdLib};
use std::path::PathBuf;

// Opcodes of Lua 5.4 (lopcodes.h).
const OP_GETUPVAL: u32 = 9;
const OP_GETTABUP: u32 = 11;
const OP_GETFIELD: u32 = 14;
const OP_SETTABUP: u32 = 15;
const OP_SELF: u32 = 20;
const OP_JMP: u32 = 56;
const OP_FORLOOP: u32 = 73;
const OP_FORPREP: u32 = 74;
const OP_TFORPREP: u32 = 75;
const OP_TFORLOOP: u32 = 77;
/// The conditional tests, which skip the next instruction (`EQ` up to `TESTSET`).
const OP_TESTS: std::ops::RangeInclusive<u32> = 57..=67;

/// What `rally check` found: every problem, each an error whose text starts with
/// `file:line:`.
pub struct Report {
    /// The script files read.
    pub files: Vec<PathBuf>,
    pub problems: Vec<Error>,
    /// The rules, loaded once the names were right (`None`: they were not, or they do not
    /// load).
    pub rules: Option<super::RuleSet>,
    /// Why the rules do not load (a declaration's keys or values): one error for each
    /// problem the loader names (it names every unknown key of a file at once).
    pub unloaded: Vec<Error>,
}

impl Report {
    /// Every problem, the loader's last.
    pub fn all(&self) -> impl Iterator<Item = &Error> {
        self.problems.iter().chain(&self.unloaded)
    }
}

/// A message of several problems, one a line, each starting `file:line:`, as its problems
/// (a line that starts with no place belongs to the problem before it).
pub fn split(message: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in message.split('\n') {
        match out.last_mut() {
            Some(last) if !starts_with_place(line) => {
                last.push('\n');
                last.push_str(line);
            }
            _ => out.push(line.to_string()),
        }
    }
    out
}

/// Whether `line` starts `file.ext:line:`.
fn starts_with_place(line: &str) -> bool {
    let mut parts = line.splitn(3, ':');
    let (Some(file), Some(number), Some(_)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    file.contains('.')
        && !file.contains(char::is_whitespace)
        && !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit())
}

/// Checks every script the project of `sources` offers (with `built_in`, the built-in
/// layer's too: they cannot change, so `rally watch` and `rally test` pass them over), then
/// loads the rules and checks their handlers.
pub fn project(sources: &Sources, built_in: bool) -> Result<Report> {
    let layers = sources.project.layers()?;
    let names = Names::new();
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for layer in &layers {
        if layer.kind == layers::Kind::BuiltIn && !built_in {
            continue;
        }
        if let Some(scripts) = &layer.scripts {
            for sub in ["rules", "elements", "options"] {
                for path in lua_files(&scripts.join(sub))? {
                    problems.extend(file(&path, &names, &[]));
                    files.push(path);
                }
            }
        }
    }
    for offered in layers::offered_variants(&layers)? {
        if layers[offered.layer].kind == layers::Kind::BuiltIn && !built_in {
            continue;
        }
        let variant = super::variant::Variant::load(&offered.dir)?;
        for path in variant.files {
            problems.extend(file(&path, &names, &["params"]));
            files.push(path);
        }
    }
    // A script with a wrong name would fail to load, or load and fail later: the names are
    // the clearer report, so the rules are only loaded when they are right.
    let (mut rules, mut unloaded) = (None, Vec::new());
    if problems.is_empty() {
        match super::RuleSet::load(sources) {
            Ok(loaded) => {
                problems.extend(handlers(&loaded.defs));
                rules = Some(loaded);
            }
            Err(Error::Script(m)) => unloaded.extend(split(&m).into_iter().map(Error::Script)),
            Err(e) => unloaded.push(e),
        }
    }
    Ok(Report {
        files,
        problems,
        rules,
        unloaded,
    })
}

/// The rules of `sources` once the project's scripts above the built-in layer pass the
/// check (`rally watch`: a reload with a problem keeps the last good rules); all the
/// problems as one error otherwise.
pub fn checked_rules(sources: &Sources) -> Result<super::RuleSet> {
    let mut report = project(sources, false)?;
    if report.problems.is_empty() {
        if let Some(rules) = report.rules.take() {
            return Ok(rules);
        }
        if report.unloaded.len() == 1 {
            return Err(report.unloaded.remove(0));
        }
    }
    let all: Vec<String> = report.all().map(|e| e.to_string()).collect();
    Err(Error::Script(all.join("\n")))
}

/// The names scripts may use, from the annotations and the sandbox.
pub struct Names {
    rally: Vec<String>,
    ctx: Vec<String>,
}

impl Names {
    pub fn new() -> Names {
        let api = reference::parse(reference::ANNOTATIONS).unwrap_or_else(|e| {
            unreachable!("the built-in annotations parse (tests/api_reference.rs): {e}")
        });
        let section_names = |var: &str| -> Vec<String> {
            api.bound(var)
                .map(|s| s.entries.iter().map(|e| e.name.clone()).collect())
                .unwrap_or_default()
        };
        let mut rally = section_names("rally");
        rally.extend(
            api.sections
                .iter()
                .filter_map(|s| s.var.as_deref()?.strip_prefix("rally."))
                .filter(|name| !name.contains('.'))
                .map(String::from),
        );
        let mut ctx = section_names("Ctx");
        if let Some(class) = api.class("rally.Ctx") {
            ctx.extend(
                class
                    .entries
                    .iter()
                    .filter(|e| !matches!(e.kind, EntryKind::Function { .. }))
                    .map(|e| e.name.clone()),
            );
        }
        Names { rally, ctx }
    }
}

impl Default for Names {
    fn default() -> Names {
        Names::new()
    }
}

/// The problems of one script file: its syntax, then its names.
pub fn file(path: &std::path::Path, names: &Names, extra: &[&str]) -> Vec<Error> {
    let shown = display_path(path);
    match crate::files::read_text(path) {
        Ok(text) => source(&text, &shown, names, extra),
        Err(e) => vec![e],
    }
}

/// The problems of a script's text, named `shown` in messages; `extra`: the globals it has
/// besides everyone's (a variant's `params`).
pub fn source(text: &str, shown: &str, names: &Names, extra: &[&str]) -> Vec<Error> {
    // A bare state compiles the text; nothing of it ever runs.
    let lua = Lua::new_with(StdLib::NONE, LuaOptions::default())
        .unwrap_or_else(|e| unreachable!("an empty Lua state: {e}"));
    let chunk = lua
        .load(text)
        .set_name(format!("@{shown}"))
        .set_mode(mlua::chunk::ChunkMode::Text)
        .into_function();
    let chunk = match chunk {
        Ok(chunk) => chunk,
        Err(e) => return vec![Error::Script(super::lua_message(&e))],
    };
    let Some(main) = read(&chunk) else {
        return vec![Error::Script(format!(
            "{shown}: internal error: cannot read the compiled chunk"
        ))];
    };
    let mut globals = sandbox::known_globals(extra);
    globals.sort();
    let scan = Scan {
        names,
        globals: &globals,
        extra,
    };
    let mut found = Vec::new();
    scan.proto(&main, &mut found);
    found.sort_by_key(|(line, _)| *line);
    found.dedup();
    found
        .into_iter()
        .map(|(line, message)| Error::Script(format!("{shown}:{line}: {message}")))
        .collect()
}

fn read(f: &Function) -> Option<Proto> {
    Reader::new(&f.dump(false)).chunk()
}

struct Scan<'a> {
    names: &'a Names,
    globals: &'a [String],
    extra: &'a [&'a str],
}

impl Scan<'_> {
    fn proto(&self, proto: &Proto, found: &mut Vec<(i64, String)>) {
        let targets = jump_targets(proto);
        // What the register an instruction reads was loaded with by the instruction just
        // before it: the global `rally`, or the upvalue `ctx`.
        let mut loaded: Option<(usize, &str)> = None;
        for (pc, &ins) in proto.code.iter().enumerate() {
            let (op, a, b, c) = (
                bytecode::op(ins),
                bytecode::arg_a(ins),
                bytecode::arg_b(ins),
                bytecode::arg_c(ins),
            );
            let before = loaded.take().filter(|_| !targets.contains(&pc));
            let line = proto.line(pc);
            let env = |upvalue: usize| proto.upvalue_names.get(upvalue).map(String::as_str);
            match op {
                OP_GETTABUP if env(b) == Some("_ENV") => {
                    if let Some(key) = proto.string(c) {
                        if !self.globals.iter().any(|g| g == key) {
                            found.push((line, sandbox::unknown_global(key, self.extra)));
                        } else if key == "rally" {
                            loaded = Some((a, "rally"));
                        }
                    }
                }
                OP_SETTABUP if env(a) == Some("_ENV") => {
                    if let Some(key) = proto.string(b) {
                        found.push((line, format!(
                            "assigns the global `{key}`: scripts keep no globals (declare it with `local`; state lives in vars: ctx:set_var, ctx:set_game_var)"
                        )));
                    }
                }
                OP_GETUPVAL if env(b) == Some("ctx") => loaded = Some((a, "ctx")),
                OP_GETFIELD | OP_SELF => {
                    let key = if op == OP_SELF && !bytecode::arg_k(ins) {
                        None
                    } else {
                        proto.string(c)
                    };
                    let on = match before {
                        Some((register, what)) if register == b => Some(what),
                        _ => (proto.local_name(b, pc) == Some("ctx")).then_some("ctx"),
                    };
                    if let (Some(key), Some(on)) = (key, on) {
                        if let Some(message) = self.member(on, key, op == OP_SELF) {
                            found.push((line, message));
                        }
                    }
                }
                _ => {}
            }
        }
        for child in &proto.protos {
            self.proto(child, found);
        }
    }

    /// The message for `on.key` (`on:key` when `method`), if `on` has no such member.
    fn member(&self, on: &str, key: &str, method: bool) -> Option<String> {
        let known = match on {
            "rally" => &self.names.rally,
            _ => &self.names.ctx,
        };
        if known.iter().any(|k| k == key) {
            return None;
        }
        Some(unknown_member(on, key, method, known))
    }
}

/// `rally.stpe` / `ctx:mvoe` is not part of the API, with the nearest name that is; said the
/// same at run time (`rally.`: `super::RuleSet::load`) and by `rally check`.
pub fn unknown_member(on: &str, key: &str, method: bool, known: &[String]) -> String {
    let sep = if method { ":" } else { "." };
    let suggestion = crate::error::nearest(key, known.iter().map(String::as_str))
        .map(|name| format!(" (did you mean `{on}{sep}{name}`?)"))
        .unwrap_or_default();
    format!("`{on}{sep}{key}` does not exist{suggestion}")
}

/// The instructions a jump can land on: what was loaded before one of them may have come
/// from elsewhere.
fn jump_targets(proto: &Proto) -> Vec<usize> {
    let mut targets = Vec::new();
    for (pc, &ins) in proto.code.iter().enumerate() {
        let pc = pc as i64;
        let target = match bytecode::op(ins) {
            OP_JMP => pc + 1 + bytecode::arg_sj(ins),
            OP_FORLOOP | OP_TFORLOOP => pc + 1 - bytecode::arg_bx(ins),
            OP_FORPREP => pc + 2 + bytecode::arg_bx(ins),
            OP_TFORPREP => pc + 1 + bytecode::arg_bx(ins),
            op if OP_TESTS.contains(&op) => pc + 2,
            _ => continue,
        };
        if target >= 0 {
            targets.push(target as usize);
        }
    }
    targets
}

/// The parameters a handler of `hook` is called with by `listener` (`None`: a step).
fn signature(listener: Listener, hook: Option<Hook>) -> Vec<&'static str> {
    match hook {
        None => match listener {
            Listener::Rules => vec!["ctx"],
            Listener::Options => vec!["ctx", "robot", "option"],
            Listener::Board => vec!["ctx", "tile"],
            Listener::Square => vec!["ctx", "tile", "robot"],
        },
        Some(hook) => hook.spec().params(listener),
    }
}

/// Each handler's parameters against what it is called with.
pub fn handlers(defs: &Defs) -> Vec<Error> {
    let mut out = Vec::new();
    let step = |place: &usize| format!("steps.{}", defs.order[*place].name);
    let tile_step = |place: &usize| format!("tile_steps.{}", defs.order[*place].name);
    for e in &defs.elements {
        for (handlers, listener, key) in [
            (
                &e.steps,
                Listener::Square,
                &step as &dyn Fn(&usize) -> String,
            ),
            (&e.tile_steps, Listener::Board, &tile_step),
        ] {
            for place in handlers.keys() {
                if let Some(Step::Lua(f)) = handlers.get(place) {
                    let expected = signature(listener, None);
                    parameters(&mut out, &e.file, &key(place), f, &expected);
                }
            }
        }
        hooks(&mut out, &e.file, functions(&e.hooks), Listener::Square);
    }
    for r in &defs.rules {
        steps(
            &mut out,
            &r.file,
            functions(&r.steps),
            Listener::Rules,
            step,
        );
        hooks(&mut out, &r.file, r.hooks.iter(), Listener::Rules);
    }
    for o in &defs.options {
        steps(&mut out, &o.file, o.steps.iter(), Listener::Options, step);
        hooks(&mut out, &o.file, o.hooks.iter(), Listener::Options);
        for (key, f) in &o.modify {
            let expected = ["ctx", "robot", "value", "option"];
            parameters(&mut out, &o.file, &format!("modify.{key}"), f, &expected);
        }
        if let Some(shot) = &o.shot {
            let fire = ["ctx", "robot", "target", "option", "info"];
            parameters(&mut out, &o.file, "shot.fire", &shot.fire, &fire);
            for (key, f) in [("shot.can", &shot.can), ("shot.advise", &shot.advise)] {
                if let Some(f) = f {
                    parameters(&mut out, &o.file, key, f, &fire[..4]);
                }
            }
        }
    }
    out
}

fn steps<'h>(
    out: &mut Vec<Error>,
    file: &str,
    handlers: impl Iterator<Item = (&'h usize, &'h Function)>,
    listener: Listener,
    key: impl Fn(&usize) -> String,
) {
    for (place, f) in handlers {
        parameters(out, file, &key(place), f, &signature(listener, None));
    }
}

/// The functions among step or hook handlers (a declared effect has no parameters to check).
fn functions<K: PartialEq>(handlers: &Handlers<K, Step>) -> impl Iterator<Item = (&K, &Function)> {
    handlers.iter().filter_map(|(key, handler)| match handler {
        Step::Lua(f) => Some((key, f)),
        Step::Effect(_) => None,
    })
}

fn hooks<'h>(
    out: &mut Vec<Error>,
    file: &str,
    handlers: impl Iterator<Item = (&'h Hook, &'h Function)>,
    listener: Listener,
) {
    for (hook, f) in handlers {
        let expected = signature(listener, Some(*hook));
        parameters(out, file, hook.key(), f, &expected);
    }
}

/// A handler `key` of `file` called with `expected`: too many parameters (the last ones are
/// always nil), or one named after another parameter of the signature (it gets something
/// else than its name says).
fn parameters(out: &mut Vec<Error>, file: &str, key: &str, f: &Function, expected: &[&str]) {
    let Some(proto) = read(f) else { return };
    let called = format!("function({})", expected.join(", "));
    let at = format!("{file}:{}", proto.line_defined);
    let names = proto.param_names();
    if !proto.is_vararg && names.len() > expected.len() {
        out.push(Error::Script(format!(
            "{at}: `{key}` takes {} parameters ({}), but it is called with {}: {called}",
            names.len(),
            names.join(", "),
            expected.len()
        )));
        return;
    }
    for (i, name) in names.iter().enumerate() {
        let elsewhere = expected.iter().position(|e| e == name);
        if let Some(j) = elsewhere.filter(|&j| j != i) {
            out.push(Error::Script(format!(
                "{at}: parameter {} of `{key}` is named `{name}`, but it is given the {}; `{name}` comes {}: {called}",
                i + 1,
                expected.get(i).copied().unwrap_or("nothing"),
                ordinal(j + 1),
            )));
            return;
        }
    }
}

fn ordinal(n: usize) -> String {
    match n {
        1 => "first".into(),
        2 => "second".into(),
        3 => "third".into(),
        4 => "fourth".into(),
        5 => "fifth".into(),
        n => format!("{n}th"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &str) -> Vec<String> {
        source(text, "t.lua", &Names::new(), &[])
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn the_built_in_scripts_have_no_problems() {
        let names = Names::new();
        let mut read = 0;
        for sub in ["rules", "elements", "options"] {
            let dir = std::path::Path::new(crate::files::builtin::ROOT)
                .join("scripts")
                .join(sub);
            for path in lua_files(&dir).unwrap() {
                let found = file(&path, &names, &[]);
                read += 1;
                assert!(
                    found.is_empty(),
                    "{}: {:?}",
                    path.display(),
                    found.iter().map(|e| e.to_string()).collect::<Vec<_>>()
                );
            }
        }
        assert!(read > 40, "only {read} built-in scripts read");
    }

    #[test]
    fn names_are_checked_where_the_bytecode_is_sure() {
        let found = problems(
            "local function helper(ctx, robot)\n  ctx:mvoe(robot, 'N')\nend\nreturn rally.element {\n  name = 'x',\n  steps = { fire = function(ctx, tile, robot)\n    local p = rally.stpe(robot.at, 'N')\n    local t = os.time()\n    local n = ctx.regster\n    helper(ctx, robot)\n  end },\n}\n",
        );
        assert_eq!(found.len(), 4, "{found:?}");
        assert!(
            found[0].starts_with("t.lua:2: `ctx:mvoe` does not exist (did you mean `ctx:move`?)"),
            "{found:?}"
        );
        assert!(
            found[1]
                .starts_with("t.lua:7: `rally.stpe` does not exist (did you mean `rally.step`?)"),
            "{found:?}"
        );
        assert!(
            found[2].starts_with("t.lua:8: `os` is not available to scripts"),
            "{found:?}"
        );
        assert!(
            found[3].starts_with(
                "t.lua:9: `ctx.regster` does not exist (did you mean `ctx.register`?)"
            ),
            "{found:?}"
        );
    }

    #[test]
    fn an_upvalue_named_ctx_is_ctx_and_a_global_assignment_is_refused() {
        let found = problems("return function(ctx)\n  return function() ctx:dmage() end\nend\n");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("t.lua:2: `ctx:dmage`"), "{found:?}");
        let found = problems("count = 1\nfunction helper() end\n");
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].contains("assigns the global `count`"), "{found:?}");
    }

    #[test]
    fn what_is_not_rally_or_ctx_is_left_alone() {
        // `t` and `other` could be anything: nothing is said about their fields.
        let found = problems(
            "local t = { }\nlocal x = t.anything\nlocal other = rally\nlocal y = (x or rally).whatever\nreturn function(ctx, tile) local z = tile.whatever; local r = rally.dirs; for i = 1, 2 do local s = rally.step end end\n",
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_syntax_error_is_a_problem_with_its_line() {
        let found = problems("local x = \nreturn {");
        assert_eq!(found.len(), 1);
        assert!(found[0].starts_with("t.lua:2:"), "{found:?}");
    }
}
