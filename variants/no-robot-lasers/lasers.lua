-- No robot lasers: the standard rule `robot_lasers` (scripts/rules/robot_lasers.lua) is
-- replaced by one that does nothing. Board lasers are elements and keep firing.
rally.rule {
  name = "robot_lasers",
  replace = true,
  describe = "Robots do not fire (variant no-robot-lasers).",
}
