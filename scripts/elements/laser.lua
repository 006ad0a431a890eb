-- Board lasers (rules.md §4.10, §6.1). The emitter sits in this square and the beam starts in
-- it; it stops at walls and at the first robot. All lasers fire in segment D and their damage
-- is applied together.
return rally.element {
  name = "laser",
  describe = "Fires a beam of 1-3 damage along `dir` in segment D, stopped by walls and the first robot.",
  params = {
    dir = rally.param.dir { describe = "the beam's direction" },
    strength = rally.param.int { min = 1, max = 3, default = 1, describe = "damage per hit" },
  },
  glyph = function(tile) return "L" .. (tile.strength > 1 and tostring(tile.strength) or "") end,
  draw = {
    layer = "edges",
    turn = "dir",
    legend = function(tile) return tile.strength > 1 and "laser (" .. tile.strength .. " beams)" or "laser" end,
    { "icon", "laser" },
    function(tile)
      -- A dot per point of damage, and the beam as far as it reaches.
      local parts = { { "beam", n = tile.strength } }
      for i = 0, tile.strength - 1 do
        parts[#parts + 1] = { "circle", x = 32 - 5 * (tile.strength - 1) + 10 * i, y = 60, r = 2, color = "#ffcc00" }
      end
      return parts
    end,
  },
  -- A declared effect the engine runs itself: as `function(ctx, tile) ctx:fire_beam(tile.at,
  -- tile.dir, tile.strength, { cause = "laser" }) end`.
  tile_steps = {
    fire = rally.effect.beam("dir", { strength = "strength", cause = "laser" }),
  },
}
