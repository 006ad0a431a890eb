-- Brakes (rules.md §6.6, B): a Move 1 may move 0 squares instead, still at Move 1's
-- priority. Question `brakes`: "no" (the default) or "yes".
return rally.option {
  name = "brakes",
  describe = "A Move 1 may move 0 squares instead (question `brakes`, default no).",
  on_card = function(ctx, robot, card, option)
    if card.name ~= "move1" or card.distance ~= 1 then return end
    if ctx:choose(robot, "brakes", { "no", "yes" }, { text = "Brake: move 0 instead of 1?" }) == "yes" then
      return { distance = 0 }
    end
  end,
}
