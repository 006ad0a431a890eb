-- Currents (rules.md §4.5, §5.1 step C2b): flowing water. In the `currents` step, after the
-- belts and before the pushers, a robot here moves 1 square with the flow; all current moves
-- of the step happen together with the belt conflict rules (`ctx:convey`: contenders stay,
-- never push), and currents never turn robots. A current is water too (§4.28).
local arrows = { N = "~^", E = "~>", S = "~v", W = "~<" }

return rally.element {
  name = "current",
  describe = "Water flowing along `dir`: carries a robot 1 square in step C2b; slows cards like water.",
  params = { dir = rally.param.dir { describe = "the direction of the flow" } },
  glyph = function(tile) return arrows[tile.dir] end,
  draw = {
    layer = "ground",
    turn = "dir",
    { "square", inset = 0, color = "#5aa9e6", opacity = 0.85 },
    { "icon", "waves" },
    { "arrow", y = 12, size = 40 },
  },
  steps = {
    currents = function(ctx, tile, robot)
      ctx:convey(robot, tile.dir)
    end,
  },
  on_card = function(ctx, tile, robot, card)
    return rally.lose_first_square(card)
  end,
}
