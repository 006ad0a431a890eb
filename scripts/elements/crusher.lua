-- Crushers (rules.md §4.4): on their active registers, destroy a robot on the square, step C5.
return rally.element {
  name = "crusher",
  describe = "On its active registers, destroys a robot on this square in board step C5.",
  params = { phases = rally.param.phases { describe = "active registers (default: every register)" } },
  glyph = "X",
  draw = {
    { "icon", "crusher" },
    function(tile)
      return { "label", #tile.phases < 5 and tile.phases or "crush", size = 11, color = "#fff" }
    end,
  },
  build = function(b) b:solid() end,
  steps = {
    crushers = rally.effect.destroy { cause = "crusher", when = "phases" },
  },
}
