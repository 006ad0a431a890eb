-- Oil slicks (rules.md §4.12, §9.2 #13). While a card still has squares left, oil is floor.
-- A robot that tries to end its card's movement on oil slides on in its direction of travel
-- until a wall stops it, a robot that is not on oil stops it (nobody is pushed), or it has
-- left the oil (it then stands on the first square off the oil, which may be a pit). A slider
-- that meets a robot on oil sets that one sliding first, then follows. Starting a movement
-- card on oil loses its first square (seed 000). A robot pushed onto oil during segment B
-- slides in the push direction; belts, currents and pushers in C do not make robots slide.

--- Slides `robot` along `dir` while it stands on oil.
local function slide(ctx, robot, dir)
  while not robot.destroyed and ctx:has(robot.at, "oil") do
    local next = rally.step(robot.at, dir)
    if not ctx:can_move(robot.at, dir) then return end
    local other = ctx:robot_at(next)
    if other then
      if not ctx:has(next, "oil") then return end
      slide(ctx, other, dir)
      if ctx:robot_at(next) then return end
    end
    ctx:log(robot, "slid", { dir = dir })
    ctx:move(robot, dir, 1, "script", "the oil")
  end
end

return rally.element {
  name = "oil",
  describe = "A robot ending a move here slides on until stopped or off the oil; starting here loses a square.",
  glyph = "Oi",
  draw = { layer = "ground", { "icon", "oil" } },
  events = { slid = "{robot} slides {dir} on the oil" },
  on_card = function(ctx, tile, robot, card)
    return rally.lose_first_square(card)
  end,
  on_card_end = function(ctx, tile, robot, card, info)
    -- A teleport moves a robot without steps: it travelled forwards.
    if info.moved then slide(ctx, robot, info.dir or robot.facing) end
  end,
  on_enter = function(ctx, tile, robot, info)
    if info.how == "push" and ctx.segment == "robots_move" then
      slide(ctx, robot, info.dir)
    end
  end,
}
