-- Teleporters (rules.md §4.23, §9.2 #16). A robot standing here that executes a movement card
-- reappears the card's distance plus 2 squares ahead (Back Up: 2 squares forward, as both
-- guides' tables say), skipping walls and everything between. If a robot or a non-flat device
-- holds the arrival square, the teleporter does nothing and the card is executed normally:
-- elements declare themselves non-flat with `b:solid()` (flags, crushers, pushers active or
-- not; belts, gears, wrenches, oil are flat). Arriving in a pit or off the board destroys; the
-- arrival square's other effects apply. The robot arrives as a "jump" by its card, forward
-- (the ice gives it the card's squares as speed). It takes precedence over water.
return rally.element {
  name = "teleporter",
  describe = "A movement card executed here jumps the robot card+2 squares forward (Back Up: 2), ignoring walls.",
  glyph = "T",
  draw = {
    { "circle", r = 26, color = "#3b1f5c", stroke = "#111", width = 2 },
    { "ring", r = 19, color = "#c77dff", width = 3 },
    { "ring", r = 11, color = "#c77dff", width = 3 },
    { "label", "T", size = 13, color = "#fff" },
  },
  events = {
    teleported = "{robot} is teleported {squares} squares ahead, to {to}",
    teleport_failed = "{robot} cannot teleport: {to} is taken",
  },
  on_card = function(ctx, tile, robot, card)
    if card.distance == 0 then return end
    local squares = card.back and 2 or card.distance + 2
    local target = rally.step(robot.at, robot.facing, squares)
    if ctx:on_board(target) and (ctx:robot_at(target) or ctx:is_solid(target)) then
      ctx:log(robot, "teleport_failed", { to = { target.x, target.y } })
      return
    end
    ctx:log(robot, "teleported", { to = { target.x, target.y }, squares = squares })
    ctx:place(robot, target, "jump", robot.facing, "the teleporter")
    return rally.HANDLED
  end,
}
