-- Mechanical Arm (rules.md §4.1, §6.6, E): the robot touches flags and repair sites from 1
-- square away, orthogonally or diagonally, if no wall is between (for a diagonal: one of the
-- two L-shaped ways round, free of walls, is enough). It does what standing there would do, by
-- calling the element's own handlers (`rally.elements.flag` / `.repair`, so a variant's repair
-- rule applies too):
--   * segment E: every flag and repair site in reach is touched (only the next flag counts,
--     and only one flag a register). Each touch moves the archive onto the touched site
--     [prop.], so the order of the touches decides where it ends: the flag counted this
--     register if there is one, else the first site in reading order (row, then column). A
--     site the robot stands on is touched after the arm (it is the square's own step), so
--     standing on a site, the archive goes there.
--   * end of turn: a robot not itself on a flag or repair site is repaired by the best one in
--     reach (most wrenches; a tie goes to the first in N, E, S, W, NE, SE, SW, NW order),
--     once: the arm reaches one site, it does not add up several.
local reachable = { flag = true, repair = true }

local function sites_at(ctx, square)
  local found = {}
  for _, tile in ipairs(ctx:tiles_at(square)) do
    if reachable[tile.element] then found[#found + 1] = tile end
  end
  return found
end

-- The sites within reach, in N, E, S, W, NE, SE, SW, NW order.
local function in_reach(ctx, robot)
  local at, squares = robot.at, {}
  for _, d in ipairs(rally.dirs) do
    if ctx:can_move(at, d) then squares[#squares + 1] = rally.step(at, d) end
  end
  for i, d in ipairs(rally.dirs) do
    local e = rally.dirs[i % 4 + 1]
    local via_d, via_e = rally.step(at, d), rally.step(at, e)
    if (ctx:can_move(at, d) and ctx:can_move(via_d, e)) or (ctx:can_move(at, e) and ctx:can_move(via_e, d)) then
      squares[#squares + 1] = rally.step(via_d, e)
    end
  end
  local sites = {}
  for _, square in ipairs(squares) do
    if ctx:on_board(square) then
      for _, tile in ipairs(sites_at(ctx, square)) do sites[#sites + 1] = tile end
    end
  end
  return sites
end

local function wrenches(tile)
  return tile.element == "repair" and tile.wrenches or 1
end

-- The order to touch `sites` in so that the archive ends where §4.1 says: the flag the robot
-- counts this register last, before it the others in reverse reading order.
local function touch_order(robot, sites)
  local next_flag = robot.flags + 1
  local function counted(tile) return tile.element == "flag" and tile.number == next_flag end
  local ordered = { table.unpack(sites) }
  table.sort(ordered, function(a, b)
    if counted(a) ~= counted(b) then return counted(b) end
    if a.y ~= b.y then return a.y > b.y end
    if a.x ~= b.x then return a.x > b.x end
    return a.element > b.element
  end)
  return ordered
end

return rally.option {
  name = "mechanical_arm",
  describe = "Touches flags and repair sites (and is repaired there) from 1 square away, diagonals included, no wall between.",
  steps = {
    touch = function(ctx, robot, option)
      for _, tile in ipairs(touch_order(robot, in_reach(ctx, robot))) do
        rally.elements[tile.element].steps.touch(ctx, tile, robot)
      end
    end,
    end_of_turn = function(ctx, robot, option)
      if #sites_at(ctx, robot.at) > 0 then return end
      local best
      for _, tile in ipairs(in_reach(ctx, robot)) do
        if not best or wrenches(tile) > wrenches(best) then best = tile end
      end
      if best then rally.elements[best.element].steps.end_of_turn(ctx, best, robot) end
    end,
  },
}
