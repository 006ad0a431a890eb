-- Sticky floor: a robot with `params.threshold` or more damage moves one square less, and
-- the rule logs `stuck` each time, for `rally sim` to count.
rally.rule {
  name = "sticky_floor",
  describe = "Damaged robots move one square less.",
  events = { stuck = "{robot} sticks to the floor with {damage} damage" },
  on_card = function(ctx, robot, card)
    if robot.damage >= params.threshold and card.distance and card.distance > 0 then
      ctx:log(robot, "stuck", { damage = robot.damage })
      return { distance = card.distance - 1 }
    end
  end,
}
