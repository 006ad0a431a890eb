-- Conditional Program (rules.md §2 step 2.3, §6.6, P): when the robot has programmed, it may
-- keep one leftover card on this option (question `conditional_program`: "no", the default,
-- or a leftover). Before each later register is revealed (step `register_start`) its player
-- may put that card in the register instead of the one programmed there, which is discarded
-- (question `conditional_swap`: "no", the default, or "yes"). Only a register programmed
-- this turn can take it: not an empty one, not a locked one (the lock holds its card)
-- [prop.]. A card not used is discarded at the end of the turn. Bots keep their longest
-- leftover move and swap it in when the programmed card would drive them into a pit or off
-- the board and the kept one would not.
return rally.option {
  name = "conditional_program",
  describe = "After programming, keep a leftover card; before a register, it may replace the card there (questions `conditional_program`, `conditional_swap`).",
  on_program = function(ctx, robot, option)
    local leftovers = ctx:hand(robot)
    if #leftovers == 0 then return end
    local best = rally.longest_move(leftovers)
    local answer = ctx:choose(robot, "conditional_program", rally.card_choices("no", leftovers), {
      text = "Conditional Program: keep a leftover card to swap in later this turn?",
      advice = best and rally.card_text(best) or "no",
    })
    if answer ~= "no" then ctx:keep_card(robot, option.name, answer) end
  end,
  steps = {
    register_start = function(ctx, robot, option)
      local kept = ctx:kept_card(robot, option.name)
      if not kept or robot.powered_down or ctx:is_locked(robot, ctx.register) then return end
      local programmed = ctx:program(robot)[ctx.register]
      if not programmed then return end
      local bad = rally.card_falls(ctx, robot, programmed) and not rally.card_falls(ctx, robot, kept)
      local answer = ctx:choose(robot, "conditional_swap", { "no", "yes" }, {
        text = string.format("Register %d: play %s instead of %s?", ctx.register,
          rally.card_text(kept), rally.card_text(programmed)),
        cards = { rally.card_text(kept), rally.card_text(programmed) },
        advice = bad and "yes" or "no",
      })
      if answer == "yes" then
        ctx:set_card(robot, ctx.register, ctx:take_kept(robot, option.name), "conditional program")
      end
    end,
    turn_end = function(ctx, robot, option)
      ctx:take_kept(robot, option.name)
    end,
  },
}
