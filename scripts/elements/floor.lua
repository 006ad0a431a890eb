-- Open factory floor: no effect. Squares with no element behave the same.
return rally.element {
  name = "floor",
  describe = "Open factory floor: robots move through it and stop on it freely.",
  glyph = ".",
  draw = {},            -- the bare floor of the board
}
