-- Fourth Gear (rules.md §6.6, B): a Move 3 may move 4 squares. Question `fourth_gear`:
-- "no" (the default) or "yes". A square lost before (a rule's change) stays lost: it adds 1
-- to the distance as it stands.
return rally.option {
  name = "fourth_gear",
  describe = "A Move 3 may move 4 squares (question `fourth_gear`, default no).",
  on_card = function(ctx, robot, card, option)
    if card.name ~= "move3" then return end
    if ctx:choose(robot, "fourth_gear", { "no", "yes" }, { text = "Fourth gear: move 4 instead of 3?" }) == "yes" then
      return { distance = card.distance + 1 }
    end
  end,
}
