-- Calls the engine makes into scripts with a table built on the way (src/engine/): the table
-- is made here by the Lua VM, in the handler's own call, rather than from Rust, where every
-- table costs a protected call of its own (engine/values.rs). Each ends in a tail call, so
-- the handler's errors, `error(message, 2)` included, read as if the engine called it.
local calls = {}

-- `on_damage(ctx, robot, amount, info, option)` of an option or a rule.
function calls.damage(f, ctx, robot, amount, cause, from, absorb, option)
  return f(ctx, robot, amount, { cause = cause, from = from, absorb = absorb }, option)
end

return calls
