-- Gold belts (the fan "Robo-Brain" order, rules.md §5.4): a belt that moves robots 3 squares
-- a register: once in its own step `gold_belts` (added before the express belts by
-- variant.toml), then with the express belts, then with all belts. Each step is resolved
-- like any belt step (simultaneous moves, no pushing, rules.md §5.2).
--
-- Curves and junctions turn carried robots exactly like the standard conveyor: this element
-- reuses the conveyor's parameters and its `on_conveyed` handler.
local conveyor = rally.elements.conveyor
local arrows = { N = "^", E = ">", S = "v", W = "<" }

local function carry(ctx, tile, robot)
  ctx:convey(robot, tile.dir)
end

rally.element {
  name = "gold_belt",
  describe = "Gold belt: carries robots 3 squares a register (steps gold_belts, express_belts, belts).",
  params = {
    dir = conveyor.params.dir,
    turn = conveyor.params.turn,
    turns = conveyor.params.turns,
  },
  glyph = function(tile) return "$" .. arrows[tile.dir] end,
  draw = {
    layer = "belts",
    turn = "dir",
    legend = "gold belt",
    function(tile) return { "belt", bend = tile.turn, turns = tile.turns, color = "#c9a227", n = 3 } end,
  },
  steps = {
    gold_belts = carry,
    express_belts = carry,
    belts = carry,
  },
  on_conveyed = conveyor.on_conveyed,
}
