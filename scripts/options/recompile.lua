-- Recompile (rules.md §2 step 2.3, §6.6, P): once a turn, when the hand has been dealt, the
-- robot may discard it and draw a new one of as many cards; it then takes 1 damage. Question
-- `recompile`: "no" (the default) or "yes". A card an option offers beside the hand
-- (Flywheel's) is not part of it and stays. The damage is ordinary damage (an Ablative Coat
-- soaks it, options may be scrapped for it); a register it locks gets the top card of the
-- deck, as at the deal. Bots recompile a hand without a forward move while the damage locks
-- nothing (3 damage or less).
local function texts(cards)
  local names = {}
  for i, card in ipairs(cards) do names[i] = rally.card_text(card) end
  return names
end

return rally.option {
  name = "recompile",
  describe = "Once a turn, after the deal: discard the hand and draw a new one, for 1 damage (question `recompile`).",
  on_deal = function(ctx, robot, option)
    local hand = ctx:hand(robot)
    if #hand == 0 then return end
    local forward = rally.longest_move(hand) ~= nil
    local answer = ctx:choose(robot, "recompile", { "no", "yes" }, {
      text = "Your hand: " .. table.concat(texts(hand), ", ") .. ". Recompile: a new hand for 1 damage?",
      cards = texts(hand),
      advice = (not forward and robot.damage <= 3) and "yes" or "no",
    })
    if answer ~= "yes" then return end
    for _, card in ipairs(hand) do ctx:discard_card(robot, card) end
    ctx:draw_cards(robot, #hand)
    ctx:damage(robot, 1, "recompile")
  end,
}
