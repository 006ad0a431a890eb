-- Trap door pits (rules.md §4.24, §9.2 #19). On the registers printed on it, a trap door is a
-- pit for the whole register: robots standing on it when segment B begins (before the first
-- card) are destroyed, and any robot that enters it later in that register, however, too.
-- On other registers it is open floor.
local function open(ctx, tile)
  return rally.active(tile.phases, ctx.register)
end

return rally.element {
  name = "trapdoor",
  describe = "A pit on its active registers (checked when segment B begins), open floor otherwise.",
  params = { phases = rally.param.phases { describe = "registers on which it is open" } },
  glyph = "TD",
  draw = {
    layer = "ground",
    { "square", color = "#111" },
    { "bar", x = 6, y = 6, w = 25, h = 52, color = "#5d5d5d", stroke = "#e0b43a", width = 2 },
    { "bar", x = 33, y = 6, w = 25, h = 52, color = "#5d5d5d", stroke = "#e0b43a", width = 2 },
    function(tile)
      return { "label", #tile.phases < 5 and tile.phases or "trap", size = 11, color = "#fff" }
    end,
  },
  steps = {
    robots_move = function(ctx, tile, robot)
      if open(ctx, tile) then ctx:destroy(robot, "trap door") end
    end,
  },
  on_enter = function(ctx, tile, robot)
    if open(ctx, tile) then ctx:destroy(robot, "trap door") end
  end,
}
