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
  draw = {
    layer = "edges",
    turn = "side",
    { "edge", offset = -2, size = 7, color = "#ff8c1a", stroke = "#222", dash = "8 3" },
    -- The arrow shows the way robots and lasers may cross the edge.
    function(tile)
      local size = tile.pass == "in" and -16 or 16
      return { "arrow", y = tile.pass == "in" and 20 or 4, size = size, color = "#b35a00", width = 3 }
    end,
  },
  build = function(b, tile)
    b:wall(tile.side, { pass = tile.pass })
  end,
}
