-- The Lua half of the `rally` API: pure helpers that need no access to the game.
-- Loaded into every rule set before any element or variant script. The native half
-- (`rally.element`, `rally.rule`, and every `ctx:` primitive) is in src/script/.
local rally, views, check_param = ...
-- `views` maps each read-only table (a tile's `phases`, `rally.dirs`) to what it shows: the
-- helpers below read through it, and call each other directly rather than through `rally`,
-- so that the hot ones cost no metamethod (src/script/views.rs).

local DIRS = { "N", "E", "S", "W" }
rally.dirs = { "N", "E", "S", "W" }
local index = { N = 1, E = 2, S = 3, W = 4 }
local delta = { N = { 0, -1 }, E = { 1, 0 }, S = { 0, 1 }, W = { -1, 0 } }
local quarter = { left = 3, right = 1, uturn = 2 }

--- The direction `dir` turned by `rotation` ("left", "right" or "uturn").
local function turn(dir, rotation)
  local i = index[dir] or error("not a direction: " .. tostring(dir), 2)
  local q = quarter[rotation] or error("not a rotation: " .. tostring(rotation), 2)
  return DIRS[(i - 1 + q) % 4 + 1]
end
rally.turn = turn

function rally.opposite(dir)
  return turn(dir, "uturn")
end

--- The rotation that turns `from` into `to` ("left", "right", "uturn"), or nil if equal.
function rally.rotation_between(from, to)
  local q = (index[to] - index[from]) % 4
  return ({ [1] = "right", [2] = "uturn", [3] = "left" })[q]
end

--- dx, dy of one step in `dir` (north is y - 1).
local function step_of(dir)
  local d = delta[dir] or error("not a direction: " .. tostring(dir), 3)
  return d[1], d[2]
end

function rally.delta(dir)
  return step_of(dir)
end

--- The square `n` (default 1) steps from `pos` in `dir`, as { x =, y = }.
function rally.step(pos, dir, n)
  local dx, dy = step_of(dir)
  n = n or 1
  return { x = pos.x + dx * n, y = pos.y + dy * n }
end

--- Is `register` (1..5) one of the `phases` listed on a tile?
function rally.active(phases, register)
  for _, p in ipairs(views[phases] or phases) do
    if p == register then return true end
  end
  return false
end

-- Parameter declarations: `params = { dir = rally.param.dir(), express = rally.param.bool { default = false } }`.
-- Options for every kind: `default = value`, `optional = true`, `describe = "text"`. Each
-- spec is checked where it is written (`check_param`, the host's): its keys, `min <= max`,
-- and its default against its kind, range and choices.
local function kind(name)
  return function(opts)
    return check_param({ kind = name }, opts)
  end
end
rally.param = {
  dir = kind("dir"),
  rotation = kind("rotation"),
  bool = kind("bool"),
  int = kind("int"),            -- options: min, max
  string = kind("string"),      -- option: choices = { ... }
  phases = function(opts)       -- a list of registers 1..5; default every register
    return check_param({ kind = "list", of = { kind = "int", min = 1, max = 5 }, default = { 1, 2, 3, 4, 5 } }, opts)
  end,
  list = function(of, opts)
    return check_param({ kind = "list", of = of }, opts)
  end,
  dir_map = function(of, opts)  -- a table keyed by direction, e.g. { N = "right" }
    return check_param({ kind = "dir_map", of = of }, opts)
  end,
}

-- Standard effects, declared as an element's step instead of a function and run by the
-- engine itself (no Lua call, no instructions): `steps = { belts = rally.effect.convey("dir") }`;
-- `rally.effect.destroy` may also be an element's hook (`on_enter`), and
-- `rally.effect.robot_lasers` is a rule's step.
-- Each names the tile's parameters it reads; the declaration checks them (src/script/decl.rs).
-- A declared effect can still be called as the function it stands for, so that a script
-- doing what an element does (`rally.elements.flag.steps.touch(ctx, tile, robot)`, the
-- Mechanical Arm) works whether that step is a function or an effect. What the engine does
-- natively (src/engine/mod.rs, `Act`) is exactly this.
local function applies(e, ctx, tile)
  if e.when == nil then return true end
  local w = tile[e.when]
  if type(w) == "boolean" then return w end
  return rally.active(w, ctx.register)
end
local perform = {
  convey = function(e, ctx, tile, robot) ctx:convey(robot, tile[e.param]) end,
  rotate = function(e, ctx, tile, robot) ctx:rotate(robot, tile[e.param], e.by or "script") end,
  push = function(e, ctx, tile, robot) ctx:queue_push(robot, tile[e.param], e.by) end,
  checkpoint = function(e, ctx, tile, robot)
    ctx:touch_flag(robot, tile[e.param])
    ctx:set_archive(robot, tile.at)
  end,
  archive = function(_, ctx, tile, robot) ctx:set_archive(robot, tile.at) end,
  destroy = function(e, ctx, _, robot) ctx:destroy(robot, e.cause or "script") end,
  robot_lasers = function(_, ctx) ctx:fire_robot_lasers() end,
  beam = function(e, ctx, tile)
    local strength = e.strength and tile[e.strength] or 1
    ctx:fire_beam(tile.at, tile[e.param], strength, { cause = e.cause or "laser" })
  end,
}
local effect_meta = {
  __call = function(e, ctx, tile, robot)
    if applies(e, ctx, tile) then perform[e.effect](e, ctx, tile, robot) end
  end,
}
local function effect(name, param, opts)
  local e = { effect = name, param = param }
  if opts ~= nil then
    if type(opts) ~= "table" then
      error("rally.effect." .. name .. ": expected a table of options, got " .. type(opts), 3)
    end
    for k, v in pairs(opts) do e[k] = v end
    e.effect, e.param = name, param
  end
  return setmetatable(e, effect_meta)
end
rally.effect = {
  --- Queues a belt move of the robot towards the tile's `param` (`ctx:convey`); option
  --- `when = "express"`: only on tiles whose bool parameter `express` is true.
  convey = function(param, opts) return effect("convey", param, opts) end,
  --- Turns the robot by the tile's `param` (`ctx:rotate`, so `on_rotate` hears it); options
  --- `by = "gear"` (the cause handlers see), `when`.
  rotate = function(param, opts) return effect("rotate", param, opts) end,
  --- Queues a push of the robot towards the tile's `param` (`ctx:queue_push`); options `by`
  --- (the cause), `when = "phases"`: only in the registers a `rally.param.phases` lists.
  push = function(param, opts) return effect("push", param, opts) end,
  --- Touches the flag numbered by the tile's `param` and moves the archive onto the tile
  --- (`ctx:touch_flag`, `ctx:set_archive`).
  checkpoint = function(param, opts) return effect("checkpoint", param, opts) end,
  --- Moves the robot's archive onto the tile (`ctx:set_archive`).
  archive = function(opts) return effect("archive", nil, opts) end,
  --- Destroys the robot (`ctx:destroy`); options `cause` (what the `destroyed` event says;
  --- default "script"), `when = "phases"` in `steps`. Also an element's hook (a pit's
  --- `on_enter`), there without `when`.
  destroy = function(opts) return effect("destroy", nil, opts) end,
  --- For a rule's `steps`: every active robot fires its main laser (`ctx:fire_robot_lasers`).
  robot_lasers = function() return effect("robot_lasers") end,
  --- For `tile_steps`: fires a beam from the tile towards its `param` (`ctx:fire_beam`);
  --- options `strength` (an int parameter; 1 without), `cause` (default "laser").
  beam = function(param, opts) return effect("beam", param, opts) end,
}

--- For `on_card`: the card's first square is lost (water, oil: rules.md §4.28, §4.12).
--- Returns `{ distance = n - 1 }` for a movement card, nil (no change) for a rotation.
function rally.lose_first_square(card)
  if card.distance > 0 then return { distance = card.distance - 1 } end
end

--- A card as text, `"move2@700"` (or `"move2"` without a priority): how choices name cards
--- and how `ctx:keep_card`, `ctx:set_card` and scenario files take them.
function rally.card_text(card)
  if card.priority then return card.name .. "@" .. card.priority end
  return card.name
end

--- Choices that name cards (for `ctx:choose`): `first` (such as "no"), then each card's text.
function rally.card_choices(first, cards)
  local choices = { first }
  for _, card in ipairs(cards) do choices[#choices + 1] = rally.card_text(card) end
  return choices
end

--- Of `cards`, the one that drives its robot furthest forward (Back Up and rotations count
--- 0; the first of equals), and how far; nil and 0 for none.
function rally.longest_move(cards)
  local best, reach = nil, 0
  for _, card in ipairs(cards) do
    local r = card.back and 0 or card.distance
    if r > reach then best, reach = card, r end
  end
  return best, reach
end

--- Would going `n` squares from `at` towards `dir` end in a pit or off the board? Walls stop
--- the way there (a blocked move is safe); robots, belts and other squares are not looked at.
--- A rough look ahead for bots' advice, not a rule.
function rally.falls(ctx, at, dir, n)
  local square = at
  for _ = 1, n do
    if not ctx:can_move(square, dir) then return false end
    square = rally.step(square, dir)
    if not ctx:on_board(square) or ctx:is_hazard(square) then return true end
  end
  return false
end

--- Would `card`, played by `robot` where it stands now, end in a pit or off the board
--- (`rally.falls` along the card's way)?
function rally.card_falls(ctx, robot, card)
  if not card or card.distance == 0 then return false end
  local dir = card.back and rally.opposite(robot.facing) or robot.facing
  return rally.falls(ctx, robot.at, dir, card.distance)
end

--- Returned by `on_card` to say "this element resolved the card; do not execute it".
rally.HANDLED = setmetatable({}, { __tostring = function() return "rally.HANDLED" end })
