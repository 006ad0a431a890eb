-- Repair sites (rules.md §4.1, §7.3): the archive moves onto the site in segment E (also when
-- a Mechanical Arm touches it from beside); at the end of the turn a robot here loses 1 damage
-- per wrench. A double wrench ([FFG] ruling) gives two repairs OR an option card: question
-- `double_wrench`, "repairs" (the default) or "option". A powered-down robot takes no option
-- (1994 FAQ) and gets the repairs; so does one that asks for an option when the option deck
-- is exhausted.
return rally.element {
  name = "repair",
  describe = "Repair site: moves the archive at the end of a register; repairs 1 damage per wrench at end of turn (2 wrenches: or an option).",
  params = { wrenches = rally.param.int { min = 1, max = 2, default = 1, describe = "1 or 2 wrenches" } },
  glyph = function(tile) return tile.wrenches == 2 and "W2" or "W" end,
  draw = {
    legend = function(tile) return tile.wrenches == 2 and "repair site (2 wrenches)" or "repair site" end,
    { "circle", r = 26, color = "#2456a6", stroke = "#111", width = 2 },
    function(tile)
      if tile.wrenches == 2 then
        return { { "icon", "wrench", rotate = -40 }, { "icon", "wrench", rotate = 40 }, { "badge", "×2", x = 49, y = 50 } }
      end
      return { "icon", "wrench", rotate = 45 }
    end,
  },
  steps = {
    -- A declared effect: as `function(ctx, tile, robot) ctx:set_archive(robot, tile.at) end`.
    touch = rally.effect.archive(),
    end_of_turn = function(ctx, tile, robot)
      if tile.wrenches == 2 and not robot.powered_down then
        local answer = ctx:choose(robot, "double_wrench", { "repairs", "option" }, {
          text = "Double wrench: two repairs or an option card?",
          damage = robot.damage,
        })
        if answer == "option" and ctx:draw_option(robot) then return end
      end
      ctx:repair(robot, tile.wrenches)
    end,
  },
}
