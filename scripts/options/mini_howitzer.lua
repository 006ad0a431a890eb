-- Mini Howitzer (rules.md §3.2, §6.6, D): instead of firing its main laser, the robot pushes
-- the robot it would hit 1 square away and deals it 1 damage (push first: a robot pushed
-- into a pit is gone before the damage). 5 shots (`uses = 5`); with none left it stays held
-- and is not offered until a chop shop reloads it. The damage is 1 whatever upgrades the
-- laser. Resolved after the volley, in card-priority order (`shot`). Bots fire it when the
-- push drops the target into a pit or off the board, or when their laser deals no more than
-- the howitzer's 1.
return rally.option {
  name = "mini_howitzer",
  describe = "Instead of the main laser: push the robot it would hit 1 square away and deal it 1 damage; 5 shots (question `shot`).",
  uses = 5,
  shot = {
    can = function(ctx, robot, target, option)
      return option.uses > 0
    end,
    advise = function(ctx, robot, target, option)
      local laser = ctx:modify(robot, "main_laser", { strength = 1, through = 0 })
      return laser.strength <= 1 or rally.falls(ctx, target.at, robot.facing, 1)
    end,
    fire = function(ctx, robot, target, option, info)
      ctx:use_option(robot, option.name)
      ctx:push(target, info.dir)
      ctx:damage(target, 1, "mini howitzer", rally.opposite(info.dir))
    end,
  },
}
