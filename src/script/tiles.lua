-- The metatable behind a tile's data (RuleSet::tile_table). A parameter its element declares
-- but the tile leaves out reads as nil without leaving the VM (every conveyor is asked for
-- `turns` and `turn` each time it carries a robot); any other key is a typo, which `fail`
-- reports at the reader's line.
return function(declared, fail)
  return {
    __index = function(_, key)
      if declared[key] then return nil end
      return fail(key)
    end,
  }
end
