-- Gears (rules.md §4.9): always on, step C4.
return rally.element {
  name = "gear",
  describe = "Rotates a robot standing on it 90 degrees in board step C4.",
  params = { turn = rally.param.rotation { describe = "left (counter-clockwise) or right" } },
  glyph = function(tile) return tile.turn == "left" and "G<" or "G>" end,
  draw = {
    legend = function(tile) return tile.turn == "left" and "gear (counter-clockwise)" or "gear (clockwise)" end,
    function(tile)
      local left = tile.turn == "left"
      return { "icon", "gear", color = left and "#c62f2f" or "#2f9a46", mirror = left }
    end,
  },
  -- A declared effect the engine runs itself: as `function(ctx, tile, robot)
  -- ctx:rotate(robot, tile.turn, "gear") end`, and `on_rotate` hears it the same way.
  steps = {
    gears = rally.effect.rotate("turn", { by = "gear" }),
  },
}
