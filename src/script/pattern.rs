//! Lua's pattern functions (`string.find`, `match`, `gmatch`, `gsub`) with a budget. Lua's own
//! matcher runs in C and never reaches the count hook, so `("a"):rep(40):find(("a*"):rep(20)
//! .. "b")` would backtrack for ages. This is the same matcher (lstrlib.c, Lua 5.4, ported
//! line for line, same results and errors) counting its steps against the call's budget.

use super::sandbox::Budget;
use mlua::{Lua, LuaString, MultiValue, Table, Value};
use std::cell::Cell;
use std::rc::Rc;

/// Deepest recursion of `do_match` (lstrlib.c's MAXCCALLS).
const MAX_DEPTH: usize = 200;
const MAX_CAPTURES: usize = 32;
const ESC: u8 = b'%';
const SPECIALS: &[u8] = b"^$*+?.([%-";
/// Steps counted locally before they are charged to the budget.
const CHARGE_EVERY: i64 = 4096;

/// How much a `gsub` result grows between two checks against the memory limit.
const GROWTH: usize = 64 << 10;

/// Replaces the four pattern functions of `string` with budgeted ones.
pub fn install(lua: &Lua, string: &Table, budget: Rc<Budget>) -> mlua::Result<()> {
    let b = budget.clone();
    string.raw_set(
        "find",
        lua.create_function(move |lua, args: MultiValue| find(lua, &b, args, true))?,
    )?;
    let b = budget.clone();
    string.raw_set(
        "match",
        lua.create_function(move |lua, args: MultiValue| find(lua, &b, args, false))?,
    )?;
    let b = budget.clone();
    string.raw_set(
        "gmatch",
        lua.create_function(move |lua, args: MultiValue| gmatch(lua, &b, args))?,
    )?;
    string.raw_set(
        "gsub",
        lua.create_function(move |lua, args: MultiValue| gsub(lua, &budget, args))?,
    )?;
    Ok(())
}

type Result<T> = mlua::Result<T>;

fn arg_error(lua: &Lua, n: usize, name: &str, expected: &str, got: &Value) -> mlua::Error {
    super::located(
        lua,
        format!(
            "bad argument #{n} to '{name}' ({expected} expected, got {})",
            got.type_name()
        ),
    )
}

/// A string argument (numbers are turned into strings, as Lua does).
fn string_arg(lua: &Lua, args: &MultiValue, n: usize, name: &str) -> Result<LuaString> {
    let v = args.get(n - 1).cloned().unwrap_or(Value::Nil);
    match &v {
        Value::String(s) => Ok(s.clone()),
        Value::Integer(_) | Value::Number(_) => lua
            .coerce_string(v.clone())?
            .ok_or_else(|| arg_error(lua, n, name, "string", &v)),
        _ => Err(arg_error(lua, n, name, "string", &v)),
    }
}

fn int_arg(lua: &Lua, args: &MultiValue, n: usize, name: &str) -> Result<Option<i64>> {
    match args.get(n - 1).cloned().unwrap_or(Value::Nil) {
        Value::Nil => Ok(None),
        v => match lua.coerce_integer(v.clone())? {
            Some(i) => Ok(Some(i)),
            None => Err(match &v {
                Value::Number(_) | Value::String(_) => super::located(
                    lua,
                    format!("bad argument #{n} to '{name}' (number has no integer representation)"),
                ),
                _ => arg_error(lua, n, name, "number", &v),
            }),
        },
    }
}

/// lstrlib.c's `posrelatI`: a 1-based start position, negative from the end.
fn start_at(pos: i64, len: usize) -> usize {
    if pos > 0 {
        pos as usize
    } else if pos == 0 || pos.unsigned_abs() as usize > len {
        1
    } else {
        len - pos.unsigned_abs() as usize + 1
    }
}

#[derive(Clone, Copy)]
enum Cap {
    Unfinished,
    Position,
    Len(usize),
}

struct Matcher<'a> {
    lua: &'a Lua,
    budget: &'a Budget,
    src: &'a [u8],
    pat: &'a [u8],
    depth: usize,
    level: usize,
    capture: [(usize, Cap); MAX_CAPTURES],
    steps: i64,
}

/// The byte at `i`, or 0 past the end (C strings end in NUL, and lstrlib.c reads it).
fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

fn class_matches(c: u8, class: u8) -> bool {
    let res = match class.to_ascii_lowercase() {
        b'a' => c.is_ascii_alphabetic(),
        b'c' => c.is_ascii_control(),
        b'd' => c.is_ascii_digit(),
        b'g' => c.is_ascii_graphic(),
        b'l' => c.is_ascii_lowercase(),
        b'p' => c.is_ascii_punctuation(),
        b's' => c == b' ' || (9..=13).contains(&c),
        b'u' => c.is_ascii_uppercase(),
        b'w' => c.is_ascii_alphanumeric(),
        b'x' => c.is_ascii_hexdigit(),
        b'z' => c == 0,
        _ => return class == c,
    };
    if class.is_ascii_lowercase() {
        res
    } else {
        !res
    }
}

impl<'a> Matcher<'a> {
    fn new(lua: &'a Lua, budget: &'a Budget, src: &'a [u8], pat: &'a [u8]) -> Matcher<'a> {
        Matcher {
            lua,
            budget,
            src,
            pat,
            depth: MAX_DEPTH,
            level: 0,
            capture: [(0, Cap::Unfinished); MAX_CAPTURES],
            steps: 0,
        }
    }

    fn reset(&mut self) {
        self.depth = MAX_DEPTH;
        self.level = 0;
    }

    fn error(&self, message: impl std::fmt::Display) -> mlua::Error {
        super::located(self.lua, message)
    }

    /// Counts `n` steps; every few thousand are charged to the call's budget.
    fn tick(&mut self, n: usize) -> Result<()> {
        self.steps += n as i64;
        if self.steps >= CHARGE_EVERY {
            self.flush()?;
        }
        Ok(())
    }

    /// The result grew from `before` to `after` bytes: charged a step for each 16 bytes,
    /// and checked against the memory limit each time it passes another [`GROWTH`] bytes,
    /// so that it never outgrows what the scripts may hold.
    fn grown(&mut self, before: usize, after: usize) -> Result<()> {
        self.tick((after - before) / 16)?;
        if after / GROWTH != before / GROWTH {
            self.flush()?;
            self.budget.room(self.lua, after as f64)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let steps = std::mem::take(&mut self.steps);
        self.budget.charge(self.lua, steps)
    }

    fn class_end(&self, mut p: usize) -> Result<usize> {
        let c = at(self.pat, p);
        p += 1;
        match c {
            ESC => {
                if p >= self.pat.len() {
                    return Err(self.error("malformed pattern (ends with '%')"));
                }
                Ok(p + 1)
            }
            b'[' => {
                if at(self.pat, p) == b'^' {
                    p += 1;
                }
                loop {
                    if p >= self.pat.len() {
                        return Err(self.error("malformed pattern (missing ']')"));
                    }
                    let c = self.pat[p];
                    p += 1;
                    if c == ESC && p < self.pat.len() {
                        p += 1;
                    }
                    if at(self.pat, p) == b']' {
                        return Ok(p + 1);
                    }
                }
            }
            _ => Ok(p),
        }
    }

    /// `p` is at '[', `end` at its ']'.
    fn bracket_matches(&self, c: u8, mut p: usize, end: usize) -> bool {
        let mut sig = true;
        if at(self.pat, p + 1) == b'^' {
            sig = false;
            p += 1;
        }
        loop {
            p += 1;
            if p >= end {
                return !sig;
            }
            if self.pat[p] == ESC {
                p += 1;
                if class_matches(c, at(self.pat, p)) {
                    return sig;
                }
            } else if at(self.pat, p + 1) == b'-' && p + 2 < end {
                p += 2;
                if self.pat[p - 2] <= c && c <= self.pat[p] {
                    return sig;
                }
            } else if self.pat[p] == c {
                return sig;
            }
        }
    }

    fn single_match(&self, s: usize, p: usize, ep: usize) -> bool {
        if s >= self.src.len() {
            return false;
        }
        let c = self.src[s];
        match self.pat[p] {
            b'.' => true,
            ESC => class_matches(c, at(self.pat, p + 1)),
            b'[' => self.bracket_matches(c, p, ep - 1),
            other => other == c,
        }
    }

    fn match_balance(&mut self, s: usize, p: usize) -> Result<Option<usize>> {
        if p + 1 >= self.pat.len() {
            return Err(self.error("malformed pattern (missing arguments to '%b')"));
        }
        if at(self.src, s) != self.pat[p] {
            return Ok(None);
        }
        let (open, close) = (self.pat[p], self.pat[p + 1]);
        let mut depth = 1;
        let mut i = s + 1;
        while i < self.src.len() {
            let c = self.src[i];
            if c == close {
                depth -= 1;
                if depth == 0 {
                    self.tick(i - s)?;
                    return Ok(Some(i + 1));
                }
            } else if c == open {
                depth += 1;
            }
            i += 1;
        }
        self.tick(i - s)?;
        Ok(None)
    }

    fn max_expand(&mut self, s: usize, p: usize, ep: usize) -> Result<Option<usize>> {
        let mut i = 0;
        while self.single_match(s + i, p, ep) {
            i += 1;
        }
        self.tick(i)?;
        loop {
            if let Some(res) = self.do_match(s + i, ep + 1)? {
                return Ok(Some(res));
            }
            if i == 0 {
                return Ok(None);
            }
            i -= 1;
        }
    }

    fn min_expand(&mut self, mut s: usize, p: usize, ep: usize) -> Result<Option<usize>> {
        loop {
            if let Some(res) = self.do_match(s, ep + 1)? {
                return Ok(Some(res));
            }
            if self.single_match(s, p, ep) {
                s += 1;
            } else {
                return Ok(None);
            }
        }
    }

    fn start_capture(&mut self, s: usize, p: usize, what: Cap) -> Result<Option<usize>> {
        if self.level >= MAX_CAPTURES {
            return Err(self.error("too many captures"));
        }
        self.capture[self.level] = (s, what);
        self.level += 1;
        let res = self.do_match(s, p)?;
        if res.is_none() {
            self.level -= 1;
        }
        Ok(res)
    }

    fn end_capture(&mut self, s: usize, p: usize) -> Result<Option<usize>> {
        let l = (0..self.level)
            .rev()
            .find(|&l| matches!(self.capture[l].1, Cap::Unfinished))
            .ok_or_else(|| self.error("invalid pattern capture"))?;
        self.capture[l].1 = Cap::Len(s - self.capture[l].0);
        let res = self.do_match(s, p)?;
        if res.is_none() {
            self.capture[l].1 = Cap::Unfinished;
        }
        Ok(res)
    }

    fn check_capture(&self, l: u8) -> Result<usize> {
        let l = l.wrapping_sub(b'1') as usize;
        match self.capture.get(l) {
            Some((_, Cap::Len(_) | Cap::Position)) if l < self.level => Ok(l),
            _ => Err(self.error(format!(
                "invalid capture index %{}",
                l.wrapping_add(1) as u8 as i8
            ))),
        }
    }

    fn match_capture(&mut self, s: usize, l: u8) -> Result<Option<usize>> {
        let l = self.check_capture(l)?;
        let (init, cap) = self.capture[l];
        // A position capture has no text: it matches as the empty string (lstrlib.c reads its
        // length as (size_t)-2, which never fits).
        let Cap::Len(len) = cap else { return Ok(None) };
        self.tick(len)?;
        if self.src.len() - s >= len && self.src[init..init + len] == self.src[s..s + len] {
            Ok(Some(s + len))
        } else {
            Ok(None)
        }
    }

    fn do_match(&mut self, mut s: usize, mut p: usize) -> Result<Option<usize>> {
        if self.depth == 0 {
            return Err(self.error("pattern too complex"));
        }
        self.depth -= 1;
        let result = loop {
            self.tick(1)?;
            if p == self.pat.len() {
                break Some(s);
            }
            match self.pat[p] {
                b'(' => {
                    break if at(self.pat, p + 1) == b')' {
                        self.start_capture(s, p + 2, Cap::Position)?
                    } else {
                        self.start_capture(s, p + 1, Cap::Unfinished)?
                    };
                }
                b')' => break self.end_capture(s, p + 1)?,
                b'$' if p + 1 == self.pat.len() => {
                    break (s == self.src.len()).then_some(s);
                }
                ESC if at(self.pat, p + 1) == b'b' => match self.match_balance(s, p + 2)? {
                    Some(e) => {
                        s = e;
                        p += 4;
                        continue;
                    }
                    None => break None,
                },
                ESC if at(self.pat, p + 1) == b'f' => {
                    p += 2;
                    if at(self.pat, p) != b'[' {
                        return Err(self.error("missing '[' after '%f' in pattern"));
                    }
                    let ep = self.class_end(p)?;
                    let previous = if s == 0 { 0 } else { self.src[s - 1] };
                    if !self.bracket_matches(previous, p, ep - 1)
                        && self.bracket_matches(at(self.src, s), p, ep - 1)
                    {
                        p = ep;
                        continue;
                    }
                    break None;
                }
                ESC if at(self.pat, p + 1).is_ascii_digit() => {
                    match self.match_capture(s, self.pat[p + 1])? {
                        Some(e) => {
                            s = e;
                            p += 2;
                            continue;
                        }
                        None => break None,
                    }
                }
                _ => {
                    let ep = self.class_end(p)?;
                    let suffix = at(self.pat, ep);
                    if !self.single_match(s, p, ep) {
                        if matches!(suffix, b'*' | b'?' | b'-') {
                            p = ep + 1;
                            continue;
                        }
                        break None;
                    }
                    match suffix {
                        b'?' => {
                            if let Some(res) = self.do_match(s + 1, ep + 1)? {
                                break Some(res);
                            }
                            p = ep + 1;
                            continue;
                        }
                        b'+' => break self.max_expand(s + 1, p, ep)?,
                        b'*' => break self.max_expand(s, p, ep)?,
                        b'-' => break self.min_expand(s, p, ep)?,
                        _ => {
                            s += 1;
                            p = ep;
                            continue;
                        }
                    }
                }
            }
        };
        self.depth += 1;
        Ok(result)
    }

    /// Capture `i` (or the whole match `s..e` when there are none) as a Lua value.
    fn capture_value(&self, i: usize, s: usize, e: usize) -> Result<Value> {
        if i >= self.level {
            if i != 0 {
                return Err(self.error(format!("invalid capture index %{}", i + 1)));
            }
            return Ok(Value::String(self.lua.create_string(&self.src[s..e])?));
        }
        let (init, cap) = self.capture[i];
        match cap {
            Cap::Unfinished => Err(self.error("unfinished capture")),
            Cap::Position => Ok(Value::Integer(init as i64 + 1)),
            Cap::Len(len) => Ok(Value::String(
                self.lua.create_string(&self.src[init..init + len])?,
            )),
        }
    }

    /// Every capture, or the whole match when there are none (`whole` = None: nothing then).
    fn captures(&self, whole: Option<(usize, usize)>) -> Result<MultiValue> {
        let n = if self.level == 0 && whole.is_some() {
            1
        } else {
            self.level
        };
        let (s, e) = whole.unwrap_or((0, 0));
        (0..n).map(|i| self.capture_value(i, s, e)).collect()
    }
}

fn no_specials(pat: &[u8]) -> bool {
    !pat.iter().any(|c| SPECIALS.contains(c))
}

fn find(lua: &Lua, budget: &Budget, args: MultiValue, find: bool) -> Result<MultiValue> {
    let name = if find { "find" } else { "match" };
    let src = string_arg(lua, &args, 1, name)?;
    let pat = string_arg(lua, &args, 2, name)?;
    let (src, pat) = (src.as_bytes(), pat.as_bytes());
    let init = start_at(int_arg(lua, &args, 3, name)?.unwrap_or(1), src.len()) - 1;
    let fail = || Ok(MultiValue::from_iter([Value::Nil]));
    if init > src.len() {
        return fail();
    }
    let plain = args
        .get(3)
        .is_some_and(|v| !matches!(v, Value::Nil | Value::Boolean(false)));
    if find && (plain || no_specials(&pat)) {
        budget.charge(lua, (src.len() - init) as i64 / 16)?;
        let hay = &src[init..];
        let found = if pat.is_empty() {
            Some(0)
        } else {
            hay.windows(pat.len()).position(|w| w == &pat[..])
        };
        return match found {
            Some(i) => Ok(MultiValue::from_iter([
                Value::Integer((init + i + 1) as i64),
                Value::Integer((init + i + pat.len()) as i64),
            ])),
            None => fail(),
        };
    }
    let (anchor, pat) = match pat.first() {
        Some(b'^') => (true, &pat[1..]),
        _ => (false, &pat[..]),
    };
    let mut m = Matcher::new(lua, budget, &src, pat);
    let mut s = init;
    loop {
        m.reset();
        if let Some(e) = m.do_match(s, 0)? {
            m.flush()?;
            return if find {
                let mut out = m.captures(None)?;
                out.push_front(Value::Integer(e as i64));
                out.push_front(Value::Integer(s as i64 + 1));
                Ok(out)
            } else {
                m.captures(Some((s, e)))
            };
        }
        s += 1;
        if anchor || s > src.len() {
            break;
        }
    }
    m.flush()?;
    fail()
}

fn gmatch(lua: &Lua, budget: &Rc<Budget>, args: MultiValue) -> Result<mlua::Function> {
    let src = string_arg(lua, &args, 1, "gmatch")?;
    let pat = string_arg(lua, &args, 2, "gmatch")?;
    let len = src.as_bytes().len();
    let init = start_at(int_arg(lua, &args, 3, "gmatch")?.unwrap_or(1), len) - 1;
    let next = Cell::new(init.min(len + 1));
    let last: Cell<Option<usize>> = Cell::new(None);
    let (budget, made_in) = (budget.clone(), budget.call_id());
    lua.create_function(move |lua, ()| {
        // An iterator is the one native object that carries state: it may not outlive the
        // call that made it (that would be state kept between calls).
        if budget.call_id() != made_in {
            return Err(super::located(
                lua,
                "a gmatch iterator cannot be kept from one call to the next (it would keep state between calls)",
            ));
        }
        let (src, pat) = (src.as_bytes(), pat.as_bytes());
        let mut m = Matcher::new(lua, &budget, &src, &pat);
        let mut s = next.get();
        while s <= src.len() {
            m.reset();
            if let Some(e) = m.do_match(s, 0)? {
                if Some(e) != last.get() {
                    next.set(e);
                    last.set(Some(e));
                    m.flush()?;
                    return m.captures(Some((s, e)));
                }
            }
            s += 1;
        }
        next.set(s);
        m.flush()?;
        Ok(MultiValue::new())
    })
}

fn gsub(lua: &Lua, budget: &Budget, args: MultiValue) -> Result<MultiValue> {
    let src_value = string_arg(lua, &args, 1, "gsub")?;
    let pat = string_arg(lua, &args, 2, "gsub")?;
    let repl = args.get(2).cloned().unwrap_or(Value::Nil);
    let (src, pat) = (src_value.as_bytes(), pat.as_bytes());
    let max = int_arg(lua, &args, 4, "gsub")?.unwrap_or(src.len() as i64 + 1);
    if !matches!(
        repl,
        Value::Integer(_)
            | Value::Number(_)
            | Value::String(_)
            | Value::Table(_)
            | Value::Function(_)
    ) {
        return Err(arg_error(lua, 3, "gsub", "string/function/table", &repl));
    }
    let repl_text = match &repl {
        Value::Integer(_) | Value::Number(_) | Value::String(_) => lua
            .coerce_string(repl.clone())?
            .map(|s| s.as_bytes().to_vec()),
        _ => None,
    };
    let (anchor, pat) = match pat.first() {
        Some(b'^') => (true, &pat[1..]),
        _ => (false, &pat[..]),
    };
    let mut m = Matcher::new(lua, budget, &src, pat);
    let mut out: Vec<u8> = Vec::new();
    let (mut s, mut n, mut changed, mut last) = (0, 0i64, false, None);
    while n < max {
        m.reset();
        match m.do_match(s, 0)? {
            Some(e) if Some(e) != last => {
                n += 1;
                m.flush()?;
                let before = out.len();
                changed |= add_value(&m, &mut out, s, e, &repl, repl_text.as_deref())?;
                m.grown(before, out.len())?;
                m.tick(e - s)?;
                s = e;
                last = Some(e);
            }
            _ if s < src.len() => {
                out.push(src[s]);
                s += 1;
            }
            _ => break,
        }
        if anchor {
            break;
        }
    }
    m.flush()?;
    let result = if changed {
        out.extend_from_slice(&src[s..]);
        Value::String(lua.create_string(&out)?)
    } else {
        Value::String(src_value.clone())
    };
    Ok(MultiValue::from_iter([result, Value::Integer(n)]))
}

/// Appends the replacement of the match `s..e`; says whether it changed the text.
fn add_value(
    m: &Matcher,
    out: &mut Vec<u8>,
    s: usize,
    e: usize,
    repl: &Value,
    text: Option<&[u8]>,
) -> Result<bool> {
    let value = match (repl, text) {
        (_, Some(text)) => {
            let mut i = 0;
            while i < text.len() {
                let c = text[i];
                i += 1;
                if c != ESC {
                    out.push(c);
                    continue;
                }
                let d = at(text, i);
                i += 1;
                match d {
                    ESC => out.push(ESC),
                    b'0' => out.extend_from_slice(&m.src[s..e]),
                    b'1'..=b'9' => match m.capture_value((d - b'1') as usize, s, e)? {
                        Value::String(cap) => out.extend_from_slice(&cap.as_bytes()),
                        Value::Integer(pos) => out.extend_from_slice(pos.to_string().as_bytes()),
                        _ => {}
                    },
                    _ => return Err(m.error("invalid use of '%' in replacement string")),
                }
            }
            return Ok(true);
        }
        (Value::Function(f), _) => f.call::<Value>(m.captures(Some((s, e)))?)?,
        (Value::Table(t), _) => t.get::<Value>(m.capture_value(0, s, e)?)?,
        _ => Value::Nil,
    };
    match value {
        Value::Nil | Value::Boolean(false) => {
            out.extend_from_slice(&m.src[s..e]);
            Ok(false)
        }
        Value::String(_) | Value::Integer(_) | Value::Number(_) => {
            let text = m
                .lua
                .coerce_string(value)?
                .expect("numbers and strings are strings");
            out.extend_from_slice(&text.as_bytes());
            Ok(true)
        }
        other => Err(m.error(format!(
            "invalid replacement value (a {})",
            other.type_name()
        ))),
    }
}

#[cfg(test)]
mod tests {
    //! The port against Lua's own matcher, on patterns that cover every construct.
    use super::*;

    fn both(lua: &Lua, code: &str) -> (String, String) {
        let run = |string: &str| -> String {
            let chunk = format!(
                "local string = {string}\nlocal out = {{}}\nlocal function put(...) local t = table.pack(...) for i = 1, t.n do out[#out + 1] = tostring(t[i]) end out[#out + 1] = '|' end\nlocal ok, e = pcall(function()\n{code}\nend)\nif not ok then out[#out + 1] = 'error: ' .. (tostring(e):match('^[^\\n]*'):gsub('^.-:%d+: ', '')) end\nreturn table.concat(out, ' ')"
            );
            lua.load(chunk)
                .eval::<LuaString>()
                .unwrap()
                .to_string_lossy()
        };
        (run("original"), run("budgeted"))
    }

    #[test]
    fn the_port_gives_lua_s_results_and_errors() {
        let lua = Lua::new();
        let budget = Rc::new(Budget::new());
        budget.reset();
        let original: Table = lua.globals().get("string").unwrap();
        let copy = lua.create_table().unwrap();
        for pair in original.pairs::<Value, Value>() {
            let (k, v) = pair.unwrap();
            copy.raw_set(k, v).unwrap();
        }
        let budgeted = lua.create_table().unwrap();
        install(&lua, &budgeted, budget).unwrap();
        lua.globals().set("original", copy).unwrap();
        lua.globals().set("budgeted", budgeted).unwrap();
        let subjects = [
            "",
            "hello world",
            "  key = value  ",
            "(foo(bar))baz",
            "THE (quick) fox",
            "a,b,,c",
            "x = 10, y = 20",
            "aaa",
            "\0a\0b",
            "über straße",
            "[[x]]",
        ];
        let patterns = [
            "",
            "o",
            "l+",
            "l*",
            "l-",
            "l?",
            "^h",
            "d$",
            "^$",
            ".",
            "%a+",
            "%d+",
            "%s*",
            "%w+",
            "%p",
            "%u",
            "%l+",
            "%x+",
            "%c",
            "%g+",
            "[aeiou]",
            "[^aeiou]+",
            "[a-f]+",
            "[%a_][%w_]*",
            "(%w+)%s*=%s*(%w+)",
            "()ll()",
            "%b()",
            "%f[%w]%w+",
            "(a)%1",
            "(a*(.)%w(%s*))",
            "[]",
            "[^]",
            "%",
            "(",
            ")",
            "%1",
            "%b",
            "%f",
            "%fx",
            "[a-",
            "(()",
            "((a)",
            "%z",
            "[%]]",
            "[]]",
            "[^%s]",
            "x*$",
            ".-b",
            "a-b",
            "(.-),",
            "%S+",
            "%D",
            "%W+",
            "[%w%-]+",
        ];
        for s in subjects {
            for p in patterns {
                let (s, p) = (format!("{s:?}"), format!("{p:?}"));
                let code = format!(
                    "put(string.find({s}, {p}))\nput(string.find({s}, {p}, 3))\nput(string.find({s}, {p}, -2))\nput(string.find({s}, {p}, 1, true))\nput(string.match({s}, {p}))\nput(string.gsub({s}, {p}, '<%0>'))\nput(string.gsub({s}, {p}, '%%', 2))\nput(string.gsub({s}, {p}, function(a, b) return b end))\nput(string.gsub({s}, {p}, {{ o = 'O', l = false }}))\nfor a, b in string.gmatch({s}, {p}) do put(a, b) end"
                );
                let (want, got) = both(&lua, &code);
                assert_eq!(want, got, "subject {s}, pattern {p}");
            }
        }
        for code in [
            "put(string.gsub('abc', '%w', '%2'))",
            "put(string.gsub('abc', '%w', '%x'))",
            "put(string.gsub('abc', '%w', 1.5))",
            "put(string.gsub('abc', '(%w)', {a = {}}))",
            "put(string.gsub('abc', '', '-'))",
            "put(string.find(12345, 3))",
            "put(string.find('abc', 'b', 10))",
            "put(string.find('abc', '', 4))",
            "put(string.find('abc', '', 5))",
            "put(string.gsub('hello', '()', '%1'))",
            "put(string.gsub('abc', '.', {a = 1, b = true}))",
            "for k, v in string.gmatch('a=1, b=2', '(%w+)=(%w+)') do put(k, v) end",
            "for w in string.gmatch('one two', '%a+', 4) do put(w) end",
            "put(string.match(('a'):rep(300), ('(a)'):rep(33)))",
            "put(string.match('x', ('x?'):rep(250) .. ('x'):rep(1)))",
        ] {
            let (want, got) = both(&lua, code);
            assert_eq!(want, got, "{code}");
        }
    }
}
