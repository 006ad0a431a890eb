-- A spring pad, a designer's own element (the example of issue 12 §3): at the end of the
-- board elements' segment, after the crushers and before the lasers, it throws the robot
-- standing on it 2 squares the way the robot faces. No step of the standard order of play
-- is that moment, so the element declares one of its own.
return rally.element {
  name = "spring_pad",
  describe = "Throws the robot on it 2 squares forward at the end of segment C.",
  glyph = "Sp",
  new_steps = {
    { name = "springs", after = "crushers", describe = "C6: spring pads throw robots" },
  },
  steps = {
    springs = function(ctx, tile, robot)
      ctx:move(robot, robot.facing, 2)
    end,
  },
}
