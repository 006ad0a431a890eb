-- Chop shops (rules.md §4.2, §9.2 #31). A robot that ends a register here may use one service:
-- scrap an option and draw another, or reload one; in register 5 (the end of the turn) it may
-- instead draw an option even with none. Options are not modelled yet, so the offer is an
-- `option_service` event listing the services. A powered-down robot may only reload.
return rally.element {
  name = "chop_shop",
  describe = "In segment E: offers one option service (swap, reload; draw in register 5).",
  glyph = "CS",
  steps = {
    touch = function(ctx, tile, robot)
      local services
      if robot.powered_down then
        services = { "reload" }
      else
        services = { "swap", "reload" }
        if ctx.register == 5 then services[#services + 1] = "draw" end
      end
      ctx:log(robot, "option_service", { services = services })
    end,
  },
}
