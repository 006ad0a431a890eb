-- Conveyor belts (rules.md §4.3, §4.8, §4.25, §4.26, §5.2). Express belts move in both belt
-- steps, normal belts only in the second. `ctx:convey` queues the move; the core resolves all
-- belt moves of a step at the same time (contenders stay, trains move, belts never push).
local arrows = { N = "^", E = ">", S = "v", W = "<" }

return rally.element {
  name = "conveyor",
  describe = "Carries robots 1 square (express: 2) along its arrow; curves turn carried robots.",
  params = {
    dir = rally.param.dir { describe = "the arrow: where robots are carried" },
    express = rally.param.bool { default = false, describe = "moves robots in both belt steps" },
    turn = rally.param.rotation {
      optional = true,
      describe = "a curve: turns robots carried onto it, arriving from its curved input",
    },
    turns = rally.param.dir_map(rally.param.rotation(), {
      optional = true,
      describe = "a junction: the turn per direction of travel on arrival",
    }),
  },
  -- A curve and a junction at once would be drawn as one and followed as the other. A
  -- straight belt turns nobody: its tiles do not hear `on_conveyed` (no call for nothing).
  build = function(b, tile)
    if tile.turn and tile.turns then
      error("a conveyor takes `turn` (a curve) or `turns` (a junction), not both")
    end
    if not (tile.turn or tile.turns) then b:ignore("on_conveyed") end
  end,
  glyph = function(tile)
    local a = arrows[tile.dir]
    return tile.express and a .. a or a
  end,
  draw = {
    layer = "belts",
    turn = "dir",
    legend = function(tile) return tile.express and "express belt" or "belt" end,
    function(tile)
      return {
        "belt", bend = tile.turn, turns = tile.turns,
        color = tile.express and "#3578d4" or "#e0b43a", n = tile.express and 2 or 1,
      }
    end,
  },
  -- Declared effects the engine runs itself: as `function(ctx, tile, robot) ctx:convey(robot,
  -- tile.dir) end`, only on express belts in the first step.
  steps = {
    express_belts = rally.effect.convey("dir", { when = "express" }),
    belts = rally.effect.convey("dir"),
  },
  -- A belt carried `robot` onto this square, travelling `travel`.
  on_conveyed = function(ctx, tile, robot, travel)
    if tile.turns then
      local t = tile.turns[travel]
      if t then ctx:rotate(robot, t, "belt") end
    elseif tile.turn and rally.rotation_between(travel, tile.dir) == tile.turn then
      ctx:rotate(robot, tile.turn, "belt")
    end
  end,
}
