-- A bottomless shaft (rules.md §4.15). The board edge behaves the same, natively.
return rally.element {
  name = "pit",
  describe = "Destroys a robot that enters or moves over it.",
  glyph = "O",
  draw = {
    layer = "ground",
    { "square", inset = 3, color = "#0d0d0d", stroke = "#f2c200", width = 3, dash = "6 4" },
    { "square", inset = 10, color = "#262626" },
  },
  build = function(b)
    b:hazard()            -- robots are never placed here (re-entry, teleports)
  end,
  on_enter = rally.effect.destroy { cause = "pit" },
}
