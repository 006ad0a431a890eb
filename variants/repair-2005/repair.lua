-- The [2005] repair rule (rules.md §7.3, §9.2 #9): a double-wrench (wrench and hammer) site
-- repairs 1 damage AND gives an option card, instead of the standard [FFG] 2 repairs. A
-- powered-down robot gets no option (1994 FAQ, §9.2 #28).
--
-- Built on the standard element (rally.elements.repair): same parameters, same look, same
-- archive touch; only the end-of-turn handler changes.
local standard = rally.elements.repair

rally.element {
  name = "repair",
  replace = true,
  describe = "Repair site ([2005]): moves the archive; repairs 1 at end of turn; a double wrench also gives an option.",
  params = standard.params,
  glyph = standard.glyph,
  draw = standard.draw,
  steps = {
    touch = standard.steps.touch,
    end_of_turn = function(ctx, tile, robot)
      ctx:repair(robot, 1)
      if tile.wrenches == 2 and not robot.powered_down then
        ctx:draw_option(robot)
      end
    end,
  },
}
