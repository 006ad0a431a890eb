-- Crab Legs (rules.md §6.6, P/B). The card pairs a Move 1 with a rotation programmed in the
-- same register to step sideways at Move 1's priority. Registers here hold one card, so the
-- pairing is asked when the Move 1 is executed: question `crab_legs`, "no" (the default),
-- "left" or "right": the card goes 1 square to that side instead, facing kept. It stays the
-- robot's card move (it pushes, a wall stops it, squares react as to a Move 1, and on the ice
-- it adds 1 speed sideways, rules.md §8.9 #21).
return rally.option {
  name = "crab_legs",
  describe = "A Move 1 may step 1 square sideways instead, facing kept (question `crab_legs`: no/left/right).",
  on_card = function(ctx, robot, card, option)
    if card.name ~= "move1" or card.distance ~= 1 then return end
    local side = ctx:choose(robot, "crab_legs", { "no", "left", "right" }, { text = "Crab legs: step sideways?" })
    if side == "no" then return end
    return { dir = rally.turn(robot.facing, side) }
  end,
}
