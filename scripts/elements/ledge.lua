-- Ledges (rules.md §4.11): this square is the upper level. Crossing `side` outwards is a drop:
-- the robot lands below and takes 2 damage, however it was moved (card, push, belt). From
-- below the ledge is a wall for robots. Lasers cross it both ways: it is not a wall.
return rally.element {
  name = "ledge",
  describe = "Edge of an upper level: dropping over it deals 2 damage; from below it is a wall.",
  params = { side = rally.param.dir { describe = "the edge of this (upper) square that drops" } },
  glyph = "",            -- an edge: drawn by the walls it declares
  draw = { layer = "edges", turn = "side", { "icon", "ledge" } },
  events = { dropped = "{robot} drops over the ledge on the {side} side" },
  build = function(b, tile)
    b:wall(tile.side, { pass = "out", lasers = false })
  end,
  on_cross = function(ctx, tile, robot, info)
    if info.leaving and not info.blocked and info.side == tile.side then
      ctx:log(robot, "dropped", { side = tile.side })
      ctx:damage(robot, 2, "ledge")
    end
  end,
}
