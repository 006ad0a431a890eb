-- Extra Memory (rules.md §1.3, §2 step 1.3, §6.6, P): one more program card is dealt each
-- turn. The dealer asks every robot's `modify.hand_size` (`Game::hand_size`).
return rally.option {
  name = "extra_memory",
  describe = "One more program card dealt each turn.",
  modify = {
    hand_size = function(ctx, robot, cards, option)
      return cards + 1
    end,
  },
}
