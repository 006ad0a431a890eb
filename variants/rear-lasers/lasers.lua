-- Rear lasers: every robot that fires its main laser also fires one backwards, in the same
-- volley (segment D, damage applied together). Wraps the standard rule: it calls the
-- standard forward volley, then adds the rear beams.
local standard = rally.rules.robot_lasers

rally.rule {
  name = "robot_lasers",
  replace = true,
  describe = "Each active robot fires forward and backward in segment D (variant rear-lasers).",
  steps = {
    fire = function(ctx)
      standard.steps.fire(ctx)
      for _, robot in ipairs(ctx:robots()) do
        if not robot.powered_down then
          ctx:fire_beam(robot, rally.opposite(robot.facing), 1, { cause = "rear laser" })
        end
      end
    end,
  },
}
