-- Superior Archive (rules.md §1.4, §7.5, §6.6, F): the robot re-enters with no damage
-- instead of 2. It must still hold the card when it re-enters: a destroyed robot scraps one
-- option (§6.5), and if this is its only one, it is gone.
return rally.option {
  name = "superior_archive",
  describe = "Re-enter with 0 damage instead of 2.",
  modify = {
    reentry_damage = function(ctx, robot, damage, option)
      return 0
    end,
  },
}
