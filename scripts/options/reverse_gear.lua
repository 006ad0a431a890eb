-- Reverse Gear (rules.md §6.6, B): a Back Up may move 2 squares backwards. Question
-- `reverse_gear`: "no" (the default) or "yes".
return rally.option {
  name = "reverse_gear",
  describe = "A Back Up may move 2 squares (question `reverse_gear`, default no).",
  on_card = function(ctx, robot, card, option)
    if card.name ~= "back" then return end
    if ctx:choose(robot, "reverse_gear", { "no", "yes" }, { text = "Reverse gear: back up 2?" }) == "yes" then
      return { distance = card.distance + 1 }
    end
  end,
}
