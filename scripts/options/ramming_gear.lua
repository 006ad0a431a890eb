-- Ramming Gear (rules.md §3.2, §6.6, B): a robot this robot pushes, or that pushes it, takes
-- 1 damage. A push is a robot moving into another and shoving it one square, whatever moves
-- the first (its card, a pusher, another robot behind it, a beam): in a chain each robot
-- pushes the next. A blocked push moves nobody and rams nobody. It needs no power: a
-- powered-down robot's gear still rams [prop.].
return rally.option {
  name = "ramming_gear",
  describe = "A robot it pushes, or that pushes it, takes 1 damage.",
  on_push = function(ctx, robot, other, info, option)
    ctx:damage(other, 1, "ramming gear")
  end,
}
