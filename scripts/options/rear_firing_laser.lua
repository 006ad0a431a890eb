-- Rear-Firing Laser (rules.md §6.2, §6.6, D): a second laser firing backwards, in the same
-- volley as every other laser, like the main one (walls and the first robot stop it; a
-- powered-down robot does not fire). Main-laser options do not apply to it.
return rally.option {
  name = "rear_firing_laser",
  describe = "An extra laser firing backwards in segment D.",
  steps = {
    fire = function(ctx, robot, option)
      if robot.powered_down then return end
      ctx:fire_beam(robot, rally.opposite(robot.facing), 1, { cause = "rear-firing laser" })
    end,
  },
}
