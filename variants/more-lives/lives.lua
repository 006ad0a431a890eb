-- More lives (rules.md §1.4): at the start of the game every robot gets `params.extra` more
-- lives. Given once per game: a game var remembers it, so a saved or reloaded game does not
-- hand them out again.
local GIVEN = "more_lives_given"

rally.rule {
  name = "more_lives",
  describe = "Each robot gets extra lives at the start of the game.",
  steps = {
    turn_start = function(ctx)
      if ctx:game_var(GIVEN) then return end
      for _, robot in ipairs(ctx:robots()) do
        ctx:set_lives(robot, robot.lives + params.extra)
      end
      ctx:set_game_var(GIVEN, true)
    end,
  },
}
