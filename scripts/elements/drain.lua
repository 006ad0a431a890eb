-- Drains (rules.md §4.6): treated exactly like pits, whatever brings the robot in.
return rally.element {
  name = "drain",
  describe = "Destroys a robot that enters or moves over it, like a pit.",
  glyph = "D",
  draw = {
    layer = "ground",
    { "square", inset = 0, color = "#5aa9e6", opacity = 0.85 },
    { "icon", "waves" },
    { "icon", "drain" },
  },
  build = function(b)
    b:hazard()            -- never a re-entry square; a teleport onto it destroys
  end,
  on_enter = function(ctx, tile, robot)
    ctx:destroy(robot, "drain")
  end,
}
