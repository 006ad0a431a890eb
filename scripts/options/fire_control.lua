-- Fire Control (rules.md §6.4, §6.6, §9 #22, D): instead of an ordinary hit, the robot's
-- main laser either puts its damage token onto one of the target's registers, locking it
-- (Avalon Hill's erratum: real damage that no option may be scrapped to cancel), or destroys
-- one of the target's options. Per point of the laser's strength (Double-Barreled Laser: 2)
-- the shooter chooses (question `fire_control`: "register", the default, or one of the
-- target's options), then which register (question `fire_control_register`: the target's
-- registers not yet locked, lowest first, the default). With every register locked already,
-- the token is ordinary damage. Resolved after the volley, in card-priority order (`shot`).
-- Bots always use it, destroy an option when the target holds one, and lock the lowest
-- register (the soonest played).
return rally.option {
  name = "fire_control",
  describe = "Instead of an ordinary hit: a damage token that locks a register of the target and no option may cancel, or destroy one of the target's options (questions `shot`, `fire_control`, `fire_control_register`).",
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
          text = "Fire Control: lock a register (1 damage) or destroy one of " .. target.name .. "'s options?",
          advice = choices[2] or "register",
        })
        if answer == "register" then
          local open = {}
          for n = 1, 5 do
            if not ctx:is_locked(target, n) then open[#open + 1] = tostring(n) end
          end
          local register = nil
          if #open > 0 then
            register = tonumber(ctx:choose(robot, "fire_control_register", open, {
              text = "Fire Control: which of " .. target.name .. "'s registers does the token lock?",
            }))
          end
          ctx:damage(target, 1, "fire control", rally.opposite(info.dir), { absorb = false, register = register })
        else
          ctx:discard_option(target, answer, "fire control")
        end
      end
    end,
  },
}
