-- A laser that fires only in the registers printed on it: the board laser's declared beam
-- with `when` naming its phases.
return rally.element {
  name = "pulse_laser",
  describe = "Fires a beam of 1 damage along `dir` in segment D of its registers.",
  params = {
    dir = rally.param.dir { describe = "the beam's direction" },
    phases = rally.param.phases { describe = "the registers it fires in" },
  },
  glyph = "Lp",
  tile_steps = {
    fire = rally.effect.beam("dir", { when = "phases", cause = "pulse" }),
  },
}
