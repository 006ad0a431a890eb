-- Snow (rules.md §4.30, §8.7): ordinary floor, except that a robot sliding off the ice stops
-- on it with no damage (the slide in ice.lua checks for snow), and that Move 2 and Move 3
-- executed on snow do nothing at all: the wheels slip. Judged on the square where the card
-- starts (§8.9 #19); Move 1, Back Up and rotations work normally.
rally.element {
  name = "snow",
  describe = "Ice Rink: stops robots sliding off the ice without damage; Move 2/3 on snow do nothing.",
  glyph = "*",
  on_card = function(ctx, tile, robot, card)
    if card.distance >= 2 then
      ctx:log(robot, "slipped", { card = card.name })
      return rally.HANDLED
    end
  end,
}
