-- Checkpoint flags (rules.md §4.1, §7.1): touched in segment E only, in order (at most one
-- counts per register); the archive moves onto the flag (also when a Mechanical Arm touches
-- it from beside); a flag repairs 1 damage at the end of the turn, as a single wrench does
-- (§4.1: 1994 FAQ; 2005: the wrench on the flag's base). A repair site on the flag's own
-- square is that wrench, not a second one: it repairs a robot standing there by its own
-- wrenches, so the flag adds nothing (1 wrench: 1, not 2).
return rally.element {
  name = "flag",
  describe = "Checkpoint: touched in order at the end of a register; moves the archive; repairs 1 at end of turn.",
  params = { number = rally.param.int { min = 1, describe = "its place in the order" } },
  glyph = function(tile) return "F" .. tile.number end,
  draw = {
    legend = "flag",      -- every flag alike in the legend, whatever its number
    { "icon", "flag" },
    function(tile) return { "number", tile.number, x = 37, y = 41, size = 20 } end,
  },
  build = function(b, tile)
    b:flag(tile.number)
    b:solid()
  end,
  steps = {
    -- A declared effect: as `function(ctx, tile, robot) ctx:touch_flag(robot, tile.number)
    -- ctx:set_archive(robot, tile.at) end`.
    touch = rally.effect.checkpoint("number"),
    end_of_turn = function(ctx, tile, robot)
      local here = robot.at.x == tile.x and robot.at.y == tile.y
      if here and ctx:has(tile.at, "repair") then return end
      ctx:repair(robot, 1)
    end,
  },
}
