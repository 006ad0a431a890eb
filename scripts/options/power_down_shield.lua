-- Power-Down Shield (rules.md §6.4, §6.6): while the robot is powered down, it prevents up to
-- 1 damage from each of the 4 directions per register. A direction is the side the damage
-- comes from (a laser beam's); damage with no direction (radiation, waste, a flamer) is not
-- shielded [prop.]. What it has blocked this register is kept in `robot.vars.power_down_shield`.
return rally.option {
  name = "power_down_shield",
  describe = "While powered down: blocks 1 damage from each side per register.",
  on_damage = function(ctx, robot, amount, info, option)
    if not robot.powered_down or not info.from then return end
    local now = ctx.turn * 10 + ctx.register
    local used = robot.vars.power_down_shield
    -- The var is read-only: the sides blocked this register are stored as a new table.
    local sides = {}
    if used and used.now == now then
      if used.sides[info.from] then return end
      for side, blocked in pairs(used.sides) do sides[side] = blocked end
    end
    sides[info.from] = true
    ctx:set_var(robot, "power_down_shield", { now = now, sides = sides })
    return amount - 1
  end,
}
