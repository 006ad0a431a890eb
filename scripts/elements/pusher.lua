-- Pushers (rules.md §4.17): on the registers printed on them, push a robot on this square 1
-- square in `dir`, with any chain of robots ahead (a wall anywhere stops the whole chain).
return rally.element {
  name = "pusher",
  describe = "On its active registers, pushes a robot on this square 1 square (chains too), step C3.",
  params = {
    dir = rally.param.dir { describe = "the direction it pushes" },
    phases = rally.param.phases { describe = "active registers (default: every register)" },
  },
  glyph = "P",
  steps = {
    pushers = function(ctx, tile, robot)
      if rally.active(tile.phases, ctx.register) then
        ctx:push(robot, tile.dir)
      end
    end,
  },
}
