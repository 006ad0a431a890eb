-- Pushers (rules.md §4.17, §5.2): on the registers printed on them, push a robot on this
-- square 1 square in `dir`, with any chain of robots ahead (a wall anywhere stops the whole
-- chain). All pushers of step C3 push together (`ctx:queue_push`), from the board as it stands
-- before any of them: two that would move one robot different ways (opposed, or at right
-- angles) both do nothing, as do two that would bring robots into one square. The piston sits
-- on the square whether or not it fires, so a teleporter cannot land here (`b:solid()`).
return rally.element {
  name = "pusher",
  describe = "On its active registers, pushes a robot on this square 1 square (chains too), step C3.",
  params = {
    dir = rally.param.dir { describe = "the direction it pushes" },
    phases = rally.param.phases { describe = "active registers (default: every register)" },
  },
  glyph = "P",
  draw = {
    turn = "dir",
    { "icon", "pusher" },
    -- On the piston, clear of the edge (and any wall) behind the pusher.
    function(tile) return #tile.phases < 5 and { "badge", tile.phases, y = 43 } or nil end,
  },
  build = function(b) b:solid() end,
  -- A declared effect the engine runs itself: as `function(ctx, tile, robot) if
  -- rally.active(tile.phases, ctx.register) then ctx:queue_push(robot, tile.dir, "the pusher")
  -- end end`.
  steps = {
    pushers = rally.effect.push("dir", { when = "phases", by = "the pusher" }),
  },
}
