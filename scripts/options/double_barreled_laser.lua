-- Double-Barreled Laser (rules.md §6.2, §6.6, D): the main laser deals 2 damage. Stacks with
-- High-Power Laser (a robot shot through takes 2 as well).
return rally.option {
  name = "double_barreled_laser",
  describe = "The main laser deals 1 more damage (2).",
  modify = {
    main_laser = function(ctx, robot, beam, option)
      beam.strength = beam.strength + 1
      return beam
    end,
  },
}
