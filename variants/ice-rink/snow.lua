-- Snow (rules.md §4.30, §8.7): ordinary floor, except that a robot sliding off the ice stops
-- on it with no damage (the slide in ice.lua checks for snow), and that Move 2 and Move 3
-- executed on snow do nothing at all: the wheels slip. Judged on the square where the card
-- starts (§8.9 #19); Move 1, Back Up and rotations work normally. It is the card that slips,
-- not the distance: a Back Up that Reverse Gear makes 2 squares works normally (2 squares),
-- a Move 3 that Fourth Gear makes 4 slips.
local SLIPS = { move2 = true, move3 = true }

rally.element {
  name = "snow",
  describe = "Ice Rink: stops robots sliding off the ice without damage; Move 2/3 on snow do nothing.",
  glyph = "*",
  draw = { layer = "ground", { "icon", "snow" } },
  events = { slipped = "{robot} slips on the snow: its {card} does nothing" },
  on_card = function(ctx, tile, robot, card)
    if SLIPS[card.name] then
      ctx:log(robot, "slipped", { card = card.name })
      return rally.HANDLED
    end
  end,
}
