-- Water (rules.md §4.28): a robot that starts a movement card in water loses the card's
-- first square (Back Up and Move 1 go nowhere). Moving into water is plain floor; pushes and
-- rotations are unaffected.
return rally.element {
  name = "water",
  describe = "A robot starting a movement card here loses the card's first square.",
  glyph = "~",
  draw = {
    layer = "ground",
    { "square", inset = 0, color = "#5aa9e6", opacity = 0.85 },
    { "icon", "waves" },
  },
  on_card = function(ctx, tile, robot, card)
    return rally.lose_first_square(card)
  end,
}
