-- Randomizers (rules.md §4.21, §9.2 #18). When a robot standing here reveals its card, the
-- card is swapped for the top card of this turn's program deck (shuffled with the game's
-- seed; a scenario's `deck` fixes its top, as for Abort Switch, Scrambler and Recompile);
-- the robot executes the new card at the new card's priority. Only the current register is
-- affected, decided anew each register; a locked card stays in its register. With every
-- card out of the deck, the revealed card stays.
return rally.element {
  name = "randomizer",
  describe = "Swaps the card a robot standing here reveals for the top card of the deck.",
  glyph = "?",
  draw = {
    { "bar", x = 6, y = 6, w = 26, h = 26, color = "#e74c3c" },
    { "bar", x = 32, y = 6, w = 26, h = 26, color = "#3498db" },
    { "bar", x = 6, y = 32, w = 26, h = 26, color = "#2ecc71" },
    { "bar", x = 32, y = 32, w = 26, h = 26, color = "#f1c40f" },
    { "square", inset = 6, color = "none", stroke = "#111", width = 2 },
    { "label", "?", size = 28, color = "#fff" },
  },
  on_reveal = function(ctx, tile, robot, card)
    return ctx:draw_card()
  end,
}
