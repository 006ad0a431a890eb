-- The rule of the variant `{{name}}` (written by `rally new variant {{name}}`); make it yours.
-- tests/scenarios/{{name}}.toml switches the variant on and `rally test` checks it. A variant
-- file declares with rally.rule, rally.element or rally.option (it need not return them) and
-- reads its parameters from `params`. Everything else: docs/api.md in rally's repository.
rally.rule {
  name = "{{rule}}",
  describe = "A robot that plays a Move 3 takes params.damage at the end of the register.",
  -- A rule's step handlers run once per step, for the whole board.
  steps = {
    register_end = function(ctx)
      for _, robot in ipairs(ctx:robots()) do
        local card = ctx:card(robot)
        if card and card.name == "move3" and params.damage > 0 then
          ctx:damage(robot, params.damage, "overheated")
        end
      end
    end,
  },
}
