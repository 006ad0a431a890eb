-- Flamers (rules.md §4.7, §9.2 #11-12). On the registers printed on it a flamer burns for
-- 1 damage: a robot entering it during segment B (by its card, a push, a slide...), a robot
-- executing a rotate card on it (seed 000, not 001's movement card), and every robot still
-- on it in segment D (seed 000, not the timing summary's E, so its victims touch no flag).
-- Arrivals by belt or current in segment C only meet the D burn.
local function burning(ctx, tile)
  return rally.active(tile.phases, ctx.register)
end

return rally.element {
  name = "flamer",
  describe = "On its active registers: 1 damage on entry in B, on a rotate card executed here, and in D.",
  params = { phases = rally.param.phases { describe = "active registers (default: every register)" } },
  glyph = "Fx",
  draw = {
    { "icon", "flame" },
    function(tile) return #tile.phases < 5 and { "badge", tile.phases, y = 47 } or nil end,
  },
  on_enter = function(ctx, tile, robot)
    if ctx.segment == "robots_move" and burning(ctx, tile) then
      ctx:damage(robot, 1, "flamer")
    end
  end,
  on_card = function(ctx, tile, robot, card)
    if card.rotation and burning(ctx, tile) then
      ctx:damage(robot, 1, "flamer")
    end
  end,
  steps = {
    fire = function(ctx, tile, robot)
      if burning(ctx, tile) then ctx:damage(robot, 1, "flamer") end
    end,
  },
}
