-- The hole in the ice (rules.md §4.31, §8.7): a pit. A robot that enters it, or whose slide
-- crosses it, is destroyed; a slide through a corner beside it does not touch it (§8.5).
rally.element {
  name = "ice_hole",
  describe = "Ice Rink: a hole in the ice; destroys a robot that enters or slides across it.",
  glyph = "()",
  draw = { layer = "ground", { "icon", "ice_hole" } },
  build = function(b)
    b:hazard()                                                -- never a re-entry square
  end,
  on_enter = function(ctx, tile, robot)
    ctx:destroy(robot, "hole in the ice")
  end,
}
