-- Scrambler (rules.md §6.2, §6.6, D): instead of firing its main laser, the robot replaces
-- the next programmed card of the robot it would hit (its next register's) with the top card
-- of the deck. Not in register 5 (no next register), not at a powered-down robot (no
-- program): then it is not offered. An empty or locked next register is left as it is
-- (nothing programmed to replace; the lock holds its card) [prop.]. No damage. Resolved
-- after the volley (`shot`). Bots scramble a robot that has touched more flags than they.
return rally.option {
  name = "scrambler",
  describe = "Instead of the main laser: the next card of the robot it would hit becomes the top card of the deck (question `shot`).",
  events = { scrambled = "{robot} scrambles register {register} of robot {target}" },
  shot = {
    can = function(ctx, robot, target, option)
      return ctx.register < 5 and not target.powered_down
    end,
    advise = function(ctx, robot, target, option)
      return target.flags > robot.flags
    end,
    fire = function(ctx, robot, target, option, info)
      local next = ctx.register + 1
      if not ctx:program(target)[next] or ctx:is_locked(target, next) then
        ctx:log(robot, "scrambled", { target = target.name, in_register = next, changed = false })
        return
      end
      ctx:set_card(target, next, ctx:draw_card(), "scrambler")
      ctx:log(robot, "scrambled", { target = target.name, in_register = next, changed = true })
    end,
  },
}
