-- Read-only tables (views.rs says why and how). Runs once per rule set, with the debug
-- library's raw metatable and upvalue functions, which no script ever sees; written in Lua
-- because freezing touches every field of every table, and the VM does that far faster than
-- calls through the host API.
local refuse, getmetatable, setmetatable, getupvalue = ...
local next, rawget, rawset, rawlen, type = next, rawget, rawset, rawlen, type

-- view -> data; weak keys, so a view and its data go away together.
local registry = setmetatable({}, { __mode = "k" })
-- Functions whose upvalues were walked already (by an earlier file's `keep`).
local walked = setmetatable({}, { __mode = "k" })

local function len(view)
  return rawlen(registry[view])
end

local function iterate(view, key)
  return next(registry[view], key)
end

local function pairs(view)
  return iterate, view, nil
end

-- Metamethods a view answers itself; a frozen table's others are kept.
local OWN = { __index = true, __newindex = true, __metatable = true, __gc = true, __mode = true }

local function view_metatable(data, class, kind, lock)
  local meta = { __len = len, __pairs = pairs }
  if class then
    for k, v in next, class do
      if type(k) == "string" and k:sub(1, 2) == "__" and not OWN[k] then meta[k] = v end
    end
  end
  meta.__index = data
  meta.__newindex = refuse[kind]
  meta.__metatable = lock
  return meta
end

-- A new view of `data`, which the host may go on changing.
local function view(data, kind)
  local v = setmetatable({}, view_metatable(data, nil, kind, false))
  registry[v] = data
  return v
end

-- Is `t` the data behind a view (a frozen metatable lent by `setmetatable`, sandbox.lua)?
local function is_data(t)
  local lock = rawget(t, "__metatable")
  return type(lock) == "table" and registry[lock] == t
end

-- A metatable as the data of a frozen table uses it, and what `getmetatable` gives back.
local function class_of(meta)
  local fields = registry[meta] or meta
  if fields ~= meta and rawget(fields, "__metatable") == nil then
    rawset(fields, "__metatable", meta)
  end
  local lock = rawget(fields, "__metatable")
  if lock == nil then lock = meta end
  return fields, lock
end

-- Freezes, in place, every table reachable from `roots` (a list) through fields, keys and
-- metatables. With `upvalues` (what a script keeps, once it has loaded), the roots are its
-- declarations: they are only looked through (`lazy` freezes one when another script reads
-- it), and what the scripts' functions reach through their upvalues is frozen.
local function freeze(roots, kind, upvalues)
  local seen, tables, stack, frozen, n = {}, {}, {}, {}, 0
  for i = 1, #roots do
    n = n + 1
    stack[n], frozen[n] = roots[i], not upvalues
  end
  while n > 0 do
    local v, f = stack[n], frozen[n]
    stack[n] = nil
    n = n - 1
    local t = type(v)
    local mark = f and 2 or 1
    if t == "table" then
      if (seen[v] or 0) < mark and not registry[v] then
        seen[v] = mark
        if f then tables[#tables + 1] = v end
        for k, x in next, v do
          stack[n + 1], stack[n + 2] = k, x
          frozen[n + 1], frozen[n + 2] = f, f
          n = n + 2
        end
        local meta = getmetatable(v)
        if meta and not is_data(meta) then
          n = n + 1
          stack[n], frozen[n] = meta, f
        end
      end
    elseif t == "function" and upvalues and not walked[v] then
      walked[v] = true
      local i = 1
      while true do
        local name, x = getupvalue(v, i)
        if name == nil then break end
        n = n + 1
        stack[n], frozen[n] = x, true
        i = i + 1
      end
    end
  end
  -- Contents move to the data tables (all registered before any metatable is set, so that
  -- a metatable frozen in the same pass resolves to its data).
  local metas = {}
  for i = 1, #tables do
    local t, data = tables[i], {}
    for k, x in next, t do data[k] = x end
    for k in next, data do rawset(t, k, nil) end
    registry[t] = data
    metas[i] = getmetatable(t) or false
  end
  -- A table keeps its metatable's behaviour: its view answers the same operators, and its
  -- data looks missing keys up as the metatable says (a class's methods). The data's own
  -- metatable is the host's, never the script's: an `__index` function is called with the
  -- view, as it was with the table, so that it cannot hand out the data behind it.
  for i = 1, #tables do
    local t, meta = tables[i], metas[i]
    local data, class, lock = registry[t], nil, false
    if meta then
      class, lock = class_of(meta)
      local index = rawget(class, "__index")
      if type(index) == "function" then
        setmetatable(data, { __index = function(_, k) return index(t, k) end })
      elseif index ~= nil then
        setmetatable(data, { __index = index })
      end
    end
    setmetatable(t, view_metatable(data, class, kind, lock))
  end
end

-- Marks the host's functions in `t` (a view or a table, and the tables in it) as walked:
-- what they keep in their upvalues is the host's own, never frozen.
local function trust(t, seen)
  seen = seen or {}
  if seen[t] then return end
  seen[t] = true
  for _, v in next, registry[t] or t do
    if type(v) == "function" then
      walked[v] = true
    elseif type(v) == "table" then
      trust(v, seen)
    end
  end
end

-- `rally.elements` and its kin: a view of the declarations loaded so far (`declared`, which
-- the host fills in), each frozen when a script first reads it.
local function lazy(declared, kind)
  local function first_read(cache, name)
    local decl = declared[name]
    freeze({ decl }, kind, false)
    rawset(cache, name, decl)
    return decl
  end
  walked[first_read] = true
  local cache = setmetatable({}, { __index = first_read })
  return view(cache, kind), cache
end

for _, f in next, { len, iterate, pairs, view, freeze, trust, lazy } do
  walked[f] = true
end

return registry, view, freeze, lazy, trust
