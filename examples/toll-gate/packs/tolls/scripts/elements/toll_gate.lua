-- A toll gate (docs/packs.md, "A worked example: a toll gate"). A robot that has not paid
-- at this gate is stopped at its edge as at a wall, and pays; from then on the gate lets it
-- through. A robot pushed or carried into it is stopped the same way: the robot pushing it
-- stays where it is (the whole chain stops), a belt leaves it where it stands. The booth
-- shields its square from lasers.
return rally.element {
  name = "toll_gate",
  describe = "Stops a robot that has not paid here, which pays; a robot that paid passes. Stops lasers.",
  glyph = "T",
  -- Asked before a robot crosses one of its square's edges: it may refuse the crossing.
  blocks = { lasers = true },
  events = {
    toll_paid = "{robot} pays the toll at {gate} and may pass from now on",
  },
  on_cross = function(ctx, tile, robot, info)
    if info.leaving then return end   -- robots on the gate may always leave it
    local key = "paid_" .. tile.x .. "_" .. tile.y
    if robot.vars[key] then return end
    ctx:set_var(robot, key, true)
    ctx:log(robot, "toll_paid", { gate = tile.at })
    return { block = true }
  end,
}
