-- Flywheel (rules.md §2 step 2.3, §6.6, P): when the robot has programmed, it may put one of
-- its leftover cards on the Flywheel instead of discarding it. The card is offered with the
-- hand in every later turn until a program uses it (nothing to ask: a card not used stays).
-- One card at a time: putting a new one there discards the old. Question `flywheel`: "no"
-- (the default: nothing new is put there) or a leftover card. Losing the option loses the
-- card. Bots keep their longest leftover move, unless the Flywheel already holds one as long.
return rally.option {
  name = "flywheel",
  describe = "After programming, keep one leftover card for a later turn's hand (question `flywheel`).",
  on_program = function(ctx, robot, option)
    local leftovers = ctx:hand(robot)
    if #leftovers == 0 then return end
    local best, reach = rally.longest_move(leftovers)
    local _, held = rally.longest_move({ ctx:kept_card(robot, option.name) })
    local advice = reach > held and rally.card_text(best) or "no"
    local answer = ctx:choose(robot, "flywheel", rally.card_choices("no", leftovers), {
      text = "Flywheel: keep a leftover card for a later turn?",
      advice = advice,
    })
    if answer ~= "no" then
      ctx:keep_card(robot, option.name, answer, { offered = true })
    end
  end,
}
