-- {{name}}: a new board element. `rally new element {{name}}` wrote this stub; make it yours.
-- It works as it is: tests/scenarios/{{name}}.toml shows it and `rally test` checks it.
-- While you edit, `rally watch tests/scenarios/{{name}}.toml` re-runs it on every save.
-- Every key, handler and `ctx:` method: docs/api.md in rally's repository, or hover in an
-- editor (.luarc.json points lua-language-server at scripts/types/rally.lua).
return rally.element {
  name = "{{name}}",
  describe = "Pushes a robot standing on it 1 square in step C3; a robot driving onto it takes damage.",

  -- What a board sets on each tile: `"X" = { element = "{{name}}", dir = "E" }`. Checked when
  -- the board loads: a wrong kind, a value out of range or an unknown name is an error.
  params = {
    dir = rally.param.dir { default = "N", describe = "where it pushes robots" },
    damage = rally.param.int { min = 0, max = 3, default = 1, describe = "damage to a robot driving onto it" },
  },

  -- How `rally run` draws it: 1 or 2 characters (or a function(tile) returning them).
  glyph = "{{glyph}}",

  -- How `rally render` and the viewers draw it: parts on a square pointing north, turned by
  -- `dir` (shapes, arrows, labels, icons, an SVG file beside this script: docs/pictures.md).
  draw = {
    turn = "dir",
    { "square", color = "#8fb3d9", round = 6 },
    { "arrow", color = "#fff" },
    function(tile) return tile.damage > 0 and { "badge", tile.damage, y = 52, turn = false } or nil end,
  },

  -- Called for each robot standing on a tile of this element, in the step named. The steps
  -- (the order of play) are listed by `rally elements`; `tile_steps` run once per tile.
  steps = {
    pushers = function(ctx, tile, robot)
      -- The cause is what the log says: "Robot A is pushed E to [3, 1] by the {{name}}".
      ctx:queue_push(robot, tile.dir, "the {{name}}")
    end,
  },

  -- Called when a robot arrives on the square: by its card (on every square a Move 2 or
  -- Move 3 enters), pushed, carried or placed. `info.how` says which.
  on_enter = function(ctx, tile, robot, info)
    if info.how == "card" and tile.damage > 0 then
      ctx:damage(robot, tile.damage, "{{name}}")
    end
  end,

  -- More moments to react to: on_card (change or replace a card), on_card_end, on_reveal,
  -- on_cross (edges, ramps; with `blocks = {}`, refusing robots: doors, gates), on_conveyed
  -- (belts), build (walls, pits, flags). The words for events it logs with ctx:log:
  -- `events = { name = "{robot} ... {field}" }`.
}
