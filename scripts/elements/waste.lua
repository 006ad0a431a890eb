-- Radioactive waste (rules.md §4.19): a robot that ends any register here takes 1 damage in
-- segment D and, in segment E, may draw an option card: question `waste_option`, "draw" (the
-- default) or "no". A robot destroyed in D is gone by E and is not asked; a powered-down
-- robot takes no options (as on a double wrench, rules.md §2 step 5).
return rally.element {
  name = "waste",
  describe = "Radioactive waste: 1 damage in D of every register, then an option card may be drawn in E.",
  glyph = "Wx",
  draw = { { "icon", "waste" } },
  steps = {
    fire = function(ctx, tile, robot)
      ctx:damage(robot, 1, "radioactive waste")
    end,
    touch = function(ctx, tile, robot)
      if robot.powered_down then return end
      local answer = ctx:choose(robot, "waste_option", { "draw", "no" }, { text = "Radioactive waste: draw an option card?" })
      if answer == "draw" then ctx:draw_option(robot) end
    end,
  },
}
