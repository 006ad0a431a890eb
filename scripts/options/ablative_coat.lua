-- Ablative Coat (rules.md §6.4, §6.6): soaks the next 3 points of damage the robot would
-- take, then is discarded. Its 3 points are ammunition (`uses = 3`), so a chop shop can
-- reload a coat that has soaked some. It soaks before the player is asked about scrapping
-- options (rule `option_absorb`).
return rally.option {
  name = "ablative_coat",
  describe = "Soaks the next 3 damage, then is discarded.",
  uses = 3,
  on_damage = function(ctx, robot, amount, info, option)
    local soaked = math.min(amount, option.uses)
    ctx:use_option(robot, option.name, soaked)
    if soaked == option.uses then
      ctx:discard_option(robot, option.name, "used up")
    end
    return amount - soaked
  end,
}
