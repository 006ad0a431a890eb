-- One-way walls (rules.md §4.13): an ordinary wall seen from the red side, no wall at all
-- from the green side, for robots and lasers alike. The core stores walls as directed edges,
-- so this is only a declaration: `pass` says which way things may cross.
return rally.element {
  name = "one_way_wall",
  describe = "A wall on one side of this square that robots and lasers cross one way only.",
  params = {
    side = rally.param.dir { describe = "the edge of this square it stands on" },
    pass = rally.param.string {
      choices = { "out", "in" },
      default = "out",
      describe = "\"out\": robots and lasers may leave this square through it, not enter; \"in\": the reverse",
    },
  },
  glyph = "",            -- an edge: drawn by the walls it declares
  build = function(b, tile)
    b:wall(tile.side, { pass = tile.pass })
  end,
}
