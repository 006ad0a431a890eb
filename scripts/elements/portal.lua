-- Portals (rules.md §4.16, §9.2 #14). A robot that enters a portal while executing a movement
-- card is moved at once to the other portal of the same colour, keeps its facing, and carries
-- on with the rest of its card from there (the core continues the move from wherever the
-- robot now stands). If a robot stands on that twin portal, this portal is open floor.
-- Arriving on the twin (a "jump" by the card, in the direction of travel) does not send the
-- robot back; pushed and carried robots never jump.

--- The other portal of `tile`'s colour; a colour must come in exactly one pair.
local function twin_of(ctx, tile)
  local twin
  for _, t in ipairs(ctx:find_tiles("portal")) do
    if t.color == tile.color and (t.x ~= tile.x or t.y ~= tile.y) then
      if twin then
        error("portal colour `" .. tile.color .. "` is used by more than two portals; pair them by colour")
      end
      twin = t
    end
  end
  if not twin then
    error("the portal at " .. tile.x .. "," .. tile.y .. " has no twin of colour `" .. tile.color .. "`")
  end
  return twin
end

return rally.element {
  name = "portal",
  describe = "A robot entering it by a movement card jumps to the same-coloured portal and moves on.",
  params = { color = rally.param.string { describe = "portals of one colour form a pair" } },
  glyph = function(tile) return "@" .. tile.color:sub(1, 1) end,
  draw = {
    legend = function(tile) return "portal (" .. tile.color .. ")" end,
    { "circle", r = 25, color = "#111" },
    function(tile)
      -- Colour names come from boards: a name that is not a plain colour is drawn purple.
      local color = tile.color:match("^%a+$") and tile.color or "purple"
      return {
        { "ring", r = 21, color = color, width = 6 },
        { "ring", r = 11, color = color, width = 3, opacity = 0.7 },
        { "label", tile.color, size = 9, color = "#fff" },
      }
    end,
  },
  events = {
    portal = "{robot} goes through the portal at {from} to its twin at {to}",
    portal_blocked = "{robot} cannot go through the portal: a robot stands on its twin at {at}",
  },
  on_enter = function(ctx, tile, robot, info)
    if info.how ~= "card" then return end
    local twin = twin_of(ctx, tile)
    if ctx:robot_at(twin.at) then
      ctx:log(robot, "portal_blocked", { at = { twin.x, twin.y } })
      return
    end
    ctx:log(robot, "portal", { from = { tile.x, tile.y }, to = { twin.x, twin.y } })
    ctx:place(robot, twin.at, "jump", info.dir, "the portal")
  end,
}
