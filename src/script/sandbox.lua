-- The Lua half of the sandbox (sandbox.rs): the few standard functions that would let a
-- script escape its budget or look inside a read-only table, wrapped. Runs once per rule set,
-- before any script; the originals stay in this chunk's upvalues, which no script can reach.
local base, views, host, undeclared, view, GLOBALS = ...
local spent, charge, room, loading, where = host.spent, host.charge, host.room, host.loading, host.where
local error, type, select, tonumber = base.error, base.type, base.select, base.tonumber
local pcall, xpcall = base.pcall, base.xpcall
local next, rawget, rawset, rawlen = base.next, base.rawget, base.rawset, base.rawlen
local setmetatable = base.setmetatable
local coroutine, table, math, string, utf8 = base.coroutine, base.table, base.math, base.string, base.utf8
local create, resume, close = coroutine.create, coroutine.resume, coroutine.close
local yield, isyieldable, status = coroutine.yield, coroutine.isyieldable, coroutine.status
local move, insert, remove = table.move, table.insert, table.remove
local rep, tostring = string.rep, base.tostring
local tointeger, pack = math.tointeger, table.pack
local getmetatable, format, sort, concat = base.getmetatable, base.string.format, table.sort, table.concat

-- A table raised as an error (`error({ code = 42 })`) would reach the player as
-- `table: 0x...`, with no file or line: it is raised as it is (a `pcall` still gets the
-- table and its fields), with the script's place and its first fields as its text.
local function fields(t)
  local parts = {}
  for k, v in next, views[t] or t do
    if #parts == 8 then break end
    local key = type(k) == "string" and k or "[" .. tostring(k) .. "]"
    local value = type(v) == "string" and format("%q", v) or tostring(v)
    parts[#parts + 1] = key .. " = " .. value
  end
  sort(parts)
  if next(views[t] or t, nil) ~= nil and #parts == 8 then parts[#parts + 1] = "..." end
  return "{ " .. concat(parts, ", ") .. " }"
end

function base.error(e, level)
  if type(e) == "table" and getmetatable(e) == nil and not views[e] then
    local text = where() .. "error raised with a table: " .. fields(e)
    setmetatable(e, { __tostring = function() return text end })
  end
  level = level or 1
  if level > 0 then level = level + 1 end
  return error(e, level)
end

-- Once the budget of a call is spent, no protected call catches the error: it goes on up.
local function check()
  local why = spent()
  if why then error(why, 0) end
end

local function checked(...)
  check()
  return ...
end

function base.pcall(f, ...)
  return checked(pcall(f, ...))
end

function base.xpcall(f, handler, ...)
  return checked(xpcall(f, function(e)
    if spent() then return e end
    return handler(e)
  end, ...))
end

-- A coroutine made while a script loads would carry its state from call to call.
local function fresh(f)
  if loading() then
    error("coroutines are made inside handlers, not while a script loads (they would keep state between calls)", 3)
  end
  return create(f)
end

function coroutine.create(f)
  return fresh(f)
end

function coroutine.resume(co, ...)
  return checked(resume(co, ...))
end

-- Lua's own errors for these are raised where the native function was called, which is
-- this file: they are checked here, so that the error names the script's line.
function coroutine.close(co)
  check()
  if type(co) ~= "thread" then
    error("coroutine.close: expected a coroutine, got " .. type(co), 2)
  end
  local now = status(co)
  if now == "running" or now == "normal" then
    error("coroutine.close: cannot close a " .. now .. " coroutine (only a suspended or finished one)", 2)
  end
  return close(co)
end

function coroutine.yield(...)
  if not isyieldable() then
    error("coroutine.yield: not inside a coroutine (yield only in a function run by coroutine.resume or coroutine.wrap)", 2)
  end
  return yield(...)
end

-- Lua's own `wrap` closes a failed coroutine at once; after the budget stopped it, its
-- to-be-closed variables would run with the hook off. This one leaves such a coroutine alone.
local function unwrap(co, ok, ...)
  check()
  if ok then return ... end
  close(co)
  check()
  error((...), 0)
end

function coroutine.wrap(f)
  local co = fresh(f)
  return function(...)
    return unwrap(co, resume(co, ...))
  end
end

-- Read-only tables (views.rs) hold nothing themselves: the raw functions look at what they
-- show, and `rawset` on one is refused.
function base.next(t, k)
  return next(views[t] or t, k)
end

function base.rawget(t, k)
  return rawget(views[t] or t, k)
end

function base.rawlen(t)
  return rawlen(views[t] or t)
end

function base.rawset(t, k, v)
  if views[t] then error("rawset: this table is read-only (see docs/sandbox.md)", 2) end
  return rawset(t, k, v)
end

-- No finalizers: Lua runs `__gc` with the hook off (and at exit), so it could loop forever.
-- A read-only table used as a metatable lends its fields, behind its lock.
function base.setmetatable(t, mt)
  if type(mt) == "table" then
    local fields = views[mt]
    if fields then
      if rawget(fields, "__metatable") == nil then rawset(fields, "__metatable", mt) end
      mt = fields
    end
    if rawget(mt, "__gc") ~= nil then
      error("setmetatable: finalizers (`__gc`) are not allowed in scripts", 2)
    end
  end
  local ok, result = pcall(setmetatable, t, mt)
  if not ok then error(result, 2) end
  return result
end

-- Native loops that never reach the hook are charged to the budget by their length.
local function span(from, to)
  local n = (tonumber(to) or 0) - (tonumber(from) or 0)
  if n >= 0 then charge(n + 1) end
end

-- Native functions that copy or scan strings are charged by the bytes they touch: a step for
-- each 16 bytes, as a plain `find` is (sandbox.rs). Each call is bounded by the memory limit,
-- so charging after the fact is enough: a loop of such calls runs out of budget as a loop of
-- instructions does. Short strings (most calls) cost nothing more than the test.
local function bytes(n)
  if n > 256 then charge(n // 16) end
end


-- The bytes of the strings among `...`.
local function strings(...)
  local args, n = pack(...), 0
  for i = 1, args.n do
    if type(args[i]) == "string" then n = n + #args[i] end
  end
  return n
end

-- `f` charged by the bytes of its string arguments and of its first result.
local function touching(f)
  return function(...)
    bytes(strings(...))
    local r = f(...)
    if type(r) == "string" then bytes(#r) end
    return r
  end
end

for _, name in next, { "lower", "upper", "reverse", "sub", "char", "pack" } do
  string[name] = touching(string[name])
end
-- `format` writes its result byte by byte (`%q` escaping each): a step a byte.
local format = string.format
function string.format(...)
  bytes(strings(...))
  local r = format(...)
  if #r > 256 then charge(#r) end
  return r
end
utf8.char = touching(utf8.char)
base.tonumber = touching(tonumber)

-- Functions that give back one value per item read (`s:byte(1, -1)`): a step for each.
local function counted(...)
  local n = select("#", ...)
  if n > 16 then charge(n) end
  return ...
end

for _, f in next, { "byte", "unpack" } do
  local native = string[f]
  string[f] = function(...) return counted(native(...)) end
end
local codepoint, len, offset = utf8.codepoint, utf8.len, utf8.offset
function utf8.codepoint(...) return counted(codepoint(...)) end

-- The bytes from `i` to `j` of `s` (negative from the end, as the string functions count).
local function range(s, i, j)
  if type(s) ~= "string" then return 0 end
  local n = #s
  i, j = tointeger(i) or 1, tointeger(j) or -1
  if i < 0 then i = n + i + 1 end
  if j < 0 then j = n + j + 1 end
  return j - i + 1
end

function utf8.len(s, i, j, lax)
  bytes(range(s, i, j))
  return len(s, i, j, lax)
end

-- Scans at most the whole string, at most 4 bytes a character.
function utf8.offset(s, n, i)
  local most = type(s) == "string" and #s or 0
  local k = tointeger(n)
  if k and k < most // 4 and -k < most // 4 then most = 4 * (k < 0 and -k or k) end
  bytes(most)
  return offset(s, n, i)
end

-- One allocation of the whole result: measured against the memory left first (sandbox.rs).
-- An empty result is made at once (Lua's own would loop `n` times to copy nothing).
function string.rep(s, n, sep)
  local size = (#tostring(s) + (sep and #tostring(sep) or 0)) * (tonumber(n) or 0)
  if size > 0 then
    room(size)
    bytes(size)
  elseif tointeger(tonumber(n)) then
    n = 0
  end
  return rep(s, n, sep)
end

function table.move(a1, f, e, t, a2)
  span(f, e)
  return move(a1, f, e, t, a2)
end

local function size(t)
  return type(t) == "table" and #t or 0
end

local function length(t)
  local n = size(t)
  if math.type(n) == "integer" then span(1, n) end
end

local concat, unpack, sort = table.concat, table.unpack, table.sort

function table.concat(t, sep, i, j)
  if i ~= nil or j ~= nil then span(i or 1, j or size(t)) else length(t) end
  local r = concat(t, sep, i, j)
  bytes(#r)
  return r
end

function table.unpack(t, i, j)
  if i ~= nil or j ~= nil then span(i or 1, j or size(t)) else length(t) end
  return unpack(t, i, j)
end

-- A sort makes about n log n comparisons, each of which may read the longer of two strings
-- to its end: charged for that many before it starts (the list is read once to know).
function table.sort(t, comp)
  if type(t) == "table" then
    local n, longest = #t, 0
    if math.type(n) == "integer" and n > 1 then
      for i = 1, n do
        local v = t[i]
        if type(v) == "string" and #v > longest then longest = #v end
      end
      local log = 1
      while (1 << log) < n do log = log + 1 end
      charge(n * log * (1.0 + longest // 16))
    end
  end
  return sort(t, comp)
end

function table.insert(t, ...)
  if select("#", ...) >= 2 then length(t) end
  return insert(t, ...)
end

function table.remove(t, ...)
  if select("#", ...) >= 1 then length(t) end
  return remove(t, ...)
end

-- A script's own environment (sandbox.rs, `script_env`): a read-only view of a copy of the
-- base functions plus `extra` (a variant's `params`); `_G` is the view itself.
return function(extra)
  local data = {}
  for k, v in next, base do data[k] = v end
  if extra then
    for k, v in next, extra do data[k] = v end
  end
  setmetatable(data, undeclared)
  local env = view(data, GLOBALS)
  data._G = env
  return env
end
