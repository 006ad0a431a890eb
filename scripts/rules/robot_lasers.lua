-- Every robot on the board that is not powered down fires its main laser forward in
-- segment D (rules.md §6.2): 1 damage to the first robot in line, walls block. Its options
-- may change the beam (`modify.main_laser` gets and returns `{ strength, through }`):
-- Double-Barreled Laser adds 1 damage, High-Power Laser goes through one wall or robot.
return rally.rule {
  name = "robot_lasers",
  describe = "Each active robot fires its main laser forward in segment D.",
  steps = {
    fire = function(ctx)
      for _, robot in ipairs(ctx:robots()) do
        if not robot.powered_down then
          local beam = ctx:modify(robot, "main_laser", { strength = 1, through = 0 })
          ctx:fire_beam(robot, robot.facing, beam.strength, { cause = "robot laser", through = beam.through })
        end
      end
    end,
  },
}
