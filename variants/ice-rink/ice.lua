-- The ice (rules.md §4.29 and §8): robots on the ice keep a SPEED vector and a SPIN from
-- register to register. Each register a robot *starts* on the ice, its card only updates the
-- chart (§8.4 B.1); the robot then slides along the line between square centres (§8.5),
-- resolving collisions (§8.6), and turns by its spin.
--
-- The chart lives in the robot's script state, `robot.vars.ice = { vx, vy, spin }`, in the
-- chart's frame of §8.3: vx east(+)/west(-), vy NORTH(+)/south(-) ("forwards" = north), spin
-- in quarter turns per register, clockwise(+). A robot has the var exactly while it is on the
-- ice, so `rally run` and `--json` show the chart of every robot on the ice.
--
-- This file also declares the rule `ice_rink`, which keeps that var honest when a robot leaves
-- the ice by other means (pushed, carried) and resets it on re-entry (§8.9 #22).

local LIMIT = 6                                               -- §8.9 #3 and #13: clamp to ±6
local CHART = { N = { 0, 1 }, E = { 1, 0 }, S = { 0, -1 }, W = { -1, 0 } }  -- unit speed per direction
local SPIN = { left = -1, right = 1, uturn = 2 }             -- §8.2: U-Turn is two steps right
local PENDING = "ice_rink_pending"                            -- game var: robots still to slide

local function clamp(n)
  return math.max(-LIMIT, math.min(LIMIT, n))
end

local function sign(n)
  return n > 0 and 1 or (n < 0 and -1 or 0)
end

--- The robot's chart, a fresh table (zero if it has none yet).
local function chart(robot)
  local v = robot.vars.ice
  if v == nil then return { vx = 0, vy = 0, spin = 0 } end
  return { vx = v.vx, vy = v.vy, spin = v.spin }
end

--- Adds `k` speed points in board direction `dir` to chart `v`, clamped (excess is lost).
local function push_speed(v, dir, k)
  local d = CHART[dir]
  v.vx = clamp(v.vx + d[1] * k)
  v.vy = clamp(v.vy + d[2] * k)
end

--- "Points of speed" lost when `v` drops to 0 (§8.9 #4; the variant parameter picks the sum).
local function points(v)
  if params.speed_damage == "max" then
    return math.max(math.abs(v.vx), math.abs(v.vy))
  end
  return math.abs(v.vx) + math.abs(v.vy)
end

-- Which robots started this register on the ice and have not slid yet (§8.4 B, §8.9 #9, #12).
-- Kept in a game var, so it is part of the saved state like everything else.
local function mark_pending(ctx, robot)
  local pending = ctx:game_var(PENDING) or {}
  pending[robot.name] = true
  ctx:set_game_var(PENDING, pending)
end

local function take_pending(ctx, robot)
  local pending = ctx:game_var(PENDING)
  if not (pending and pending[robot.name]) then return false end
  pending[robot.name] = nil
  ctx:set_game_var(PENDING, pending)
  return true
end

--- The squares entered by a line from the centre of (0,0) to the centre of (dx, dy), in order
--- (§8.5), as board steps { dx =, dy = } of one square each; a step with both set is a corner
--- crossing straight into the diagonal square. The line crosses its k-th vertical grid line at
--- t = (2k+1)/(2|dx|) and its j-th horizontal one at (2j+1)/(2|dy|); equal times are a corner.
local function line(dx, dy)
  local ax, ay, sx, sy = math.abs(dx), math.abs(dy), sign(dx), sign(dy)
  local steps, i, j = {}, 0, 0
  while i < ax or j < ay do
    -- Compare the next crossing times by cross-multiplying (exact integers).
    local tx = i < ax and (2 * i + 1) * ay or math.huge
    local ty = j < ay and (2 * j + 1) * ax or math.huge
    if tx == ty then
      steps[#steps + 1] = { dx = sx, dy = sy }
      i, j = i + 1, j + 1
    elseif tx < ty then
      steps[#steps + 1] = { dx = sx, dy = 0 }
      i = i + 1
    else
      steps[#steps + 1] = { dx = 0, dy = sy }
      j = j + 1
    end
  end
  return steps
end

local XDIR = { [1] = "E", [-1] = "W" }
local YDIR = { [1] = "S", [-1] = "N" }                       -- board rows: south is y + 1

--- Can a slide cross from `at` by one step? A corner step is blocked only when both L-shaped
--- routes around the corner cross a wall (§8.5, §8.9 #17).
local function can_step(ctx, at, s)
  if s.dy == 0 then return ctx:can_move(at, XDIR[s.dx]) end
  if s.dx == 0 then return ctx:can_move(at, YDIR[s.dy]) end
  local b = { x = at.x + s.dx, y = at.y }                    -- beside, along x first
  local c = { x = at.x, y = at.y + s.dy }                    -- beside, along y first
  local via_b = ctx:can_move(at, XDIR[s.dx]) and ctx:can_move(b, YDIR[s.dy])
  local via_c = ctx:can_move(at, YDIR[s.dy]) and ctx:can_move(c, XDIR[s.dx])
  return via_b or via_c
end

--- A square as the event log writes it: [x, y].
local function square(p)
  return { p.x, p.y }
end

--- Turns the robot by `spin` quarter turns clockwise (the net turn is spin mod 4).
local function spin_robot(ctx, robot, spin)
  local turn = ({ [1] = "right", [2] = "uturn", [3] = "left" })[spin % 4]
  if turn then ctx:rotate(robot, turn, "ice") end
end

--- Step 2 of §8.4 B: slide along the chart's line, resolve what it runs into, then spin.
local function slide(ctx, robot)
  local v = chart(robot)
  local from, at = robot.at, robot.at
  local stop = nil
  for _, s in ipairs(line(v.vx, -v.vy)) do
    local to = { x = at.x + s.dx, y = at.y + s.dy }
    if not can_step(ctx, at, s) then
      -- §8.6 wall: stay, lose all speed, one damage per point; the spin is kept.
      stop = "wall"
      ctx:damage(robot, points(v), "ice: hit a wall")
      v.vx, v.vy = 0, 0
      break
    end
    local other = ctx:robot_at(to)
    if other then
      -- §8.6 robot: stop before it; it gains the speed lost (if it is on the ice, §8.9 #10)
      -- and both take the same damage. It moves only at its own slide (§8.9 #9).
      stop = "robot"
      local lost = points(v)
      if ctx:has(to, "ice") then
        local o = chart(other)
        o.vx, o.vy = clamp(o.vx + v.vx), clamp(o.vy + v.vy)
        ctx:set_var(other, "ice", o)
      end
      ctx:damage(robot, lost, "ice: hit a robot")
      ctx:damage(other, lost, "ice: hit by a robot")
      v.vx, v.vy = 0, 0
      break
    end
    -- Enter the square: a pit, the hole or the board edge destroys (their own on_enter).
    ctx:place(robot, to, "script", s.dx ~= 0 and XDIR[s.dx] or YDIR[s.dy])
    if robot.destroyed then
      ctx:log(robot, "slide", { from = square(from), to = square(to), stop = "destroyed" })
      return
    end
    at = to
    if not ctx:has(to, "ice") then
      -- §8.6 leaving the ice: stop here; wall damage plus 1 per complete revolution; the
      -- spin stops. Snow: no damage at all (§8.9 #18).
      stop = "left the ice"
      if ctx:has(to, "snow") then
        stop = "snow"
      else
        ctx:damage(robot, points(v), "ice: slid off the ice")
        ctx:damage(robot, math.abs(v.spin) // 4, "ice: spin stopped")
      end
      ctx:set_var(robot, "ice", nil)
      ctx:log(robot, "slide", { from = square(from), to = square(to), stop = stop })
      return                                                  -- no spin this register (§8.9 #16)
    end
  end
  if robot.destroyed then return end                          -- collision damage can destroy
  ctx:set_var(robot, "ice", v)
  if at.x ~= from.x or at.y ~= from.y or stop then
    ctx:log(robot, "slide", { from = square(from), to = square(at), stop = stop })
  end
  spin_robot(ctx, robot, v.spin)                              -- slide first, then turn (§8.9 #8)
end

--- Step 1 of §8.4 B: the card changes the chart, using the facing at the start of the register.
local function update_chart(ctx, robot, card)
  local v = chart(robot)
  if card.rotation then
    v.spin = clamp(v.spin + SPIN[card.rotation])
  elseif card.distance > 0 then
    push_speed(v, card.dir, card.distance)     -- along the card's travel (Crab Legs: sideways)
  end
  ctx:set_var(robot, "ice", v)
  ctx:log(robot, "ice_chart", { card = card.name, vx = v.vx, vy = v.vy, spin = v.spin })
end

--- How many speed points a belt gives a robot it carries onto the ice: express 2, else 1.
local function belt_speed(ctx, from)
  for _, tile in ipairs(ctx:tiles_at(from)) do
    if tile.element == "conveyor" and tile.express then return 2 end
  end
  return 1
end

rally.element {
  name = "ice",
  describe = "Ice Rink: frictionless; robots keep their speed and spin (chart in robot vars `ice`).",
  -- The chart is on the board for everyone to see (the pages draw it).
  public_vars = { "ice" },
  glyph = "~",
  draw = { layer = "ground", { "icon", "ice" } },
  events = {
    slide = "{robot} slides on the ice from {from} to {to} ({stop})",
    ice_chart = "{robot} plays {card} on the ice: speed {vx}, {vy}, spin {spin}",
  },
  steps = {
    -- Who starts this register on the ice (§8.4 B); every robot on it has a chart.
    register_start = function(ctx, tile, robot)
      ctx:set_var(robot, "ice", chart(robot))
      mark_pending(ctx, robot)
    end,
  },
  -- A robot that started the register on the ice: the card only updates the chart, then it
  -- slides. Anyone else (pushed onto the ice this register) executes its card normally.
  on_card = function(ctx, tile, robot, card)
    if not take_pending(ctx, robot) then return nil end
    update_chart(ctx, robot, card)
    slide(ctx, robot)
    return rally.HANDLED
  end,
  -- Entering the ice sets the chart (§8.4 A, §8.9 #5, #6, #11, #20).
  on_enter = function(ctx, tile, robot, info)
    local v = chart(robot)
    if info.how == "card" or info.how == "jump" then
      -- The card's full value in the direction of travel, even if only its last square is ice;
      -- a teleporter or portal jump by the card likewise (§8.9 #5, #6 [prop.]: Move 2 gives 2
      -- although a teleporter jumps it 4; Back Up gives 1, forward, the way it jumped).
      v.vx, v.vy = 0, 0
      push_speed(v, info.dir, info.card and info.card.distance or 1)
    elseif info.how == "push" then
      -- +1 in the push direction; a card pushing a robot several squares gives +1 for each
      -- square, as each square is a separate push (rules.md §3.2) [prop.].
      push_speed(v, info.dir, 1)
    elseif info.how == "belt" then
      -- Normal belt 1, express 2 (any other belt counts 1). On the ice already, the belt's
      -- speed adds to the chart like a push does [prop.: §8 is silent].
      push_speed(v, info.dir, belt_speed(ctx, rally.step(tile.at, rally.opposite(info.dir))))
    end                                                       -- placed, re-entry, slide: unchanged (0 if new)
    ctx:set_var(robot, "ice", v)
  end,
}

rally.rule {
  name = "ice_rink",
  describe = "Ice Rink bookkeeping: who still slides this register; charts cleared off the ice, reset on re-entry.",
  only_with = { "ice" },                                      -- it looks after robots on the ice only
  steps = {
    register_start = function(ctx)
      ctx:set_game_var(PENDING, nil)                          -- the ice's own register_start refills it
    end,
    -- Robots with no card this register (powered down, idle) slide with an unchanged chart
    -- after every programmed robot (§8.9 #12: priority 0). They tie, and ties go by dock
    -- order (§9.2 #20), the order of the robots, never by where they stand on the board.
    after_cards = function(ctx)
      for _, robot in ipairs(ctx:robots()) do
        if not robot.destroyed and ctx:has(robot.at, "ice") and take_pending(ctx, robot) then
          slide(ctx, robot)
        end
      end
    end,
  },
  -- A robot pushed, carried or driven off the ice is no longer on it: its chart goes, and so
  -- does its slide this register (§8.4 B is for robots on the ice): pushed off before its
  -- card, it plays the card as a normal move, even one that takes it back onto the ice.
  on_enter = function(ctx, robot)
    if robot.vars.ice ~= nil and not ctx:has(robot.at, "ice") then
      ctx:set_var(robot, "ice", nil)
      take_pending(ctx, robot)
    end
  end,
  -- §8.9 #22: a re-entering robot has no speed and no spin.
  on_reenter = function(ctx, robot)
    ctx:set_var(robot, "ice", ctx:has(robot.at, "ice") and { vx = 0, vy = 0, spin = 0 } or nil)
  end,
}
