-- Scrapping options to absorb damage (rules.md §6.4 [2005]): when a robot would take damage,
-- its player may discard any number of its option cards, each cancelling 1 point, choosing at
-- the moment the damage arrives. Runs after the robot's own options (an Ablative Coat soaks
-- first). Question `absorb`: "no" (the default) or the option to scrap, asked again for each
-- point while damage and options remain. Bots scrap only to survive (`lethal`). Damage dealt
-- with `absorb = false` (Fire Control, rules.md §9 #22) cannot be cancelled this way.
return rally.rule {
  name = "option_absorb",
  describe = "A robot may scrap an option card to cancel 1 point of damage, as often as it has options (§6.4).",
  -- A robot without options has nothing to scrap: the engine does not call the rule for it.
  hears = "robots_with_options",
  on_damage = function(ctx, robot, amount, info)
    if not info.absorb then return amount end
    while amount > 0 and #robot.options > 0 do
      local choices = { "no" }
      for _, name in ipairs(robot.options) do choices[#choices + 1] = name end
      local answer = ctx:choose(robot, "absorb", choices, {
        text = string.format("%d damage (%s) is coming: scrap an option to cancel 1?", amount, info.cause),
        amount = amount,
        lethal = robot.damage + amount >= 10,
      })
      if answer == "no" then break end
      ctx:discard_option(robot, answer, "absorbed")
      amount = amount - 1
    end
    return amount
  end,
}
