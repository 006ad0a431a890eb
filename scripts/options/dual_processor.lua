-- Dual Processor (rules.md §6.6, P/B): when the robot has programmed, one register holding a
-- Move card (Move 1-3 or Back Up) may take a leftover Rotate card too (question
-- `dual_processor`: "no", the default, or the register; then `dual_processor_card`: which
-- Rotate card). In that register the robot moves, 1 square shorter per quarter turn of the
-- rotation (Left/Right 1, U-Turn 2; never below 0), then turns, all at the Move card's
-- priority; pushing and squares as for the Move card. The pairing holds for this turn: the
-- Rotate card is discarded at its end, even if the register locks, and it turns nothing if
-- the register's card is no longer a move by then (scrambled, aborted). Bots pair it with
-- register 1 when its move would drive them into a pit or off the board and the shortened
-- one would not.
local QUARTERS = { left = 1, right = 1, uturn = 2 }

local function pairing(ctx, robot)
  local p = robot.vars.dual_processor
  if p and p.turn == ctx.turn then return p end
end

return rally.option {
  name = "dual_processor",
  describe = "One register may hold a Move and a Rotate card: move (1 square less per quarter turn), then turn (questions `dual_processor`, `dual_processor_card`).",
  on_program = function(ctx, robot, option)
    local rotations = {}
    for _, card in ipairs(ctx:hand(robot)) do
      if card.rotation then rotations[#rotations + 1] = rally.card_text(card) end
    end
    if #rotations == 0 then return end
    local registers, program, advice = { "no" }, ctx:program(robot), "no"
    for r = 1, 5 do
      local card = program[r]
      if card and card.distance > 0 and not ctx:is_locked(robot, r) then
        registers[#registers + 1] = tostring(r)
      end
    end
    if #registers == 1 then return end
    local first = program[1]
    if registers[2] == "1" and rally.card_falls(ctx, robot, first) then
      local dir = first.back and rally.opposite(robot.facing) or robot.facing
      if not rally.falls(ctx, robot.at, dir, first.distance - 1) then advice = "1" end
    end
    local register = ctx:choose(robot, "dual_processor", registers, {
      text = "Dual Processor: add a Rotate card to which register's Move card?",
      advice = advice,
      hidden = true, -- the register paired is face down until it is played
    })
    if register == "no" then return end
    local card = ctx:choose(robot, "dual_processor_card", rotations, {
      text = "Dual Processor: which Rotate card?",
      hidden = true,
    })
    ctx:keep_card(robot, option.name, card)
    ctx:set_var(robot, "dual_processor", { turn = ctx.turn, register = tonumber(register) })
  end,
  on_card = function(ctx, robot, card, option)
    local p = pairing(ctx, robot)
    local rotation = ctx:kept_card(robot, option.name)
    if not p or p.register ~= ctx.register or not rotation or card.rotation then return end
    local turn = rotation.rotation
    return {
      distance = math.max(0, card.distance - QUARTERS[turn]),
      rotate = turn,
    }
  end,
  steps = {
    turn_end = function(ctx, robot, option)
      ctx:take_kept(robot, option.name)
      ctx:set_var(robot, "dual_processor", nil)
    end,
  },
}
