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
  on_reveal = function(ctx, tile, robot, card)
    return ctx:draw_card()
  end,
}
