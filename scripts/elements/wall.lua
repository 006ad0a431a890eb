-- A wall on one or more edges of a square (rules.md §4.27). Walls are edges, not squares:
-- a wall on the north side of (2, 3) and one on the south side of (2, 2) are the same wall.
return rally.element {
  name = "wall",
  describe = "Wall on the given side(s) of this square; blocks movement and lasers both ways.",
  params = {
    side = rally.param.dir { optional = true, describe = "the side the wall is on" },
    sides = rally.param.list(rally.param.dir(), { optional = true, describe = "several sides" }),
  },
  -- The board draws every wall from its edges (a `build` wall too); this is the legend's.
  draw = { board = false, { "wall" } },
  build = function(b, tile)
    if not tile.side and not tile.sides then
      error("wall at " .. tile.x .. "," .. tile.y .. " needs `side` or `sides`")
    end
    if tile.side then b:wall(tile.side) end
    for _, side in ipairs(tile.sides or {}) do b:wall(side) end
  end,
}
