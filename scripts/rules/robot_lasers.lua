-- Every robot on the board that is not powered down fires its main laser forward in
-- segment D (rules.md §6.2): 1 damage to the first robot in line, walls block. Its options
-- may change the shot (`modify.main_laser` gets and returns `{ strength, through }`):
-- Double-Barreled Laser adds 1 damage, High-Power Laser goes through one wall or robot.
-- The volley is one primitive, declared as an effect the engine runs without a Lua call: as
-- `function(ctx) ctx:fire_robot_lasers() end`. A variant replaces this rule to change who
-- fires (see variants/no-robot-lasers, variants/rear-lasers).
return rally.rule {
  name = "robot_lasers",
  describe = "Each active robot fires its main laser forward in segment D.",
  steps = {
    fire = rally.effect.robot_lasers(),
  },
}
