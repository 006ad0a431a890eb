-- Radio Control (rules.md §6.2, §6.6, §9 #20, D): instead of firing its main laser, the robot
-- takes control of the robot it would hit: for the rest of the turn that robot's registers
-- hold copies of the shooter's (an empty one of the shooter's empties the target's), so it
-- plays the shooter's remaining program. Its locked registers keep their cards [prop.]. Not
-- in register 5 (nothing remains) and not at a powered-down robot (it runs no program): then
-- it is not offered. A copied card ties with the original: the shooter acts first. No damage.
-- Resolved after the volley (`shot`). Bots use it when their next card would drive the
-- target into a pit or off the board.
return rally.option {
  name = "radio_control",
  describe = "Instead of the main laser: the robot it would hit plays the shooter's remaining program this turn (question `shot`).",
  shot = {
    can = function(ctx, robot, target, option)
      return ctx.register < 5 and not target.powered_down
    end,
    advise = function(ctx, robot, target, option)
      local next = ctx:program(robot)[ctx.register + 1]
      return next and rally.card_falls(ctx, target, next) or false
    end,
    fire = function(ctx, robot, target, option, info)
      for r = ctx.register + 1, 5 do
        if not ctx:is_locked(target, r) then ctx:copy_card(target, r, robot, "radio control") end
      end
    end,
  },
}
