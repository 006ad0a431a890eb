-- Tractor Beam (rules.md §3.2, §6.2, §6.6, D): instead of firing its main laser, the robot
-- pulls the robot it would hit 1 square towards itself, if that robot is not adjacent (a
-- robot next to it is not offered the pull). The squares between are free (the laser hits
-- the first robot), so it pushes nobody; a wall between stops it, a pit on the way destroys.
-- No damage. Resolved after the volley, in card-priority order (`shot`). Bots use it to pull
-- the target into a pit.
return rally.option {
  name = "tractor_beam",
  describe = "Instead of the main laser: pull a robot it would hit, not adjacent, 1 square closer (question `shot`).",
  shot = {
    can = function(ctx, robot, target, option)
      local next = rally.step(robot.at, robot.facing)
      return not (next.x == target.x and next.y == target.y)
    end,
    advise = function(ctx, robot, target, option)
      return rally.falls(ctx, target.at, rally.opposite(robot.facing), 1)
    end,
    fire = function(ctx, robot, target, option, info)
      ctx:push(target, rally.opposite(info.dir))
    end,
  },
}
