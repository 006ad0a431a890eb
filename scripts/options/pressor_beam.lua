-- Pressor Beam (rules.md §3.2, §6.2, §6.6, D): instead of firing its main laser, the robot
-- pushes the robot it would hit 1 square away from it (the way the laser points). A push
-- like any other: a chain ahead moves too, walls stop it (nothing moves, no damage), pits and
-- the board edge destroy. No damage. Resolved after the volley, in card-priority order
-- (`shot`, rules.md §6.3, §9 #21). Bots use it when the push drops the target into a pit or
-- off the board.
return rally.option {
  name = "pressor_beam",
  describe = "Instead of the main laser: push the robot it would hit 1 square away (question `shot`).",
  shot = {
    advise = function(ctx, robot, target, option)
      return rally.falls(ctx, target.at, robot.facing, 1)
    end,
    fire = function(ctx, robot, target, option, info)
      ctx:push(target, info.dir)
    end,
  },
}
