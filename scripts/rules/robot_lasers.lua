-- Every robot on the board that is not powered down fires its main laser forward in
-- segment D (rules.md §6.2): 1 damage to the first robot in line, walls block.
return rally.rule {
  name = "robot_lasers",
  describe = "Each active robot fires its main laser forward in segment D.",
  steps = {
    fire = function(ctx)
      for _, robot in ipairs(ctx:robots()) do
        if not robot.powered_down then
          ctx:fire_beam(robot, robot.facing, 1, { cause = "robot laser" })
        end
      end
    end,
  },
}
