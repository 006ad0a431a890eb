-- High-Power Laser (rules.md §6.2, §6.6, D): the main laser goes through one wall or one
-- robot (whichever it meets first); a robot it goes through takes full damage too.
return rally.option {
  name = "high_power_laser",
  describe = "The main laser goes through one wall or robot; a robot shot through is hit too.",
  modify = {
    main_laser = function(ctx, robot, beam, option)
      beam.through = beam.through + 1
      return beam
    end,
  },
}
