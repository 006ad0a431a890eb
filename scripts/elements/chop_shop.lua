-- Chop shops (rules.md §4.2, §9.2 #31). A robot that ends a register here may use one service:
-- scrap an option and draw another ("swap"), or refill the ammunition of one ("reload"); in
-- register 5 (the end of the turn) it may instead draw an option even with none ("draw").
-- Question `chop_shop`, asked when there is a service to use; its choices, in this order:
-- "draw" (register 5), "reload" (an option short of ammunition), "none", "swap" (holding
-- an option). The first is the default: a free card or free ammunition is taken, a swap is
-- never made unasked. Then `chop_shop_swap` / `chop_shop_reload` ask which option (default:
-- the first that qualifies). A powered-down robot may only reload. Each offer is logged as
-- `option_service` with the service chosen.
local function reloadable(ctx, robot)
  local names = {}
  for _, o in ipairs(ctx:options(robot)) do
    if o.max_uses and o.uses < o.max_uses then names[#names + 1] = o.name end
  end
  return names
end

return rally.element {
  name = "chop_shop",
  describe = "In segment E: one option service (swap, reload; draw in register 5).",
  glyph = "CS",
  draw = { { "icon", "chop_shop" }, { "label", "SHOP", size = 9, color = "#fff" } },
  steps = {
    touch = function(ctx, tile, robot)
      local up = not robot.powered_down
      local reload = reloadable(ctx, robot)
      local services = {}
      if up and ctx.register == 5 then services[#services + 1] = "draw" end
      if #reload > 0 then services[#services + 1] = "reload" end
      services[#services + 1] = "none"
      if up and #robot.options > 0 then services[#services + 1] = "swap" end
      if #services == 1 then return end
      local service = ctx:choose(robot, "chop_shop", services, { text = "Chop shop: which service?" })
      ctx:log(robot, "option_service", { service = service })
      if service == "draw" then
        ctx:draw_option(robot)
      elseif service == "reload" then
        ctx:reload_option(robot, ctx:choose(robot, "chop_shop_reload", reload, { text = "Reload which option?" }))
      elseif service == "swap" then
        local old = ctx:choose(robot, "chop_shop_swap", robot.options, { text = "Scrap which option for a new one?" })
        ctx:discard_option(robot, old, "swapped")
        ctx:draw_option(robot)
      end
    end,
  },
}
