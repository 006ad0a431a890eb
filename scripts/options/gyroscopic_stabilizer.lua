-- Gyroscopic Stabilizer (rules.md §2 step 3, §6.6, A): before register 1 is revealed the
-- player declares whether it is active this turn (question `gyroscopic_stabilizer`: "no",
-- the default, or "yes"); while active, gears and rotating belts do not turn the robot.
-- Its own cards still do, and so does the ice's spin (rules.md §8.9 #21): only turns `by`
-- "gear" or "belt" are stopped. It can be declared while powered down: it needs no program
-- [prop.]. Bots activate it when they start the turn on a gear or a turning belt.
local STOPS = { gear = true, belt = true }

local function turns_robots(tile)
  return tile.element == "gear" or (tile.element == "conveyor" and (tile.turn or tile.turns))
end

return rally.option {
  name = "gyroscopic_stabilizer",
  describe = "Declared before register 1: gears and rotating belts do not turn the robot this turn (question `gyroscopic_stabilizer`).",
  steps = {
    register_start = function(ctx, robot, option)
      if ctx.register ~= 1 then return end
      local turning = false
      for _, tile in ipairs(ctx:tiles_at(robot.at)) do
        if turns_robots(tile) then turning = true end
      end
      local answer = ctx:choose(robot, "gyroscopic_stabilizer", { "no", "yes" }, {
        text = "Gyroscopic Stabilizer: keep gears and belts from turning you this turn?",
        advice = turning and "yes" or "no",
      })
      -- The var holds the turn it is active in, or false in a turn it was not declared.
      ctx:set_var(robot, "gyroscopic_stabilizer", answer == "yes" and ctx.turn or false)
    end,
  },
  on_rotate = function(ctx, robot, info, option)
    if robot.vars.gyroscopic_stabilizer == ctx.turn and STOPS[info.by] then return false end
  end,
}
