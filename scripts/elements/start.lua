-- Docking-bay start squares: where robots begin and their first archive.
return rally.element {
  name = "start",
  describe = "Docking-bay start square; robot `number` starts here.",
  params = { number = rally.param.int { min = 1, describe = "the dock number" } },
  glyph = function(tile) return "S" .. tile.number end,
  build = function(b, tile) b:start(tile.number) end,
}
