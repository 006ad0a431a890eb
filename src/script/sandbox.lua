-- The Lua half of the sandbox (sandbox.rs): the few standard functions that would let a
-- script escape its budget or look inside a read-only table, wrapped. Runs once per rule set,
-- before any script; the originals stay in this chunk's upvalues, which no script can reach.
local base, views, host, undeclared, view, GLOBALS = ...
local spent, charge, room, loading, where = host.spent, host.charge, host.room, host.loading, host.where
local error, type, select, tonumber = base.error, base.type, base.select, base.tonumber
local pcall, xpcall = base.pcall, base.xpcall
local next, rawget, rawset, rawlen = base.next, base.rawget, base.rawset, base.rawlen
local setmetatable = base.setmetatable
local coroutine, table, math = base.coroutine, base.table, base.math
local create, resume, close = coroutine.create, coroutine.resume, coroutine.close
local move, insert, remove = table.move, table.insert, table.remove
local rep, tostring = base.string.rep, base.tostring
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

function coroutine.close(co)
  check()
  return close(co)
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

-- One allocation of the whole result: measured against the memory left first (sandbox.rs).
function base.string.rep(s, n, sep)
  local size = (#tostring(s) + (sep and #tostring(sep) or 0)) * (tonumber(n) or 0)
  if size > 0 then room(size) end
  return rep(s, n, sep)
end

function table.move(a1, f, e, t, a2)
  span(f, e)
  return move(a1, f, e, t, a2)
end

local function length(t)
  if type(t) == "table" then
    local n = #t
    if math.type(n) == "integer" then span(1, n) end
  end
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
