//! Finds functions that assign a local of their file: `calls = calls + 1` in a handler, with
//! `local calls = 0` at the top of the file. Such a local lives as long as the rule set, so it
//! would survive rollbacks and games and make `rally sim` depend on `--threads` (design.md
//! principle 1: state lives in vars). Tables reachable that way are made read-only after the
//! file loads (`views::keep`); a plain value can only be caught here, before the file runs, by
//! reading the compiled chunk (Lua 5.4's dump format, ldump.c) for `SETUPVAL` instructions
//! whose upvalue leads to a local of the main chunk (or to `_ENV`).

use super::bytecode::{Proto, Reader};
use mlua::Function;

/// `SETUPVAL A B`: UpValue[B] := R[A] (lopcodes.h).
const OP_SETUPVAL: u32 = 10;

/// Refuses a chunk whose functions assign a local of the file; the error names the line.
pub fn check(chunk: &Function, file: &str) -> Result<(), String> {
    let read = |strip: bool| -> Result<(), String> {
        let dump = chunk.dump(strip);
        let main = Reader::new(&dump)
            .chunk()
            .ok_or_else(|| format!("{file}: internal error: cannot read the compiled chunk"))?;
        scan(&main, &mut Vec::new(), file)
    };
    // The stripped chunk is quick to read; a refused one is read again for its lines and names.
    read(true).or_else(|_| read(false))
}

fn scan<'a>(proto: &'a Proto, outer: &mut Vec<&'a Proto>, file: &str) -> Result<(), String> {
    for (pc, &ins) in proto.code.iter().enumerate() {
        if ins & 0x7f != OP_SETUPVAL {
            continue;
        }
        let upvalue = ((ins >> 16) & 0xff) as usize;
        if writes_file_local(proto, outer, upvalue) {
            let name = proto
                .upvalue_names
                .get(upvalue)
                .cloned()
                .unwrap_or_else(|| "?".into());
            return Err(format!(
                "{file}:{}: this function assigns `{name}`, a local of the file: it would keep state between calls (surviving rollbacks and games); keep state in vars: ctx:set_var(robot, key, value) or ctx:set_game_var(key, value)",
                proto.line(pc)
            ));
        }
    }
    outer.push(proto);
    for child in &proto.protos {
        scan(child, outer, file)?;
    }
    outer.pop();
    Ok(())
}

/// Does upvalue `index` of `proto` (nested in `outer`, the main chunk first) lead to a local
/// of the main chunk, or to the main chunk's own upvalue `_ENV`?
fn writes_file_local(proto: &Proto, outer: &[&Proto], index: usize) -> bool {
    let (mut proto, mut index, mut depth) = (proto, index, outer.len());
    loop {
        if depth == 0 {
            return true; // the main chunk's upvalue: _ENV
        }
        let Some(&(in_stack, slot)) = proto.upvalues.get(index) else {
            return false;
        };
        if in_stack {
            return depth == 1; // a local of the enclosing function: the file's, or a call's
        }
        proto = outer[depth - 1];
        index = slot as usize;
        depth -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlua::Lua;

    fn verdict(source: &str) -> Result<(), String> {
        let lua = Lua::new();
        let f = lua.load(source).set_name("@t.lua").into_function().unwrap();
        check(&f, "t.lua")
    }

    #[test]
    fn a_handler_assigning_a_file_local_is_refused_with_its_line() {
        let err = verdict(
            "local calls = 0\nlocal x = 1\nreturn function()\n  x = 2\n  calls = calls + 1\nend",
        )
        .unwrap_err();
        assert!(err.starts_with("t.lua:4: ") && err.contains("`x`"), "{err}");
    }

    #[test]
    fn nested_functions_reach_the_file_through_their_parents() {
        let err =
            verdict("local n = 0\nreturn function()\n  return function()\n    n = 1\n  end\nend")
                .unwrap_err();
        assert!(err.starts_with("t.lua:4: ") && err.contains("`n`"), "{err}");
    }

    #[test]
    fn assigning_env_is_refused() {
        assert!(verdict("return function() _ENV = {} end").is_err());
        assert!(verdict("_ENV = {}").is_err());
    }

    #[test]
    fn a_call_s_own_locals_and_the_main_chunk_are_free() {
        verdict("local a = 1\na = 2\nreturn function()\n  local n = 0\n  local function bump() n = n + 1 end\n  bump()\n  return n + a\nend").unwrap();
    }

    #[test]
    fn lines_are_right_far_into_a_long_function() {
        let mut source = String::from("local n = 0\nreturn function()\n  local x = 0\n");
        for _ in 0..300 {
            source.push_str("  x = x + 1\n");
        }
        source.push_str("  n = x\nend");
        let err = verdict(&source).unwrap_err();
        assert!(err.starts_with("t.lua:304: "), "{err}");
    }
}
