-- The Ice Rink thawed: the ice and the snow of the ice-rink variant become plain floor, and
-- the holes in the ice stay what they are (pits). A study compares the same rink with and
-- without the ice, same games and all: `rally sim games/ice-rink-bots.toml --compare thaw`.
-- It builds on ice-rink (`requires` in variant.toml), whose elements it replaces.
rally.element {
  name = "ice",
  replace = true,
  describe = "Thawed ice: plain floor.",
  draw = {},            -- drawn as the floor it now is
}

rally.element {
  name = "snow",
  replace = true,
  describe = "Thawed snow: plain floor.",
  draw = {},
}
