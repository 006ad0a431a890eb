-- A destroyed robot loses one option card of its owner's choice (rules.md §6.5 [2005]).
-- Question `lose_option`: the options held; the default is the first one drawn.
return rally.rule {
  name = "option_loss",
  describe = "A destroyed robot scraps one option card of its player's choice (§6.5).",
  hears = "robots_with_options",  -- nothing to lose without one: not called for the others
  on_destroyed = function(ctx, robot)
    local held = robot.options
    if #held == 0 then return end
    local lost = ctx:choose(robot, "lose_option", held, { text = "Destroyed: which option do you lose?" })
    ctx:discard_option(robot, lost, "destroyed")
  end,
}
