-- A bottomless shaft (rules.md §4.15). The board edge behaves the same, natively.
return rally.element {
  name = "pit",
  describe = "Destroys a robot that enters or moves over it.",
  glyph = "O",
  build = function(b)
    b:hazard()            -- robots are never placed here (re-entry, teleports)
  end,
  on_enter = function(ctx, tile, robot)
    ctx:destroy(robot, "pit")
  end,
}
