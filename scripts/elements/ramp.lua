-- Ramps (rules.md §4.20): this square slopes up towards `up`. Driving onto it uphill (from the
-- square on its downhill side) crosses one extra square of floor, which costs 1 movement
-- point; a robot left standing on that extra square rolls back 1 square, to where it came
-- from, facing unchanged and undamaged. A push has no point to spare, so a robot pushed up the
-- ramp rolls back too (and pushes its pusher back: the push achieves nothing). Going down, and
-- belts, are unaffected.
return rally.element {
  name = "ramp",
  describe = "Costs an extra movement point to drive onto uphill; a robot short of it rolls back.",
  params = { up = rally.param.dir { describe = "the uphill direction" } },
  glyph = function(tile) return "R" .. tile.up end,
  draw = { layer = "ground", turn = "up", { "icon", "ramp" } },
  events = { rolled_back = "{robot} rolls back {dir} down the ramp" },
  on_cross = function(ctx, tile, robot, info)
    local uphill = not info.leaving and not info.blocked and info.dir == tile.up
    if not uphill or (info.how ~= "card" and info.how ~= "push") then return end
    if info.how == "card" and info.remaining > 0 then
      return { cost = 1 }
    end
    ctx:log(robot, "rolled_back", { dir = rally.opposite(tile.up) })
    ctx:move(robot, rally.opposite(tile.up), 1, "script", "the ramp")
  end,
}
