-- Repulsor fields (rules.md §4.22, §9.2 #15), modelled as an edge, like a wall that bounces.
-- A robot that drives into the field (from either side) is thrown straight back by its
-- movement card's value (Move 3: 3 squares, Back Up: 1; seed 000, not 001's distance
-- travelled) and loses the rest of its card. A robot pushed into it by a robot is thrown back
-- by the pusher's card value, and the pusher loses the rest of its move. The throw is a push
-- sequence: it pushes robots, walls stop it, pits destroy, facing is kept. Anything else
-- (belts, pushers, thrown robots) just finds a wall there. Lasers pass through the field.
return rally.element {
  name = "repulsor",
  describe = "A field on one edge: robots running into it are thrown back by their card's value.",
  params = { side = rally.param.dir { describe = "the edge of this square the field is on" } },
  glyph = "",            -- an edge: drawn by the walls it declares
  draw = { layer = "edges", turn = "side", { "icon", "repulsor" } },
  events = { repulsed = "{robot} is thrown back {squares} squares {dir} by the repulsor field" },
  build = function(b, tile)
    b:wall(tile.side, { lasers = false })
  end,
  on_cross = function(ctx, tile, robot, info)
    if info.blocked and info.side == tile.side and info.card and info.card.distance > 0 then
      local away = rally.opposite(info.dir)
      ctx:log(robot, "repulsed", { dir = away, squares = info.card.distance })
      ctx:move(robot, away, info.card.distance, "push", "the repulsor field")
    end
  end,
}
