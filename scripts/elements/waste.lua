-- Radioactive waste (rules.md §4.19): a robot that ends any register here takes 1 damage in
-- segment D and, in segment E, may draw an option card. Options are not modelled yet, so the
-- offer is an `option_offered` event. A robot destroyed in D is gone by E and gets no offer;
-- a powered-down robot takes no options (as on a double wrench, rules.md §2 step 5).
return rally.element {
  name = "waste",
  describe = "Radioactive waste: 1 damage in D of every register, then the offer of an option card in E.",
  glyph = "Wx",
  steps = {
    fire = function(ctx, tile, robot)
      ctx:damage(robot, 1, "radioactive waste")
    end,
    touch = function(ctx, tile, robot)
      if not robot.powered_down then
        ctx:log(robot, "option_offered", { source = "waste" })
      end
    end,
  },
}
