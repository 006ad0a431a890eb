-- Circuit Breaker (rules.md §6.6, F): a robot with 3 or more damage at the end of the turn
-- (after repairs and re-entry) starts the next turn powered down, whatever its player
-- announced. The turn loop asks the options' `modify.power_down` for every robot on the board.
return rally.option {
  name = "circuit_breaker",
  describe = "With 3+ damage at the end of the turn, the robot starts the next turn powered down.",
  events = { circuit_breaker = "{robot} trips its Circuit Breaker with {damage} damage" },
  modify = {
    power_down = function(ctx, robot, announced, option)
      if robot.damage >= 3 and not announced then
        ctx:log(robot, "circuit_breaker", { damage = robot.damage })
        return true
      end
    end,
  },
}
