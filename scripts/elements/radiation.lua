-- Radiation (rules.md §4.18): a robot on it when the turn ends takes 1 damage, dealt in
-- segment D of register 5 with the lasers (so it can destroy before the last flag touch).
return rally.element {
  name = "radiation",
  describe = "1 damage to a robot here in segment D of register 5.",
  glyph = "Rd",
  draw = { layer = "ground", { "icon", "radiation" } },
  steps = {
    fire = function(ctx, tile, robot)
      if ctx.register == 5 then ctx:damage(robot, 1, "radiation") end
    end,
  },
}
