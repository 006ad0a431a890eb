-- Repair sites (rules.md §4.1, §7.3): the archive moves here in segment E; at the end of the
-- turn a robot here loses 1 damage per wrench ([FFG] ruling: two wrenches = two repairs).
return rally.element {
  name = "repair",
  describe = "Repair site: moves the archive at the end of a register; repairs 1 damage per wrench at end of turn.",
  params = { wrenches = rally.param.int { min = 1, max = 2, default = 1, describe = "1 or 2 wrenches" } },
  glyph = function(tile) return tile.wrenches == 2 and "W2" or "W" end,
  steps = {
    touch = function(ctx, tile, robot)
      ctx:set_archive(robot)
    end,
    end_of_turn = function(ctx, tile, robot)
      ctx:repair(robot, tile.wrenches)
    end,
  },
}
