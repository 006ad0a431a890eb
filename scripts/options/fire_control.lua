-- Fire Control (rules.md §6.4, §6.6, §9 #22, D): instead of an ordinary hit, the robot's
-- main laser either puts its damage on the target's registers (Avalon Hill's erratum: real
-- damage that no option may be scrapped to cancel) or destroys one of the target's options.
-- Per point of the laser's strength (Double-Barreled Laser: 2) the shooter chooses
-- (question `fire_control`: "register", the default, or one of the target's options). In
-- this engine registers lock by damage from register 5 down (rules.md §1.3), so which
-- register the token lies on is not asked [prop.]. Resolved after the volley, in
-- card-priority order (`shot`). Bots always use it, and destroy an option when the target
-- holds one.
return rally.option {
  name = "fire_control",
  describe = "Instead of an ordinary hit: damage no option may cancel, or destroy one of the target's options (questions `shot`, `fire_control`).",
  shot = {
    advise = function(ctx, robot, target, option)
      return true
    end,
    fire = function(ctx, robot, target, option, info)
      for _ = 1, info.strength do
        if target.destroyed then return end
        local choices = { "register" }
        for _, name in ipairs(target.options) do choices[#choices + 1] = name end
        local answer = ctx:choose(robot, "fire_control", choices, {
          text = "Fire Control: a locked register (1 damage) or one of " .. target.name .. "'s options?",
          advice = choices[2] or "register",
        })
        if answer == "register" then
          ctx:damage(target, 1, "fire control", rally.opposite(info.dir), { absorb = false })
        else
          ctx:discard_option(target, answer, "fire control")
        end
      end
    end,
  },
}
