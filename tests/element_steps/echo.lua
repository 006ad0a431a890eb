-- A house rule that fires every pulse laser a second time, by calling the element's declared
-- effect as the function it stands for: still only in the laser's registers.
return rally.rule {
  name = "echo",
  describe = "Pulse lasers fire twice.",
  steps = {
    fire = function(ctx)
      for _, tile in ipairs(ctx:tiles_at({ x = 2, y = 0 })) do
        if tile.element == "pulse_laser" then
          rally.elements.pulse_laser.tile_steps.fire(ctx, tile)
        end
      end
    end,
  },
}
