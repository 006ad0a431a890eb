-- Abort Switch (rules.md §2 step 4.A, §6.6, A): once a turn, before a register is revealed,
-- the player may abort: the card in that register and in every later one is replaced by the
-- top card of the deck ("the remaining registers the same way", 2005 wording). Empty
-- registers stay empty and locked ones keep their cards (the lock holds them) [prop.].
-- Question `abort_switch`: "no" (the default) or "yes", asked before each register of the
-- turn until it is used. Bots abort when the register's card would drive them into a pit or
-- off the board.
return rally.option {
  name = "abort_switch",
  describe = "Once a turn, before a register: replace its card and every later one with the top cards of the deck (question `abort_switch`).",
  steps = {
    register_start = function(ctx, robot, option)
      if robot.powered_down or robot.vars.abort_switch == ctx.turn then return end
      local program = ctx:program(robot)
      local card = program[ctx.register]
      if not card or ctx:is_locked(robot, ctx.register) then return end
      local answer = ctx:choose(robot, "abort_switch", { "no", "yes" }, {
        text = string.format("Register %d: abort, replacing %s and every later card with the top of the deck?",
          ctx.register, rally.card_text(card)),
        cards = { rally.card_text(card) },
        advice = rally.card_falls(ctx, robot, card) and "yes" or "no",
      })
      if answer ~= "yes" then return end
      ctx:set_var(robot, "abort_switch", ctx.turn)
      for r = ctx.register, 5 do
        if program[r] and not ctx:is_locked(robot, r) then
          ctx:set_card(robot, r, ctx:draw_card(), "abort switch")
        end
      end
    end,
  },
}
