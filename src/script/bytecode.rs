//! Reads a compiled Lua 5.4 chunk (the dump format of ldump.c) into what the host's checks
//! need of each function: its instructions and their lines, its constants, its parameters,
//! locals and upvalues by name. Reading what Lua's own compiler made, rather than parsing
//! the source a second time, means a check never disagrees with Lua about what a name is
//! (a local, an upvalue, a global): the compiler has already decided (`upvalues.rs`, the
//! file-local check; `check.rs`, `rally check`).

/// An instruction's fields (lopcodes.h: 7 bits of opcode, then A, k, B, C).
pub fn op(ins: u32) -> u32 {
    ins & 0x7f
}
pub fn arg_a(ins: u32) -> usize {
    ((ins >> 7) & 0xff) as usize
}
pub fn arg_k(ins: u32) -> bool {
    (ins >> 15) & 1 != 0
}
pub fn arg_b(ins: u32) -> usize {
    ((ins >> 16) & 0xff) as usize
}
pub fn arg_c(ins: u32) -> usize {
    ((ins >> 24) & 0xff) as usize
}
/// `sJ`, the signed jump of `JMP`.
pub fn arg_sj(ins: u32) -> i64 {
    i64::from(ins >> 7) - ((1 << 24) - 1)
}
/// `Bx`, the unsigned wide argument (loops' jumps).
pub fn arg_bx(ins: u32) -> i64 {
    i64::from(ins >> 15)
}

/// A local variable's name and the instructions it is alive over (`startpc..endpc`).
pub struct LocVar {
    pub name: String,
    pub start: usize,
    pub end: usize,
}

/// One function of a compiled chunk.
pub struct Proto {
    pub line_defined: i64,
    pub num_params: usize,
    pub is_vararg: bool,
    pub code: Vec<u32>,
    /// The constants; only strings are kept (`None` for numbers, booleans, nil).
    pub constants: Vec<Option<String>>,
    /// (in the enclosing function's stack?, index there)
    pub upvalues: Vec<(bool, u8)>,
    pub protos: Vec<Proto>,
    pub line_info: Vec<i8>,
    pub abs_line_info: Vec<(usize, i64)>,
    pub locvars: Vec<LocVar>,
    pub upvalue_names: Vec<String>,
}

impl Proto {
    /// The source line of instruction `pc` (ldebug.c, luaG_getfuncline).
    pub fn line(&self, pc: usize) -> i64 {
        let (mut at, mut line) = self
            .abs_line_info
            .iter()
            .rev()
            .find(|(p, _)| *p <= pc)
            .map(|&(p, l)| (p as i64, l))
            .unwrap_or((-1, self.line_defined));
        while at < pc as i64 {
            at += 1;
            line += i64::from(self.line_info.get(at as usize).copied().unwrap_or(0));
        }
        line
    }

    /// The name of the local in register `register` at instruction `pc`, if it holds one
    /// (lfunc.c, luaF_getlocalname: the active locals fill the registers in order).
    pub fn local_name(&self, register: usize, pc: usize) -> Option<&str> {
        self.locvars
            .iter()
            .filter(|v| v.start <= pc && pc < v.end)
            .nth(register)
            .map(|v| v.name.as_str())
    }

    /// The names of the parameters, in order (unnamed in a stripped dump).
    pub fn param_names(&self) -> Vec<&str> {
        (0..self.num_params)
            .map(|i| self.local_name(i, 0).unwrap_or("?"))
            .collect()
    }

    /// The string constant `index`, if it is one.
    pub fn string(&self, index: usize) -> Option<&str> {
        self.constants.get(index)?.as_deref()
    }
}

/// Reads a dump made by `Function::dump`.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let slice = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(slice)
    }

    fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    /// ldump.c's `dumpSize`: 7 bits a byte, most significant first, the last byte marked.
    fn size(&mut self) -> Option<usize> {
        let mut n: usize = 0;
        loop {
            let b = self.byte()?;
            n = n.checked_mul(128)?.checked_add(usize::from(b & 0x7f))?;
            if b & 0x80 != 0 {
                return Some(n);
            }
        }
    }

    fn string(&mut self) -> Option<Option<String>> {
        match self.size()? {
            0 => Some(None),
            n => Some(Some(
                String::from_utf8_lossy(self.take(n - 1)?).into_owned(),
            )),
        }
    }

    /// The main function of the chunk; `None` if the bytes are not a Lua 5.4 dump.
    pub fn chunk(&mut self) -> Option<Proto> {
        // "\x1bLua", version 0x54, format 0, LUAC_DATA (6), three sizes, LUAC_INT, LUAC_NUM.
        let header = self.take(4 + 2 + 6 + 3)?;
        if &header[..5] != b"\x1bLua\x54" || header[12..] != [4, 8, 8] {
            return None;
        }
        self.take(16)?;
        self.byte()?; // the main function's upvalue count
        self.function()
    }

    fn function(&mut self) -> Option<Proto> {
        self.string()?; // source
        let line_defined = self.size()? as i64;
        self.size()?; // last line
        let head = self.take(3)?; // parameters, vararg, stack size
        let (num_params, is_vararg) = (usize::from(head[0]), head[1] != 0);
        let n = self.size()?;
        let code = self
            .take(n.checked_mul(4)?)?
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let n = self.size()?;
        let constants = (0..n)
            .map(|_| match self.byte()? {
                0x13 | 0x03 => self.take(8).map(|_| None), // float, integer
                0x04 | 0x14 => self.string(),              // short, long string
                _ => Some(None),                           // nil, false, true
            })
            .collect::<Option<_>>()?;
        let n = self.size()?;
        let upvalues = (0..n)
            .map(|_| {
                let b = self.take(3)?;
                Some((b[0] != 0, b[1]))
            })
            .collect::<Option<_>>()?;
        let n = self.size()?;
        let protos = (0..n).map(|_| self.function()).collect::<Option<_>>()?;
        let n = self.size()?;
        let line_info = self.take(n)?.iter().map(|&b| b as i8).collect();
        let n = self.size()?;
        let abs_line_info = (0..n)
            .map(|_| Some((self.size()?, self.size()? as i64)))
            .collect::<Option<_>>()?;
        let n = self.size()?;
        let locvars = (0..n)
            .map(|_| {
                Some(LocVar {
                    name: self.string()?.unwrap_or_default(),
                    start: self.size()?,
                    end: self.size()?,
                })
            })
            .collect::<Option<_>>()?;
        let n = self.size()?;
        let upvalue_names = (0..n)
            .map(|_| Some(self.string()?.unwrap_or_default()))
            .collect::<Option<_>>()?;
        Some(Proto {
            line_defined,
            num_params,
            is_vararg,
            code,
            constants,
            upvalues,
            protos,
            line_info,
            abs_line_info,
            locvars,
            upvalue_names,
        })
    }
}
