-- Docking-bay start squares: where robots begin and their first archive. `facing` is the way a
-- robot placed here faces when the game or scenario gives none (a rotated tile turns it).
return rally.element {
  name = "start",
  describe = "Docking-bay start square; robot `number` starts here.",
  params = {
    number = rally.param.int { min = 1, describe = "the dock number" },
    facing = rally.param.dir {
      optional = true,
      describe = "the way a robot placed here faces, unless the game or scenario says (default N)",
    },
  },
  glyph = function(tile) return "S" .. tile.number end,
  draw = {
    layer = "ground",
    legend = "start dock",
    { "square", inset = 5, round = 6, color = "#d8ecd8", stroke = "#2e8b3e", width = 3, dash = "7 4" },
    function(tile) return { "number", tile.number, size = 22, color = "#2e8b3e" } end,
  },
  build = function(b, tile) b:start(tile.number, tile.facing) end,
}
