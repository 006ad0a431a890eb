---@meta rally
-- Type annotations of the rally scripting API for lua-language-server (LuaLS): completion,
-- hover docs and type checks in element and variant scripts. Never loaded by rally itself
-- (only scripts/elements/, scripts/rules/ and scripts/options/ are). The `.luarc.json` at the
-- project root points the language server here; `rally types -o DIR` writes this file out.
--
-- This file is also the source of the API reference, docs/api.md (`rally types --markdown
-- docs/api.md`): describe every entry with `---` lines above it and give functions,
-- declaration keys and steps a short ```lua example (src/script/reference.rs says how it is read).
-- tests/lua_api.rs fails when this file and the API (src/engine/ctx.rs, src/script/mod.rs,
-- decl.rs, prelude.lua) or the order of play disagree; tests/api_reference.rs when an entry has no
-- description or example, or docs/api.md is stale.

---A compass direction; north is up, towards row 0.
---@alias rally.Dir "N"|"E"|"S"|"W"
---A quarter turn left or right, or a half turn.
---@alias rally.Rotation "left"|"right"|"uturn"
---How a robot came to move: by its program card, pushed by another robot, carried by a belt
---or current, jumped by its card over the squares between (teleporters, portals), or moved
---by a script (`ctx:place`).
---@alias rally.How "card"|"push"|"belt"|"jump"|"script"

---A square: `{ x = .., y = .. }` (ctx methods also accept `{ x, y }`).
---
---```lua
---local north = { x = robot.x, y = robot.y - 1 }
---if ctx:on_board(north) and not ctx:robot_at(north) then ... end
---```
---@class rally.Pos
---@field x integer column, from the west edge (0)
---@field y integer row, from the north edge (0); north is y - 1

---A program card as scripts see it: `{ name = "move2", priority = 700, distance = 2, dir = "E",
---rotation = nil, back = false }`. A fresh table every time: changing it changes nothing
---(return a new distance or direction from `on_card` instead).
---
---```lua
---on_card = function(ctx, tile, robot, card)
---  if card.distance >= 2 then ctx:log(robot, "fast_card", { card = card.name }) end
---end,
---```
---@class rally.Card
---@field name string `move1`, `move2`, `move3`, `back`, `left`, `right` or `uturn`
---@field priority integer|nil nil for a scenario card written without `@PRIORITY`
---@field distance integer squares it moves (0 for rotations); in `on_card`, as the handlers before have left it
---@field rotation rally.Rotation|nil the turn of a rotation card
---@field back boolean true for Back Up
---@field dir rally.Dir|nil in `on_card` and `on_card_end`: the direction it will move the robot (nil for rotations)

---A robot, read-only: change it only through `ctx` methods. A live view: it always shows the
---robot as it is now, so read it again after a `ctx:` call that moves it.
---
---```lua
---if robot.damage >= 5 and not robot.powered_down then
---  ctx:log(robot, "smoking", { at = { robot.x, robot.y }, facing = robot.facing })
---end
---```
---@class rally.Robot
---@field name string as the scenario or game names it
---@field at rally.Pos the square it stands on
---@field x integer `at.x`
---@field y integer `at.y`
---@field facing rally.Dir the direction it faces
---@field damage integer 0..10; 10 destroys it
---@field lives integer lives left
---@field flags integer checkpoints touched
---@field archive rally.Pos where it re-enters
---@field destroyed boolean destroyed and waiting to re-enter (or out of the game)
---@field powered_down boolean powered down this turn
---@field vars table<string, any> what scripts remember about it (`ctx:set_var`), read-only all the way down: `robot.vars.x = v` and `robot.vars.t.k = v` are errors (a change there would be lost); store a new value, or a changed copy of a table, with `ctx:set_var`
---@field options string[] the option cards it holds, in the order drawn

---A tile: the element's parameters (checked, defaults filled in) plus where it is. Read-only.
---One square may hold several tiles (a wall and a belt).
---
---```lua
---steps = {
---  pushers = function(ctx, tile, robot)
---    if rally.active(tile.phases, ctx.register) then ctx:queue_push(robot, tile.dir) end
---  end,
---},
---```
---@class rally.Tile
---@field at rally.Pos its square
---@field x integer `at.x`
---@field y integer `at.y`
---@field element string the element's name
---@field [string] any its parameters, e.g. `tile.dir`, `tile.phases`

---The door to the game, given to every handler as its first argument. Every change goes
---through its methods, which enforce the physical rules once: walls and one-way walls,
---pushing chains (all or nothing), pits and the board edge, simultaneous belts, beams stopped
---by walls and the first robot, destruction at 10 damage, lives and archives. A method that
---gets a wrong argument is an error naming the script's line.
---
---```lua
---tile_steps = {
---  fire = function(ctx, tile)
---    if ctx.register == 5 then ctx:fire_beam(tile.at, "N", 1, { cause = "mortar" }) end
---  end,
---},
---```
---@class rally.Ctx
---@field register integer the register being resolved (1..5), 0 outside registers
---@field turn integer the turn, from 1
---@field width integer board width in squares
---@field height integer board height in squares
---@field segment string the segment being resolved (`turn_start`, `reveal`, `robots_move`, `board_elements`, `lasers`, `touch`, `end_of_turn`), as log events show it
local Ctx = {}

---The robots on the board (not destroyed), in game order.
---
---```lua
---for _, other in ipairs(ctx:robots()) do
---  if other.flags > robot.flags then ctx:damage(other, 1, "envy") end
---end
---```
---@return rally.Robot[]
function Ctx:robots() end

---The robot standing on a square, if any.
---
---```lua
---local ahead = ctx:robot_at(rally.step(robot.at, robot.facing))
---if ahead then ctx:push(ahead, robot.facing) end
---```
---@param at rally.Pos the square
---@return rally.Robot|nil robot nil when the square is empty or off the board
function Ctx:robot_at(at) end

---The tiles on a square, in board order.
---
---```lua
---for _, t in ipairs(ctx:tiles_at(robot.at)) do
---  if t.element == "conveyor" then return end  -- belts carry it anyway
---end
---```
---@param at rally.Pos the square
---@return rally.Tile[]
function Ctx:tiles_at(at) end

---Every tile of one element on the board, in board order (row, then column): a portal finds
---its twin, an element finds its partners.
---
---```lua
---local switches = ctx:find_tiles("switch")
---ctx:log(nil, "switches", { count = #switches })
---```
---@param element string an element name
---@return rally.Tile[]
function Ctx:find_tiles(element) end

---Does the square hold this element?
---
---```lua
---if ctx:has(robot.at, "oil") then return rally.lose_first_square(card) end
---```
---@param at rally.Pos the square
---@param element string an element name
---@return boolean
function Ctx:has(at, element) end

---Is the square on the board?
---
---```lua
---local target = rally.step(robot.at, robot.facing, 3)
---if not ctx:on_board(target) then ctx:log(robot, "would_fall_off") end
---```
---@param at rally.Pos the square
---@return boolean
function Ctx:on_board(at) end

---Can a robot cross from `at` to its neighbour in `dir` (no wall in between)? Says nothing
---about robots or the board edge.
---
---```lua
---for _, dir in ipairs(rally.dirs) do
---  local other = ctx:robot_at(rally.step(tile.at, dir))
---  if other and ctx:can_move(tile.at, dir) then ctx:face(other, rally.opposite(dir)) end
---end
---```
---@param at rally.Pos the square it would leave
---@param dir rally.Dir the side it would cross
---@return boolean
function Ctx:can_move(at, dir) end

---What a beam or a line of sight from a square (or a robot's square) along `dir` meets, as
---the engine traces one: it crosses edges as a laser does and stops at the first robot, at a
---wall or at the board's edge. `squares` are the squares reached, nearest first (the robot's
---included, `from` not); `wall` is where a wall stopped it (`at`, and the `side` of that
---square), nil otherwise.
---
---```lua
---local seen = ctx:trace(tile.at, tile.dir, { range = 4 })  -- a magnetic crane looks along its arm
---if seen.robot then ctx:queue_push(seen.robot, rally.opposite(tile.dir), "the magnetic crane") end
---```
---@param from rally.Pos|rally.Robot where it starts (not itself looked at)
---@param dir rally.Dir the direction it looks
---@param opts? { range: integer? } `range`: squares at most, 0 or more (default: across the board)
---@return { squares: rally.Pos[], robot: rally.Robot|nil, wall: { at: rally.Pos, side: rally.Dir }|nil }
function Ctx:trace(from, dir, opts) end

---A pit or anything robots are never placed on; off the board counts too.
---
---```lua
---if ctx:is_hazard(rally.step(robot.at, robot.facing)) then ctx:log(robot, "edge_ahead") end
---```
---@param at rally.Pos the square
---@return boolean
function Ctx:is_hazard(at) end

---Something occupies the square (a teleport cannot land there): flags, crushers and other
---devices that declared `b:solid()`.
---
---```lua
---if ctx:robot_at(target) or ctx:is_solid(target) then return end  -- blocked: move normally
---```
---@param at rally.Pos the square
---@return boolean
function Ctx:is_solid(at) end

---How many flags the board has.
---
---```lua
---if robot.flags == ctx:flag_count() - 1 then ctx:log(robot, "one_flag_to_go") end
---```
---@return integer
function Ctx:flag_count() end

---Moves a robot up to `squares` in `dir`, one square at a time, pushing robots in the way;
---stops at a wall (a blocked push also stops it) or when the robot is destroyed (a pit, the
---board edge). Each square entered is told (`on_cross`, `on_enter`), so a Move 3 passes its
---middle squares' `on_enter` too.
---
---```lua
---local moved = ctx:move(robot, robot.facing, 2)  -- a spring pad: 2 squares forward
---ctx:log(robot, "sprung", { squares = moved })
---```
---@param robot rally.Robot the robot to move
---@param dir rally.Dir the direction of travel (its facing is unchanged)
---@param squares? integer default 1; 0 or more
---@param how? rally.How default "script"
---@param by? string what moves it, which its events' sentences say ("moves E to [3, 1] by the spring pad")
---@return integer moved squares actually moved
function Ctx:move(robot, dir, squares, how, by) end

---Pushes a robot 1 square at once (with any chain ahead, all or nothing). Board pushers,
---which push together, queue theirs with `ctx:queue_push` instead.
---
---```lua
---local bumped = ctx:robot_at(rally.step(robot.at, robot.facing))
---if bumped and not ctx:push(bumped, robot.facing) then ctx:log(robot, "push_blocked") end
---```
---@param robot rally.Robot the robot to push
---@param dir rally.Dir the direction of the push
---@param by? string what pushes it, which the sentence says ("is pushed E to [3, 1] by the magnetic crane")
---@return boolean moved false when a wall held it or the chain
function Ctx:push(robot, dir, by) end

---Puts a robot on a free square (teleports, portals) and tells that square's `on_enter`; a
---pit or the board edge destroys it. Placing it on another robot is an error.
---
---```lua
---local twin = ctx:find_tiles("portal")[1]
---if not ctx:robot_at(twin.at) then ctx:place(robot, twin.at, "script") end
---```
---@param robot rally.Robot the robot to put there
---@param at rally.Pos a free square (or a pit, or off the board, which destroy it)
---@param how? rally.How default "script"
---@param dir? rally.Dir its facing afterwards; default: as it was
---@param by? string what puts it there, which the sentence says ("is put on [3, 7] by the teleporter")
function Ctx:place(robot, at, how, dir, by) end

---Turns a robot a quarter left or right, or half round, unless a rule's or its options'
---`on_rotate` stops it (Gyroscopic Stabilizer stops gears and belts).
---
---```lua
---steps = { gears = function(ctx, tile, robot) ctx:rotate(robot, tile.turn, "gear") end },
---```
---@param robot rally.Robot the robot to turn
---@param rotation rally.Rotation which way
---@param by? string what turns it, as `on_rotate` hooks see it: "gear", "belt", "ice"... (default "script")
---@return boolean turned false if a hook stopped it
function Ctx:rotate(robot, rotation, by) end

---Turns a robot to face `dir`.
---
---```lua
---ctx:face(robot, rally.opposite(robot.facing))
---```
---@param robot rally.Robot the robot to turn
---@param dir rally.Dir the direction it faces afterwards
function Ctx:face(robot, dir) end

---Queues a belt move; all belt moves of a step are resolved together when the step ends
---(rules.md §5.2): two robots wanting one square both stay, belts never push.
---
---```lua
---steps = { belts = function(ctx, tile, robot) ctx:convey(robot, tile.dir) end },
---```
---@param robot rally.Robot the robot carried
---@param dir rally.Dir the direction it is carried, 1 square
function Ctx:convey(robot, dir) end

---Queues a board pusher's push (the robot and any chain ahead); all pushes of a step are
---resolved together from the board as it stands before them: opposed or crossing pushes,
---and pushes into one square, cancel (rules.md §5.2).
---
---```lua
---steps = { pushers = function(ctx, tile, robot)
---  if rally.active(tile.phases, ctx.register) then ctx:queue_push(robot, tile.dir) end
---end },
---```
---@param robot rally.Robot the robot to push
---@param dir rally.Dir the direction of the push
---@param by? string what pushes it, which the sentences say ("is pushed E to [3, 1] by the magnetic crane")
function Ctx:queue_push(robot, dir, by) end

---Every robot on the board that is not powered down fires its main laser forward (the
---standard robot lasers): 1 damage to the first robot in line, as its options modify it
---(`modify.main_laser`). Damage in segment D is applied together at the end of the step.
---
---```lua
---rally.rule { name = "robot_lasers", replace = true,
---  steps = { fire = function(ctx) if ctx.register ~= 1 then ctx:fire_robot_lasers() end end } }
---```
function Ctx:fire_robot_lasers() end

---Fires a beam; damages the first robot hit (applied with segment D's damage). From a square
---(a board laser) the beam starts in that square; from a robot (its own laser) it starts in
---the square in front, so the shooter never hits itself. Walls stop it.
---
---```lua
---local hit = ctx:fire_beam(robot, rally.opposite(robot.facing), 1, { cause = "rear laser" })
---```
---@param from rally.Pos|rally.Robot a square (a board laser) or a robot (its own laser)
---@param dir rally.Dir the direction the beam travels
---@param strength? integer damage per robot hit, default 1; 0 or more
---`cause` names it in the log (default "laser", or "robot laser" from a robot);
---`through = n`: the beam goes on through n walls or robots (High-Power Laser); every
---robot in it is hit.
---@param opts? { cause: string?, through: integer? }
---@return rally.Robot|nil hit the first robot hit
---@return rally.Robot[] all every robot hit, in order
function Ctx:fire_beam(from, dir, strength, opts) end

---Damage, after the robot's options and the rules' `on_damage` had their say; 10 destroys it.
---In step `fire` it is applied together at the end of the step.
---
---```lua
---steps = { fire = function(ctx, tile, robot) ctx:damage(robot, tile.strength, "magnet") end },
---```
---@param robot rally.Robot the robot hit
---@param amount integer points of damage (0 or more), before options and rules change it
---@param cause? string for the log, default "script"
---@param from? rally.Dir the side of the robot it comes from (Power-Down Shield), if any
---@param opts? { absorb: boolean?, register: integer? } `absorb = false`: its player may not scrap options to cancel it (Fire Control); `register = n`: its first token lies on register n (1..5) and locks it, unless it is locked already (Fire Control)
function Ctx:damage(robot, amount, cause, from, opts) end

---Destroys a robot at once (pits, crushers): it loses a life and re-enters at the end of the
---turn if it has one left.
---
---```lua
---steps = { crushers = function(ctx, tile, robot) ctx:destroy(robot, "crusher") end },
---```
---@param robot rally.Robot the robot destroyed
---@param cause? string for the log, default "script"
function Ctx:destroy(robot, cause) end

---Removes damage (default 1), never below 0.
---
---```lua
---steps = { end_of_turn = function(ctx, tile, robot) ctx:repair(robot, tile.wrenches) end },
---```
---@param robot rally.Robot the robot repaired
---@param amount? integer default 1; 0 or more
function Ctx:repair(robot, amount) end

---Sets the robot's lives left (a house rule giving more or fewer lives); logs `lives`.
---
---```lua
---ctx:set_lives(robot, robot.lives + params.extra)
---```
---@param robot rally.Robot the robot
---@param lives integer its lives from now on
function Ctx:set_lives(robot, lives) end

---Touches flag `number`; counts only if it is the robot's next flag. Moves the archive.
---
---```lua
---steps = { touch = function(ctx, tile, robot) ctx:touch_flag(robot, tile.number) end },
---```
---@param robot rally.Robot the robot touching it
---@param number integer the flag's number (1 is the first)
---@return boolean counted true if it was the robot's next flag
function Ctx:touch_flag(robot, number) end

---Moves the robot's archive marker (default: where it stands).
---
---```lua
---steps = { touch = function(ctx, tile, robot) ctx:set_archive(robot) end },
---```
---@param robot rally.Robot the robot whose archive moves
---@param at? rally.Pos default: the robot's square
function Ctx:set_archive(robot, at) end

---Remembers a value about a robot (read back as `robot.vars[key]`); nil removes it. Saved
---with the game, rolled back with a failed register, kept across a hot reload, shown by
---`rally run` and `--json`.
---
---```lua
---ctx:set_var(robot, "tolls", (robot.vars.tolls or 0) + 1)
---```
---@param robot rally.Robot the robot it is about
---@param key string the name to read it back by (`robot.vars[key]`)
---@param value any JSON-like: nil, boolean, number, string, table
function Ctx:set_var(robot, key, value) end

---A game-wide remembered value (nil when never set).
---
---```lua
---if ctx:game_var("alarm") then ctx:damage(robot, 1, "alarm") end
---```
---@param key string the name it was set by
---@return any value
function Ctx:game_var(key) end

---Remembers a game-wide value; nil removes it. Saved like robot vars.
---
---```lua
---ctx:set_game_var("alarm", ctx.turn)
---```
---@param key string the name to read it back by (`ctx:game_var(key)`)
---@param value any JSON-like; nil removes it
function Ctx:set_game_var(key, value) end

---A number in 1..n from the game's seeded RNG, so a game replays the same way.
---`math.random` draws from the same generator.
---
---```lua
---local dir = rally.dirs[ctx:random(4)]
---```
---@param n integer at least 1
---@return integer
function Ctx:random(n) end

---Adds an event to the log (`rally run`, `--json`, replays). Details are JSON-like.
---
---```lua
---ctx:log(robot, "toll_paid", { gate = { tile.x, tile.y }, total = robot.vars.tolls })
---```
---@param robot rally.Robot|nil who it is about; nil for the board
---@param what string the event's name
---@param detail? table<string, any> the event's details, JSON-like (`{ at = { x, y } }`); none named `turn`, `register`, `segment`, `robot` or `what` (the event's own fields)
function Ctx:log(robot, what, detail) end

---A random card from the classic deck, leaving out the cards in robots' registers
---(randomizers).
---
---```lua
---on_reveal = function(ctx, tile, robot, card) return ctx:random_card() end,
---```
---@return rally.Card
function Ctx:random_card() end

---The robot's card in the current register (after any randomizer swap), if any.
---
---```lua
---local card = ctx:card(robot)
---if card and card.rotation then ctx:damage(robot, 1, "dizzy") end
---```
---@param robot rally.Robot the robot whose card it is
---@return rally.Card|nil card nil outside the registers and for robots without a card
function Ctx:card(robot) end

---A card as a script gives it to `ctx`: a card table, or its text `"move2@700"`
---(`rally.card_text`).
---@alias rally.CardArg rally.Card|string

---The robot's hand while it programs: in `on_deal` the cards dealt, in `on_program` its
---leftovers (discarded after the hooks); empty at any other time. A card an option offers
---beside the hand (Flywheel's) is not in it.
---
---```lua
---on_deal = function(ctx, robot) ctx:log(robot, "dealt", { cards = #ctx:hand(robot) }) end,
---```
---@param robot rally.Robot the robot programming
---@return rally.Card[]
function Ctx:hand(robot) end

---Deals cards from the top of this turn's program deck into the robot's hand (logs
---`cards_drawn`).
---
---```lua
---for _, card in ipairs(ctx:hand(robot)) do ctx:discard_card(robot, card) end
---ctx:draw_cards(robot, 5)
---```
---@param robot rally.Robot the robot programming
---@param n? integer how many, default 1
---@return rally.Card[] drawn fewer if the deck runs out
function Ctx:draw_cards(robot, n) end

---Takes a card out of the robot's hand: it is discarded (logs `card_discarded`).
---
---```lua
---local hand = ctx:hand(robot)
---if #hand > 0 then ctx:discard_card(robot, hand[1]) end
---```
---@param robot rally.Robot the robot programming
---@param card rally.CardArg the card to discard
---@return boolean done false if it is not in the hand
function Ctx:discard_card(robot, card) end

---Sets a card from the robot's hand aside under `key` (an option's name): out of the hand and
---out of the deck until `ctx:take_kept` (logs `card_kept`). A card already kept under `key`
---is discarded; losing the option of that name loses the card.
---
---```lua
---on_program = function(ctx, robot, option)
---  local best = rally.longest_move(ctx:hand(robot))
---  if best then ctx:keep_card(robot, option.name, best, { offered = true }) end
---end,
---```
---@param robot rally.Robot the robot programming
---@param key string what it is kept under (an option's name)
---@param card rally.CardArg a card in its hand
---@param opts? { offered: boolean? } `offered = true`: offered with the hand whenever the robot programs, until a program uses it (Flywheel)
---@return boolean done false if the card is not in the hand
function Ctx:keep_card(robot, key, card, opts) end

---The card the robot keeps under `key`, if any.
---
---```lua
---local kept = ctx:kept_card(robot, "conditional_program")
---if kept then ctx:log(robot, "holding", { card = rally.card_text(kept) }) end
---```
---@param robot rally.Robot the robot
---@param key string what it is kept under
---@return rally.Card|nil
function Ctx:kept_card(robot, key) end

---Takes the card kept under `key` off the option and returns it (logs `card_unkept`): to put
---it in a register, or to let it go.
---
---```lua
---ctx:set_card(robot, ctx.register, ctx:take_kept(robot, option.name), "conditional program")
---```
---@param robot rally.Robot the robot
---@param key string what it is kept under
---@return rally.Card|nil card nil if nothing is kept there
function Ctx:take_kept(robot, key) end

---The robot's five registers: a card, or false where a register is empty.
---
---```lua
---local next = ctx:program(robot)[ctx.register + 1]
---if next and next.distance == 3 then ctx:log(robot, "flooring_it") end
---```
---@param robot rally.Robot the robot
---@return (rally.Card|false)[]
function Ctx:program(robot) end

---Is a register locked by the robot's damage (registers `damage − 4` and up, from 5 down,
---rules.md §1.3)?
---
---```lua
---if not ctx:is_locked(robot, 5) then ctx:set_card(robot, 5, ctx:draw_card(), "glitch") end
---```
---@param robot rally.Robot the robot
---@param register integer 1 to 5
---@return boolean
function Ctx:is_locked(robot, register) end

---Puts a card (nil: nothing) in one of the robot's registers for the rest of the turn (logs
---`card_set`). A register whose card has been revealed this turn cannot change.
---
---```lua
---steps = { register_start = function(ctx, robot, option)
---  ctx:set_card(robot, ctx.register, ctx:draw_card(), "abort switch")
---end },
---```
---@param robot rally.Robot the robot
---@param register integer 1 to 5, not yet revealed this turn
---@param card rally.CardArg|nil the new card, or nil for none
---@param why? string for the log
function Ctx:set_card(robot, register, card, why) end

---Copies another robot's card in a register into this robot's (Radio Control). On a tie of
---priorities the original's robot acts first (rules.md §9 #20).
---
---```lua
---for r = ctx.register + 1, 5 do ctx:copy_card(target, r, robot, "radio control") end
---```
---@param robot rally.Robot the robot whose register changes
---@param register integer 1 to 5, not yet revealed this turn
---@param from rally.Robot the robot whose card it copies
---@param why? string for the log
function Ctx:copy_card(robot, register, from, why) end

---The top card of this turn's program deck, taken off it (the deal left it; in a scenario of
---one turn, the classic deck without the cards in registers, shuffled).
---
---```lua
---ctx:set_card(target, ctx.register + 1, ctx:draw_card(), "scrambler")
---```
---@return rally.Card|nil card nil when every card is out
function Ctx:draw_card() end

---An option card as `ctx:options` lists it and option handlers receive it.
---
---```lua
---for _, o in ipairs(ctx:options(robot)) do
---  if o.uses and o.uses < (o.max_uses or 0) then ctx:reload_option(robot, o.name) end
---end
---```
---@class rally.HeldOption
---@field name string the option's name
---@field uses integer|nil ammunition left (nil: no limit)
---@field max_uses integer|nil the declared `uses`

---The option cards a robot holds, in the order drawn.
---
---```lua
---for _, o in ipairs(ctx:options(robot)) do ctx:log(robot, "holds", { option = o.name }) end
---```
---@param robot rally.Robot the holder
---@return rally.HeldOption[]
function Ctx:options(robot) end

---Does the robot hold this option card?
---
---```lua
---if ctx:has_option(robot, "brakes") then return end
---```
---@param robot rally.Robot the robot asked about
---@param name string an option's name
---@return boolean
function Ctx:has_option(robot, name) end

---Draws the top option card (logs `option_drawn`); the first draw shuffles the deck.
---
---```lua
---steps = { touch = function(ctx, tile, robot) ctx:draw_option(robot) end },
---```
---@param robot rally.Robot the robot that draws it
---@return string|nil name nil when deck and discards are empty
function Ctx:draw_option(robot) end

---Scraps a held option onto the discards (logs `option_discarded`).
---
---```lua
---ctx:discard_option(robot, robot.options[1], "absorbed")
---```
---@param robot rally.Robot the holder
---@param name string the option's name
---@param why? string for the log, default "scrapped"
---@return boolean done false if not held
function Ctx:discard_option(robot, name, why) end

---Spends ammunition (default 1) of a held option.
---
---```lua
---if ctx:use_option(robot, option.name) then return { distance = card.distance + 1 } end
---```
---@param robot rally.Robot the holder
---@param name string the option's name
---@param n? integer default 1
---@return boolean done false if not held or not enough left
function Ctx:use_option(robot, name, n) end

---Refills a held option's ammunition to its declared `uses`.
---
---```lua
---for _, name in ipairs(robot.options) do ctx:reload_option(robot, name) end
---```
---@param robot rally.Robot the holder
---@param name string the option's name
---@return boolean done false if not held or without ammunition
function Ctx:reload_option(robot, name) end

---Asks the robot's player (the decision interface, docs/options.md). The FIRST choice is the
---default. A scenario fixes answers with `choices = { key = "answer" }` in its `[[robot]]`;
---bots answer by their policy; people are asked at the terminal.
---
---```lua
---local answer = ctx:choose(robot, "brakes", { "no", "yes" }, { text = "Brake: move 0 instead of 1?" })
---if answer == "yes" then return { distance = 0 } end
---```
---@param robot rally.Robot the robot whose player answers
---@param key string a stable name for the question
---@param choices string[] the possible answers; the first is the default
---@param info? table `text` for people; `cards`: the cards the question is about (card texts, `rally.card_text`), which a playtest table draws as cards; `at`: a square the question is about (`{ x =, y = }`), marked on a playtest table's board; `hidden = true`: the answer tells what is face down, and a playtest table shows it to no one else; other keys are hints for bots
---@return string answer one of `choices`
function Ctx:choose(robot, key, choices, info) end

---`value` after each option the robot holds ran its `modify[key]` on it (held order).
---
---```lua
---local hand = ctx:modify(robot, "hand_size", 9 - robot.damage)
---```
---@generic T
---@param robot rally.Robot the robot whose options are asked
---@param key string `hand_size`, `reentry_damage`, `main_laser`, or a script's own
---@param value T the value before the options
---@return T value as the options left it
function Ctx:modify(robot, key, value) end

---What `build(b, tile)` writes static facts through, when the board is compiled (before any
---robot moves): walls, hazards, flags and docks the core then enforces natively.
---
---```lua
---build = function(b, tile) b:wall(tile.side) end,
---```
---@class rally.Builder
local Builder = {}

---A wall on side `side` of this square: blocks robots and lasers both ways, unless `opts`
---says otherwise.
---
---```lua
---build = function(b, tile) b:wall(tile.side, { pass = "out" }) end,  -- a one-way wall
---```
---@param side rally.Dir the side of this square
---`opts.pass = "out"|"in"`: robots and lasers cross one way only (out of or into this
---square); `opts.lasers = false`: lasers cross it.
---@param opts? { pass: "out"|"in"|nil, lasers: boolean? }
function Builder:wall(side, opts) end

---Robots are never placed here and a teleport onto it destroys (pits and kin).
---
---```lua
---build = function(b, tile) b:hazard() end,
---```
function Builder:hazard() end

---Something occupies this square (`ctx:is_solid`).
---
---```lua
---build = function(b, tile) b:solid() end,
---```
function Builder:solid() end

---This tile does not hear its element's hook `key` (`"on_conveyed"`...): where the handler
---cannot matter (a straight belt turns nobody), it is not called at all; the element's other
---tiles still hear it. A turn spends no Lua call on a tile that would do nothing.
---
---```lua
---build = function(b, tile) if not tile.turn then b:ignore("on_conveyed") end end,
---```
---@param key string one of the hooks an element hears (`on_enter`, `on_conveyed`, ...)
function Builder:ignore(key) end

---This square is flag `number`.
---
---```lua
---build = function(b, tile) b:flag(tile.number) end,
---```
---@param number integer the flag's number, from 1
function Builder:flag(number) end

---This square is start (docking bay) `number`; a robot placed here faces `facing` unless
---the game (its seat's `facing`) or the scenario (the robot's `facing`) gives one, and
---north if neither does.
---
---```lua
---build = function(b, tile) b:start(tile.number, tile.facing) end,
---```
---@param number integer the dock's number, from 1 (robot 1 starts on dock 1)
---@param facing? rally.Dir the way a robot placed here faces by default
function Builder:start(number, facing) end

---What `on_enter`, `on_cross` and `on_card_end` are told about the move.
---
---```lua
---on_enter = function(ctx, tile, robot, info)
---  if info.how == "card" and info.card.distance == 3 then ctx:log(robot, "fast_entry") end
---end,
---```
---@class rally.MoveInfo
---@field how rally.How what moved it
---@field dir rally.Dir the direction of travel
---@field card rally.Card|nil the card that moved it, if a card did
---@field side rally.Dir|nil `on_cross`: the side of this square crossed
---@field leaving boolean|nil `on_cross`: true on the square being left
---@field blocked boolean|nil `on_cross`: a wall on that edge stopped it
---@field remaining integer|nil `on_cross`: squares of the move still to go
---@field pusher rally.Robot|nil `on_cross`: the robot pushing it
---@field moved boolean|nil `on_card_end`: whether the card changed its square

---What `on_card` may return: nil (execute normally), `rally.HANDLED`, or
---`{ distance = n, dir = d, rotate = r }` (any of the keys: how far and which way the card
---moves the robot, and a turn after the move: Dual Processor).
---@alias rally.CardResult nil|table|{ distance: integer?, dir: rally.Dir?, rotate: rally.Rotation? }

---What damage handlers (`on_damage`) are told about the damage coming.
---
---```lua
---on_damage = function(ctx, robot, amount, info)
---  if info.absorb and info.from == robot.facing then return amount - 1 end
---end,
---```
---@class rally.DamageInfo
---@field cause string what deals it ("laser", "robot laser", "pit"...)
---@field from rally.Dir|nil the side of the robot it comes from, if it has one
---@field absorb boolean false: its player may not scrap options to cancel it (Fire Control)

---What `on_rotate` is told about a turn about to happen.
---
---```lua
---on_rotate = function(ctx, robot, info)
---  if info.by == "gear" and robot.powered_down then return false end
---end,
---```
---@class rally.RotateInfo
---@field rotation rally.Rotation the turn
---@field by string what turns it: "card", "gear", "belt", "ice", "script"...

---What `on_push` is told about a push.
---
---```lua
---on_push = function(ctx, pusher, pushed, info)
---  ctx:log(pusher, "shoved", { pushed = pushed.name, dir = info.dir })
---end,
---```
---@class rally.PushInfo
---@field dir rally.Dir the direction of the push
---@field pushing boolean|nil for an option: true when its holder pushed, false when it was pushed

---What a shot's `fire` is told about the laser it replaces.
---
---```lua
---fire = function(ctx, robot, target, option, info) ctx:push(target, info.dir) end,
---```
---@class rally.ShotInfo
---@field dir rally.Dir the direction the shooter's laser points
---@field strength integer its main laser's strength (`modify.main_laser`: Double-Barreled Laser 2)

---`shot = { ... }` in `rally.option { ... }`: what the option does, instead of the main laser,
---to the robot the laser would hit. Its player is asked `shot` ("laser" or the options) each
---register the laser hits a robot; a chosen shot resolves after the volley, in card-priority
---order.
---
---```lua
---shot = {
---  can = function(ctx, robot, target, option) return not target.powered_down end,
---  advise = function(ctx, robot, target, option) return target.flags > robot.flags end,
---  fire = function(ctx, robot, target, option, info) ctx:push(target, info.dir) end,
---},
---```
---@class rally.Shot
---@field fire fun(ctx: rally.Ctx, robot: rally.Robot, target: rally.Robot, option: rally.HeldOption, info: rally.ShotInfo) the shot's effect (required)
---@field can? fun(ctx: rally.Ctx, robot: rally.Robot, target: rally.Robot, option: rally.HeldOption): boolean false: not offered now (no effect, no ammunition)
---@field advise? fun(ctx: rally.Ctx, robot: rally.Robot, target: rally.Robot, option: rally.HeldOption): boolean true: a bot uses it (the question's advice)

---A parameter declaration, made with `rally.param.*`.
---
---```lua
---params = { strength = rally.param.int { min = 1, max = 3, default = 1 } },
---```
---@class rally.ParamSpec
---@field kind string `dir`, `rotation`, `bool`, `int`, `string`, `list` or `dir_map`
---@field default any the value a board that leaves it out gets
---@field optional boolean|nil no default, and a board may leave it out (then nil)
---@field describe string|nil one line for `rally elements`

---Options every parameter kind takes. A parameter with neither `default` nor `optional` must
---be given by every tile.
---
---```lua
---params = {
---  color = rally.param.string { choices = { "red", "blue" }, default = "red", describe = "pairs by colour" },
---  turn = rally.param.rotation { optional = true },
---}
---```
---@class rally.ParamOpts
---@field default? any used when a tile leaves it out
---@field optional? boolean a tile may leave it out (then the parameter is nil)
---@field describe? string one line for `rally elements`
---@field min? integer `int` only
---@field max? integer `int` only
---@field choices? string[] `string` only

---The order of play: handlers attach to these steps by name, in `steps` and `tile_steps`
---(elements: `function(ctx, tile, robot)` per robot on a tile, or `function(ctx, tile)` per
---tile), rules (`function(ctx)`, once) and options (`function(ctx, robot, option)`, per
---holder). Within a step: rules' handlers (in load order), then options' (per holder), then
---elements' `tile_steps` (board order: row, column), then elements' `steps` for each robot
---standing on such a tile (robots in board order; a robot moved during the step is not
---visited again). Belt moves queued with `ctx:convey` are resolved together when the step
---ends. Elements and rules may add steps of their own (`new_steps`), and so may variants
---(`[[step]]` in `variant.toml`). `rally elements` prints the order.
---@class rally.Steps
---The start of each turn, before register 1.
---
---```lua
---steps = { turn_start = function(ctx) ctx:set_game_var("alarm", nil) end },
---```
---@field turn_start? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment A: the start of each register, before the cards are revealed.
---
---```lua
---steps = { register_start = function(ctx, tile, robot) ctx:set_var(robot, "moved", nil) end },
---```
---@field register_start? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment A: the cards are revealed after the handlers of this step (then `on_reveal` may
---swap them).
---
---```lua
---steps = { reveal = function(ctx) ctx:log(nil, "register", { n = ctx.register }) end },
---```
---@field reveal? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment B: handlers run first (trap doors open), then every robot executes its card by
---priority.
---
---```lua
---steps = { robots_move = function(ctx, tile, robot)
---  if rally.active(tile.phases, ctx.register) then ctx:destroy(robot, "trap door") end
---end },
---```
---@field robots_move? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment B, after every card: robots that had no card (powered down, idle) act here (ice).
---
---```lua
---steps = { after_cards = function(ctx, tile, robot)
---  if not ctx:card(robot) then ctx:move(robot, robot.facing, 1) end
---end },
---```
---@field after_cards? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment C1: express belts move 1.
---
---```lua
---steps = { express_belts = function(ctx, tile, robot)
---  if tile.express then ctx:convey(robot, tile.dir) end
---end },
---```
---@field express_belts? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment C2: express and normal belts move 1, together.
---
---```lua
---steps = { belts = function(ctx, tile, robot) ctx:convey(robot, tile.dir) end },
---```
---@field belts? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment C2b: currents move 1 (resolved like belts).
---
---```lua
---steps = { currents = function(ctx, tile, robot) ctx:convey(robot, tile.dir) end },
---```
---@field currents? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment C3: active pushers push.
---
---```lua
---steps = { pushers = function(ctx, tile, robot)
---  if rally.active(tile.phases, ctx.register) then ctx:queue_push(robot, tile.dir) end
---end },
---```
---@field pushers? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment C4: gears turn.
---
---```lua
---steps = { gears = function(ctx, tile, robot) ctx:rotate(robot, tile.turn) end },
---```
---@field gears? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment C5: active crushers crush.
---
---```lua
---steps = { crushers = function(ctx, tile, robot)
---  if rally.active(tile.phases, ctx.register) then ctx:destroy(robot, "crusher") end
---end },
---```
---@field crushers? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment D: board and robot lasers fire in one volley; damage dealt in this step is
---applied together at its end, so a robot destroyed by the volley still fired.
---
---```lua
---tile_steps = { fire = function(ctx, tile) ctx:fire_beam(tile.at, tile.dir, tile.strength) end },
---```
---@field fire? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment E: flags and repair sites are touched, archives move.
---
---```lua
---steps = { touch = function(ctx, tile, robot) ctx:touch_flag(robot, tile.number) end },
---```
---@field touch? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment E: the end of each register.
---
---```lua
---steps = { register_end = function(ctx, tile, robot) ctx:set_var(robot, "seen", true) end },
---```
---@field register_end? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment F: repairs at the end of the turn.
---
---```lua
---steps = { end_of_turn = function(ctx, tile, robot) ctx:repair(robot, 1) end },
---```
---@field end_of_turn? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment F: destroyed robots re-enter at their archive (after this step's handlers).
---
---```lua
---steps = { reenter = function(ctx) ctx:log(nil, "reentry") end },
---```
---@field reenter? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Segment F: the end of the turn.
---
---```lua
---steps = { turn_end = function(ctx, tile, robot) ctx:set_var(robot, "tolls", nil) end },
---```
---@field turn_end? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)

---A step an element or rule adds to the order of play (`new_steps`), next to an existing
---step; it takes that step's segment, and its handlers name it like any other step.
---
---```lua
---new_steps = { { name = "springs", after = "crushers", describe = "C6: spring pads throw robots" } },
---```
---@class rally.NewStep
---@field name string the new step's name, unused so far
---@field before? string the step it comes before (give exactly one of `before`, `after`)
---@field after? string the step it comes after
---@field describe? string one line for `rally elements`

---How `rally render` draws an element (docs/pictures.md, "How elements draw themselves"): a
---list of parts drawn in order on a 64×64 square pointing north, turned into place by a
---direction parameter. A part is `{ KIND, ...settings }`: `square`, `circle`, `ring`,
---`diamond`, `triangle`, `edge`, `bar`, `arrow`, `chevrons`, `belt`, `beam`, `wall`,
---`label`, `number`, `badge` (`{ "label", TEXT }`), `icon` (`{ "icon", "gear" }`, a bundled
---icon) or `image` (`{ "image", NAME }`, an SVG file named in `images`). Every part takes
---`color`, `stroke`, `width`, `opacity`, `dash`, `rotate`, `layer` and `turn` (`false`: not
---turned); the page lists each kind's own settings. A function in the list is called with the
---tile and returns a part, a list of parts or nil, so a drawing can vary with parameters.
---The short form `{ color, label, shape }` draws one outline with a label.
---
---```lua
---draw = {
---  turn = "dir",
---  legend = function(tile) return tile.express and "express belt" or "belt" end,
---  { "square", color = "#3a7", round = 6 },
---  { "arrow", color = "#fff" },
---  function(tile) return { "badge", tile.power, y = 50 } end,
---},
---```
---@class rally.Draw
---@field layer? "ground"|"belts"|"fixtures"|"edges" where its parts go unless a part says (default fixtures)
---@field turn? string the parameter whose direction turns the drawing (`dir`, `side`, `up`; a list of sides: the first)
---@field legend? string|fun(tile: rally.Tile): string its legend entry's name (default: the element's); tiles whose names match share one entry
---@field board? boolean false: drawn in the legend only (the wall, whose board walls come from the edges)
---@field images? table<string, string> SVG files beside the script, sanitised when it loads: `{ crane = "crane.svg" }`
---@field color? string short form: the outline's fill, "#rgb" or "#rrggbb"
---@field label? string|fun(tile: rally.Tile): string short form: text on the outline (default: the glyph)
---@field shape? "square"|"circle"|"diamond"|"triangle"|"edge" short form: the outline (`edge`: a band on the side named by `tile.side`)

---What `rally.element { ... }` takes: a board element, one per script in
---`scripts/elements/` (or in a variant). Every key is checked: a misspelt key is an error.
---Handlers get the tile (its parameters) and the robot concerned.
---@class rally.ElementDecl
---The name boards use in their legend (`{ element = "magnet" }`).
---
---```lua
---return rally.element { name = "spring_pad" }
---```
---@field name string
---One sentence for `rally elements`.
---
---```lua
---describe = "Throws a robot that ends its card here 2 squares forward.",
---```
---@field describe? string
---The parameters a board gives each tile, checked when the board loads (kind, range,
---choices; unknown parameters are errors).
---
---```lua
---params = { strength = rally.param.int { min = 1, max = 3, default = 1, describe = "damage" } },
---```
---@field params? table<string, rally.ParamSpec>
---How `rally run` draws it in text: 1–2 characters, or a function of the tile; `""` draws
---nothing (edge elements).
---
---```lua
---glyph = function(tile) return "S" .. tile.dir end,
---```
---@field glyph? string|fun(tile: rally.Tile): string
---How `rally render` draws it in the SVG picture: a list of parts (docs/pictures.md).
---
---```lua
---draw = { turn = "dir", { "circle", color = "#4a8" }, { "arrow" } },
---```
---@field draw? rally.Draw
---Called once per tile when a board is compiled: static facts (walls, hazards, flags,
---docks) that the core then enforces natively.
---
---```lua
---build = function(b, tile) b:wall(tile.side) end,
---```
---@field build? fun(b: rally.Builder, tile: rally.Tile)
---Steps of its own, for a moment no standard step is (a spring pad throws robots after the
---crushers): each is placed next to an existing step, and its handlers name it like any
---step. No variant is needed. Declared again the same way (a `replace`), it is the same step.
---
---```lua
---new_steps = { { name = "springs", after = "crushers", describe = "C6: spring pads throw robots" } },
---steps = { springs = function(ctx, tile, robot) ctx:move(robot, robot.facing, 2) end },
---```
---@field new_steps? rally.NewStep[]
---Handlers by step, called for each robot standing on a tile of this element: functions, or
---standard effects the engine runs itself (`rally.effect.*`).
---
---```lua
---steps = { fire = function(ctx, tile, robot) ctx:damage(robot, 1, "radiation") end, belts = rally.effect.convey("dir") },
---```
---@field steps? rally.Steps
---Handlers by step, called once per tile, whether or not a robot stands on it.
---
---```lua
---tile_steps = { fire = function(ctx, tile) ctx:fire_beam(tile.at, tile.dir, tile.strength) end },
---```
---@field tile_steps? table<string, fun(ctx: rally.Ctx, tile: rally.Tile)>
---In a variant: replace the loaded element of the same name (otherwise a second declaration
---of a name is an error).
---
---```lua
---rally.element { name = "gear", replace = true, steps = { gears = function(ctx, tile, robot)
---  ctx:rotate(robot, "uturn")
---end } }
---```
---@field replace? boolean
---It may refuse robots crossing an edge of its square (doors, gates, force fields): its
---`on_cross` is then asked *before* each crossing, the robot still on its side, and may
---return `{ block = true }`; the robot does not cross, exactly as at a wall (a card's move
---ends, a push into it fails for the whole chain, a belt does not carry it), logged as
---`blocked` naming the element and its square. `lasers = true`: its square's edges stop
---laser beams too, always (docs/packs.md, the toll gate).
---
---```lua
---blocks = { lasers = false },
---on_cross = function(ctx, tile, robot, info)
---  if not info.leaving and not robot.vars.has_key then return { block = true } end
---end,
---```
---@field blocks? { lasers: boolean? }
---The sentences of the events it logs, by event name: `{field}` is the event's field (a
---square reads `[x, y]`), `{robot}` the robot ("robot Ada"), `{{` a brace. `rally run`, the
---replay viewer and the table tell the event so.
---
---```lua
---events = { craned = "{robot} is pulled toward the crane at {crane}" },
---```
---@field events? table<string, string>
---The robot vars this script writes that every page of a playtest table may see (`rally
---serve`); a robot's other vars reach its own seat only.
---
---```lua
---rally.element { name = "ice", public_vars = { "ice" } }
---```
---@field public_vars? string[]
---A robot arrived on this square: by its card (once for every square a Move 2 or Move 3
---enters, not only where it stops), pushed, carried by a belt or placed by a script. Told
---after `on_cross`, before the rules' `on_enter`.
---
---```lua
---on_enter = function(ctx, tile, robot, info)
---  if info.how == "card" then ctx:damage(robot, 1, "flamer") end
---end,
---```
---@field on_enter? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot, info: rally.MoveInfo)
---A robot standing here is about to execute its card (segment B, at its priority), after the
---rules' and its options' `on_card`. Return nil (execute normally), `rally.HANDLED` (the
---script resolved it) or `{ distance = n, dir = d }` (either key: how far and which way the
---card moves it).
---
---```lua
---on_card = function(ctx, tile, robot, card) return rally.lose_first_square(card) end,
---```
---@field on_card? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot, card: rally.Card): rally.CardResult
---A robot finished its card here (also after a `HANDLED` card); `info.moved` says whether the
---card changed its square, `info.dir` the direction of its last step.
---
---```lua
---on_card_end = function(ctx, tile, robot, card, info)
---  if info.moved then ctx:move(robot, info.dir or robot.facing, 1) end  -- slide on
---end,
---```
---@field on_card_end? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot, card: rally.Card, info: rally.MoveInfo)
---Segment A: a robot standing here revealed its card; return nil, or a card (a name such as
---`"move2"`, or a card table) to play instead.
---
---```lua
---on_reveal = function(ctx, tile, robot, card) return ctx:random_card() end,
---```
---@field on_reveal? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot, card: rally.Card): (string|rally.Card|nil)
---A belt carried a robot onto this square, travelling `travel` (curves turn it).
---
---```lua
---on_conveyed = function(ctx, tile, robot, travel)
---  if tile.turn then ctx:rotate(robot, tile.turn) end
---end,
---```
---@field on_conveyed? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot, travel: rally.Dir)
---A robot crosses an edge of this square (both squares are told, before `on_enter`), or a
---wall there stopped it (`info.blocked`). May return `{ cost = n }`: extra movement points
---the crossing costs (ramps). An element declared with `blocks` is asked before the robot
---crosses instead (never after, nor when a wall stopped it), and may return
---`{ block = true }` to refuse the crossing.
---
---```lua
---on_cross = function(ctx, tile, robot, info)
---  if not info.leaving and info.dir == tile.up and info.how == "card" then return { cost = 1 } end
---end,
---```
---@field on_cross? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot, info: rally.MoveInfo): ({ cost: integer?, block: boolean? }|nil)
---Programming time: a robot standing here was dealt its hand (`ctx:hand`), before it
---programs.
---
---```lua
---on_deal = function(ctx, tile, robot)
---  local hand = ctx:hand(robot)
---  if #hand > 0 then ctx:discard_card(robot, hand[#hand]) end  -- static eats a card
---end,
---```
---@field on_deal? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---Programming time: a robot standing here has set its program; `ctx:hand` holds its
---leftovers until the hooks are done.
---
---```lua
---on_program = function(ctx, tile, robot)
---  ctx:log(robot, "left_over", { cards = #ctx:hand(robot) })
---end,
---```
---@field on_program? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)

---What `rally.rule { ... }` takes: game-wide behaviour that belongs to no square (robot
---lasers, a variant's house rule), in `scripts/rules/` or a variant.
---@class rally.RuleDecl
---The rule's name (a variant replaces a rule by name).
---
---```lua
---return rally.rule { name = "sudden_death" }
---```
---@field name string
---One sentence for `rally elements`.
---
---```lua
---describe = "A robot with 5 damage or more loses a life at the end of the turn.",
---```
---@field describe? string
---Handlers by step, each called once in that step.
---
---```lua
---steps = { turn_end = function(ctx)
---  for _, robot in ipairs(ctx:robots()) do
---    if robot.damage >= 5 then ctx:set_lives(robot, robot.lives - 1) end
---  end
---end },
---```
---@field steps? table<string, fun(ctx: rally.Ctx)>
---Steps of its own in the order of play, as an element's `new_steps`.
---
---```lua
---new_steps = { { name = "sirens", before = "fire" } },
---steps = { sirens = function(ctx) ctx:log(nil, "siren") end },
---```
---@field new_steps? rally.NewStep[]
---Replace the loaded rule of the same name (an empty `robot_lasers` switches robot lasers
---off).
---
---```lua
---rally.rule { name = "robot_lasers", replace = true }
---```
---@field replace? boolean
---The sentences of the events it logs, by event name, as an element's `events`.
---
---```lua
---events = { shoved = "{robot} shoves robot {robot_pushed} {dir}" },
---```
---@field events? table<string, string>
---The elements this rule looks after: on a board with none of them it does nothing, so
---`rally sim` and `rally play` can warn that a variant changes nothing there. A promise
---(the handlers still run everywhere); each name must be an element some script defines.
---
---```lua
---rally.rule { name = "ice_rink", only_with = { "ice" }, on_enter = function(ctx, robot) end }
---```
---@field only_with? string[]
---Which robots its hooks about a robot are called for: `"all_robots"` (the default) or
---`"robots_with_options"`, for a rule that can matter only to a robot holding an option card
---(the engine then does not call it for the others at all).
---
---```lua
---rally.rule { name = "option_absorb", hears = "robots_with_options", on_damage = function(ctx, robot, amount, info) end }
---```
---@field hears? "all_robots"|"robots_with_options"
---The robot vars this script writes that every page of a playtest table may see (`rally
---serve`); a robot's other vars reach its own seat only.
---
---```lua
---rally.rule { name = "tolls", public_vars = { "tolls" } }
---```
---@field public_vars? string[]
---Any robot is about to execute its card, before its options' and its square's `on_card`;
---returns as an element's `on_card`.
---
---```lua
---on_card = function(ctx, robot, card)
---  if robot.damage >= 8 and card.distance > 1 then return { distance = 1 } end
---end,
---```
---@field on_card? fun(ctx: rally.Ctx, robot: rally.Robot, card: rally.Card): rally.CardResult
---A robot was destroyed (told after the card or step that destroyed it).
---
---```lua
---on_destroyed = function(ctx, robot) ctx:set_var(robot, "streak", nil) end,
---```
---@field on_destroyed? fun(ctx: rally.Ctx, robot: rally.Robot)
---A robot re-entered the board.
---
---```lua
---on_reenter = function(ctx, robot) ctx:log(robot, "back_again") end,
---```
---@field on_reenter? fun(ctx: rally.Ctx, robot: rally.Robot)
---Any robot arrived on any square (by card, push, belt or script), after that square's own
---`on_enter`.
---
---```lua
---on_enter = function(ctx, robot, info)
---  ctx:set_var(robot, "squares", (robot.vars.squares or 0) + 1)
---end,
---```
---@field on_enter? fun(ctx: rally.Ctx, robot: rally.Robot, info: rally.MoveInfo)
---A robot is about to take damage, after its options had their say; returns the amount to
---take (nil: unchanged): a whole number from 0 to 10 (or to `amount`, if that is more). Less
---prevents some of it (logged `damage_prevented`), more adds to it (`damage_added`); any other
---value is an error at this handler's line.
---
---```lua
---on_damage = function(ctx, robot, amount, info)
---  if info.cause == "laser" then return amount * 2 end
---end,
---```
---@field on_damage? fun(ctx: rally.Ctx, robot: rally.Robot, amount: integer, info: rally.DamageInfo): integer|nil
---Programming time: a robot was dealt its hand, before it programs (`ctx:hand`,
---`ctx:draw_cards`, `ctx:discard_card`).
---
---```lua
---on_deal = function(ctx, robot)
---  if robot.damage == 0 then ctx:draw_cards(robot, 1) end  -- a clean robot gets a spare card
---end,
---```
---@field on_deal? fun(ctx: rally.Ctx, robot: rally.Robot)
---Programming time: a robot's program is set; `ctx:hand` holds its leftovers, discarded
---after these hooks.
---
---```lua
---on_program = function(ctx, robot)
---  if #ctx:hand(robot) == 0 then ctx:log(robot, "all_in") end
---end,
---```
---@field on_program? fun(ctx: rally.Ctx, robot: rally.Robot)
---A robot shoved another one square (by its card, a pusher, a beam...); in a chain each robot
---pushes the next.
---
---```lua
---on_push = function(ctx, pusher, pushed, info) ctx:damage(pushed, 1, "shove") end,
---```
---@field on_push? fun(ctx: rally.Ctx, pusher: rally.Robot, pushed: rally.Robot, info: rally.PushInfo)
---A robot is about to turn; returns nil (it turns), false (it does not) or another rotation.
---
---```lua
---on_rotate = function(ctx, robot, info)
---  if info.by == "belt" then return false end  -- belts only carry in this house rule
---end,
---```
---@field on_rotate? fun(ctx: rally.Ctx, robot: rally.Robot, info: rally.RotateInfo): (rally.Rotation|false|nil)

---What `rally.option { ... }` takes (`scripts/options/`, docs/options.md). Its handlers run
---for each robot holding the card, with the option last.
---@class rally.OptionDecl
---The card's name, as `robot.options` and scenarios' `options = [...]` list it.
---
---```lua
---return rally.option { name = "spare_wheel" }
---```
---@field name string
---One line for `rally options`.
---
---```lua
---describe = "Once per game, a Move 1 moves 2 instead.",
---```
---@field describe? string
---Ammunition a drawn card starts with (chop shops reload it); nil: no limit.
---
---```lua
---uses = 1,
---```
---@field uses? integer
---Replace the loaded option of the same name.
---
---```lua
---rally.option { name = "brakes", replace = true, describe = "A Move 1 never moves." }
---```
---@field replace? boolean
---The sentences of the events it logs, by event name, as an element's `events`.
---
---```lua
---events = { shoved = "{robot} shoves robot {robot_pushed} {dir}" },
---```
---@field events? table<string, string>
---The robot vars this script writes that every page of a playtest table may see (`rally
---serve`); a robot's other vars reach its own seat only.
---
---```lua
---rally.option { name = "beacon", public_vars = { "beacon" } }
---```
---@field public_vars? string[]
---The holder is about to execute its card, after the rules' `on_card` and before its
---square's; returns as an element's `on_card`.
---
---```lua
---on_card = function(ctx, robot, card, option)
---  if card.name == "move1" and ctx:use_option(robot, option.name) then return { distance = 2 } end
---end,
---```
---@field on_card? fun(ctx: rally.Ctx, robot: rally.Robot, card: rally.Card, option: rally.HeldOption): rally.CardResult
---The holder is about to take damage, before the rules' `on_damage`; returns the amount to
---take (nil: unchanged): a whole number from 0 to 10 (or to `amount`, if that is more); less
---prevents some (`damage_prevented`), more adds (`damage_added`).
---
---```lua
---on_damage = function(ctx, robot, amount, info, option)
---  if ctx:use_option(robot, option.name) then return amount - 1 end
---end,
---```
---@field on_damage? fun(ctx: rally.Ctx, robot: rally.Robot, amount: integer, info: rally.DamageInfo, option: rally.HeldOption): integer|nil
---Programming time: the holder was dealt its hand (Recompile).
---
---```lua
---on_deal = function(ctx, robot, option)
---  if ctx:choose(robot, "redraw", { "no", "yes" }) == "yes" then
---    for _, card in ipairs(ctx:hand(robot)) do ctx:discard_card(robot, card) end
---    ctx:draw_cards(robot, 5)
---  end
---end,
---```
---@field on_deal? fun(ctx: rally.Ctx, robot: rally.Robot, option: rally.HeldOption)
---Programming time: the holder's program is set; `ctx:hand` holds its leftovers (Flywheel,
---Conditional Program, Dual Processor).
---
---```lua
---on_program = function(ctx, robot, option)
---  local leftovers = ctx:hand(robot)
---  local answer = ctx:choose(robot, "keep", rally.card_choices("no", leftovers))
---  if answer ~= "no" then ctx:keep_card(robot, option.name, answer) end
---end,
---```
---@field on_program? fun(ctx: rally.Ctx, robot: rally.Robot, option: rally.HeldOption)
---The holder pushed `other` one square (`info.pushing = true`) or `other` pushed it (`false`)
---(Ramming Gear).
---
---```lua
---on_push = function(ctx, robot, other, info, option) ctx:damage(other, 1, "ramming gear") end,
---```
---@field on_push? fun(ctx: rally.Ctx, robot: rally.Robot, other: rally.Robot, info: rally.PushInfo, option: rally.HeldOption)
---The holder is about to turn; returns nil (it turns), false (it does not) or another
---rotation (Gyroscopic Stabilizer).
---
---```lua
---on_rotate = function(ctx, robot, info, option)
---  if info.by == "gear" then return false end
---end,
---```
---@field on_rotate? fun(ctx: rally.Ctx, robot: rally.Robot, info: rally.RotateInfo, option: rally.HeldOption): (rally.Rotation|false|nil)
---A shot that may replace the holder's main laser: `rally.Shot`.
---
---```lua
---shot = { fire = function(ctx, robot, target, option, info) ctx:push(target, info.dir) end },
---```
---@field shot? rally.Shot
---Handlers by step, called once per robot on the board holding the option, after the rules'.
---
---```lua
---steps = { end_of_turn = function(ctx, robot, option) ctx:repair(robot, 1) end },
---```
---@field steps? table<string, fun(ctx: rally.Ctx, robot: rally.Robot, option: rally.HeldOption)>
---Value modifiers (`ctx:modify`): each returns the new value (nil keeps it). The core asks
---`hand_size`, `reentry_damage` and (at the end of the turn) `power_down`, the standard robot
---lasers `main_laser`.
---
---```lua
---modify = { reentry_damage = function(ctx, robot, damage, option) return 0 end },
---```
---@field modify? table<string, fun(ctx: rally.Ctx, robot: rally.Robot, value: any, option: rally.HeldOption): any>

---What `variants/NAME/variant.toml` holds (docs/variants.md): a house rule switched on per
---game or scenario with `variants = ["NAME"]`, its parameters set in `[variant.NAME]`. TOML,
---not Lua: described here so the reference has one source.
---@class rally.VariantToml
---The variant's name: the folder's name, as `variants = [...]` and `--variant` use it.
---
---```toml
---name = "sudden-death"
---```
---@field name string
---One sentence for `rally variants`.
---
---```toml
---description = "A robot with 5 damage or more loses a life at the end of every turn."
---```
---@field description string
---The Lua files to load, in order, from the variant's folder. They declare with
---`rally.element`, `rally.rule` or `rally.option` (no `return` needed) and read `params`.
---
---```toml
---files = ["sudden_death.lua"]
---```
---@field files? string[]
---Variants it cannot be combined with (either side listing the other is enough).
---
---```toml
---conflicts = ["more-lives"]
---```
---@field conflicts? string[]
---Variants it builds on: switching it on switches them on before it (with the parameters
---the game gives them, else their defaults), so it may replace or wrap what they declare.
---
---```toml
---requires = ["ice-rink"]
---```
---@field requires? string[]
---Its parameters with their defaults, checked when a game sets them (`params.NAME` in its
---scripts).
---
---```toml
---[params.threshold]
---kind = "int"
---default = 5
---min = 1
---max = 9
---describe = "damage at which a robot starts losing lives"
---```
---@field params? table<string, rally.VariantParamToml>
---Steps it adds to the order of play, each next to an existing one; handlers attach to them
---like to any step.
---
---```toml
---[[step]]
---name = "gold_belts"
---before = "express_belts"
---describe = "C0: gold belts move 1"
---```
---@field step? rally.VariantStepToml[]

---A variant parameter (`[params.NAME]` in variant.toml).
---
---```toml
---[params.extra]
---kind = "int"
---default = 1
---min = 1
---max = 9
---describe = "lives added to each robot at the start of the game"
---```
---@class rally.VariantParamToml
---@field kind "dir"|"rotation"|"bool"|"int"|"string" what values it takes
---@field default any required: the value when a game sets none
---@field describe? string one line for `rally variants`
---@field min? integer `int` only
---@field max? integer `int` only
---@field choices? string[] `string` only

---A step a variant adds (`[[step]]` in variant.toml), next to an existing step; it takes that
---step's segment.
---
---```toml
---[[step]]
---name = "springs"
---after = "crushers"
---describe = "C6: spring pads throw robots"
---```
---@class rally.VariantStepToml
---@field name string the new step's name
---@field before? string the step it comes before (give exactly one of `before`, `after`)
---@field after? string the step it comes after
---@field describe? string one line for `rally elements`

---The rally API, the one global every script gets (besides the safe parts of Lua's standard
---library: `string`, `table`, `math`, `utf8`, `coroutine`). The native half is in
---src/script/, the Lua half in src/script/prelude.lua.
---@class rally
rally = {}

---Declares a board element; an element script returns it.
---
---```lua
---return rally.element {
---  name = "spring_pad",
---  describe = "Throws a robot that ends its card here 2 squares forward.",
---  on_card_end = function(ctx, tile, robot, card, info) ctx:move(robot, robot.facing, 2) end,
---}
---```
---@param decl rally.ElementDecl the element's keys (`rally.ElementDecl`)
---@return rally.ElementDecl decl the declaration, as given
function rally.element(decl) end

---Declares a game-wide rule (robot lasers, a variant's house rule).
---
---```lua
---return rally.rule {
---  name = "tax",
---  steps = { turn_end = function(ctx)
---    for _, robot in ipairs(ctx:robots()) do ctx:damage(robot, 1, "tax") end
---  end },
---}
---```
---@param decl rally.RuleDecl the rule's keys (`rally.RuleDecl`)
---@return rally.RuleDecl decl the declaration, as given
function rally.rule(decl) end

---The element declarations loaded so far, by name, to build on (reading an unknown name is
---an error). The layers load lowest first (built-in, packs, the project: docs/packs.md),
---then the variants.
---
---```lua
---local conveyor = rally.elements.conveyor
---rally.element { name = "gold_belt", params = { dir = conveyor.params.dir }, on_conveyed = conveyor.on_conveyed }
---```
---@type table<string, rally.ElementDecl>
rally.elements = {}

---The rule declarations loaded so far, by name.
---
---```lua
---local standard = rally.rules.robot_lasers
---rally.rule { name = "robot_lasers", replace = true, steps = { fire = function(ctx)
---  standard.steps.fire(ctx)
---end } }
---```
---@type table<string, rally.RuleDecl>
rally.rules = {}

---Declares an option card; a script in scripts/options/ returns it.
---
---```lua
---return rally.option {
---  name = "superior_archive",
---  modify = { reentry_damage = function(ctx, robot, damage, option) return 0 end },
---}
---```
---@param decl rally.OptionDecl the option's keys (`rally.OptionDecl`)
---@return rally.OptionDecl decl the declaration, as given
function rally.option(decl) end

---The option declarations loaded so far, by name.
---
---```lua
---local brakes = rally.options.brakes
---```
---@type table<string, rally.OptionDecl>
rally.options = {}

---The four directions, clockwise from north: `{ "N", "E", "S", "W" }`.
---
---```lua
---for _, dir in ipairs(rally.dirs) do ctx:fire_beam(tile.at, dir) end
---```
---@type rally.Dir[]
rally.dirs = {}

---The direction `dir` turned by `rotation`.
---
---```lua
---local right_hand = rally.turn(robot.facing, "right")
---```
---@param dir rally.Dir the direction before the turn
---@param rotation rally.Rotation the turn
---@return rally.Dir
function rally.turn(dir, rotation) end

---The direction opposite `dir`.
---
---```lua
---ctx:fire_beam(robot, rally.opposite(robot.facing))  -- a rear laser
---```
---@param dir rally.Dir a direction
---@return rally.Dir
function rally.opposite(dir) end

---The rotation that turns `from` into `to`, or nil if they are equal.
---
---```lua
---if rally.rotation_between(travel, tile.dir) == tile.turn then ctx:rotate(robot, tile.turn) end
---```
---@param from rally.Dir the direction before
---@param to rally.Dir the direction after
---@return rally.Rotation|nil
function rally.rotation_between(from, to) end

---dx, dy of one step in `dir` (north is y - 1).
---
---```lua
---local dx, dy = rally.delta("N")  -- 0, -1
---```
---@param dir rally.Dir a direction
---@return integer dx
---@return integer dy
function rally.delta(dir) end

---The square `n` (default 1) steps from `pos` in `dir`.
---
---```lua
---local ahead = ctx:robot_at(rally.step(robot.at, robot.facing))
---```
---@param pos rally.Pos the square to start from
---@param dir rally.Dir the direction to go
---@param n? integer default 1
---@return rally.Pos
function rally.step(pos, dir, n) end

---Is `register` one of the `phases` listed on a tile?
---
---```lua
---if rally.active(tile.phases, ctx.register) then ctx:queue_push(robot, tile.dir) end
---```
---@param phases integer[] a tile's `phases` parameter (registers)
---@param register integer usually `ctx.register`
---@return boolean
function rally.active(phases, register) end

---For `on_card`: the card loses its first square (water, oil): `{ distance = n - 1 }` for a
---movement card, nil (no change) for a rotation.
---
---```lua
---on_card = function(ctx, tile, robot, card) return rally.lose_first_square(card) end,
---```
---@param card rally.Card the card `on_card` got
---@return { distance: integer }|nil
function rally.lose_first_square(card) end

---A card as text: `"move2@700"` (or `"move2"` without a priority), as choices and
---`ctx:keep_card`/`ctx:set_card` take it.
---
---```lua
---ctx:log(robot, "playing", { card = rally.card_text(ctx:card(robot)) })
---```
---@param card rally.Card the card
---@return string
function rally.card_text(card) end

---Choices that name cards, for `ctx:choose`: `first` (such as "no"), then each card's text.
---
---```lua
---local answer = ctx:choose(robot, "flywheel", rally.card_choices("no", ctx:hand(robot)))
---```
---@param first string the first choice, the default
---@param cards rally.Card[] the cards offered
---@return string[]
function rally.card_choices(first, cards) end

---Of `cards`, the one that drives its robot furthest forward (Back Up and rotations count 0;
---the first of equals), and how far.
---
---```lua
---local best, reach = rally.longest_move(ctx:hand(robot))
---if reach >= 2 then ctx:keep_card(robot, "spare", best) end
---```
---@param cards rally.Card[] the cards to look at
---@return rally.Card|nil best nil if none moves forward
---@return integer reach 0 for none
function rally.longest_move(cards) end

---Would going `n` squares from `at` towards `dir` end in a pit or off the board? Walls stop
---the way (safe); robots and other squares are not looked at: a rough look ahead for advice.
---
---```lua
---advise = function(ctx, robot, target) return rally.falls(ctx, target.at, robot.facing, 1) end,
---```
---@param ctx rally.Ctx the handler's ctx
---@param at rally.Pos where the way starts
---@param dir rally.Dir which way
---@param n integer squares
---@return boolean
function rally.falls(ctx, at, dir, n) end

---`rally.falls` along the way `card` would take `robot` from where it stands now.
---
---```lua
---local card = ctx:program(robot)[ctx.register]
---if rally.card_falls(ctx, robot, card) then ctx:log(robot, "danger") end
---```
---@param ctx rally.Ctx the handler's ctx
---@param robot rally.Robot the robot that would play it
---@param card rally.Card|nil the card (nil: false)
---@return boolean
function rally.card_falls(ctx, robot, card) end

---Returned by `on_card`: the element resolved the card; the core does not execute it.
---
---```lua
---on_card = function(ctx, tile, robot, card)
---  ctx:place(robot, rally.step(robot.at, robot.facing, card.distance + 2))
---  return rally.HANDLED
---end,
---```
---@type table
rally.HANDLED = {}

---Parameter declarations for `params = { ... }`: each kind takes the options of
---`rally.ParamOpts`.
---@class rally.param
rally.param = {}

---A direction parameter: `"N"`, `"E"`, `"S"` or `"W"`.
---
---```lua
---params = { dir = rally.param.dir { describe = "the arrow" } },
---```
---@param opts? rally.ParamOpts the options every kind takes
---@return rally.ParamSpec
function rally.param.dir(opts) end

---A rotation parameter: `"left"`, `"right"` or `"uturn"`.
---
---```lua
---params = { turn = rally.param.rotation { default = "right" } },
---```
---@param opts? rally.ParamOpts the options every kind takes
---@return rally.ParamSpec
function rally.param.rotation(opts) end

---A true/false parameter.
---
---```lua
---params = { express = rally.param.bool { default = false } },
---```
---@param opts? rally.ParamOpts the options every kind takes
---@return rally.ParamSpec
function rally.param.bool(opts) end

---A whole number, optionally within `min`..`max`.
---
---```lua
---params = { strength = rally.param.int { min = 1, max = 3, default = 1 } },
---```
---@param opts? rally.ParamOpts the options every kind takes, and `min`, `max`
---@return rally.ParamSpec
function rally.param.int(opts) end

---A string, optionally one of `choices`.
---
---```lua
---params = { color = rally.param.string { choices = { "red", "blue", "green" } } },
---```
---@param opts? rally.ParamOpts the options every kind takes, and `choices`
---@return rally.ParamSpec
function rally.param.string(opts) end

---A list of registers 1..5; default every register.
---
---```lua
---params = { phases = rally.param.phases() },  -- a board writes phases = [2, 4]
---```
---@param opts? rally.ParamOpts the options every kind takes
---@return rally.ParamSpec
function rally.param.phases(opts) end

---A list of values of one kind.
---
---```lua
---params = { sides = rally.param.list(rally.param.dir(), { optional = true }) },
---```
---@param of rally.ParamSpec the kind of each item
---@param opts? rally.ParamOpts the options every kind takes
---@return rally.ParamSpec
function rally.param.list(of, opts) end

---A table keyed by direction, e.g. `{ N = "right" }`.
---
---```lua
---params = { turns = rally.param.dir_map(rally.param.rotation(), { optional = true }) },
---```
---@param of rally.ParamSpec the kind of each value
---@param opts? rally.ParamOpts the options every kind takes
---@return rally.ParamSpec
function rally.param.dir_map(of, opts) end

---Standard effects: an element's step declared as what it does instead of a function, which
---the engine runs itself (no Lua call, no instructions of the budget; the same results as the
---function it stands for). Each names the tile's parameters it reads; the declaration checks
---that they exist, have the right kind and are never nil. A step may still be a function.
---
---```lua
---steps = { belts = rally.effect.convey("dir"), gears = rally.effect.rotate("turn", { by = "gear" }) },
---```
---@class rally.effect
rally.effect = {}

---Queues a belt move of the robot towards the tile's direction parameter `param`, as
---`function(ctx, tile, robot) ctx:convey(robot, tile[param]) end`.
---
---```lua
---steps = { express_belts = rally.effect.convey("dir", { when = "express" }) },
---```
---@param param string a `rally.param.dir` of the element, never nil
---@param opts? rally.EffectOpts `when`
---@return rally.Effect
function rally.effect.convey(param, opts) end

---Turns the robot by the tile's rotation parameter `param`, as
---`function(ctx, tile, robot) ctx:rotate(robot, tile[param], opts.by) end` (so `on_rotate`
---handlers hear it).
---
---```lua
---steps = { gears = rally.effect.rotate("turn", { by = "gear" }) },
---```
---@param param string a `rally.param.rotation` of the element, never nil
---@param opts? rally.EffectOpts `when`, `by`
---@return rally.Effect
function rally.effect.rotate(param, opts) end

---Queues a push of the robot towards the tile's direction parameter `param`, as
---`function(ctx, tile, robot) ctx:queue_push(robot, tile[param], opts.by) end`: all pushes of
---the step resolve together.
---
---```lua
---steps = { pushers = rally.effect.push("dir", { when = "phases", by = "the pusher" }) },
---```
---@param param string a `rally.param.dir` of the element, never nil
---@param opts? rally.EffectOpts `when`, `by`
---@return rally.Effect
function rally.effect.push(param, opts) end

---A checkpoint's touch: touches the flag numbered by the tile's `param` and moves the archive
---onto the tile, as `function(ctx, tile, robot) ctx:touch_flag(robot, tile[param])
---ctx:set_archive(robot, tile.at) end`.
---
---```lua
---steps = { touch = rally.effect.checkpoint("number") },
---```
---@param param string a `rally.param.int` of the element, never nil
---@param opts? rally.EffectOpts `when`
---@return rally.Effect
function rally.effect.checkpoint(param, opts) end

---Moves the robot's archive onto the tile, as `function(ctx, tile, robot)
---ctx:set_archive(robot, tile.at) end` (a repair site's touch).
---
---```lua
---steps = { touch = rally.effect.archive() },
---```
---@param opts? rally.EffectOpts `when`
---@return rally.Effect
function rally.effect.archive(opts) end

---Destroys the robot, as `function(ctx, tile, robot) ctx:destroy(robot, opts.cause) end` (a
---crusher in its registers). It may also be an element's hook, without `when` (a pit's
---`on_enter`): it returns nothing there, as a handler returning nil.
---
---```lua
---steps = { crushers = rally.effect.destroy { cause = "crusher", when = "phases" } },
---on_enter = rally.effect.destroy { cause = "pit" },
---```
---@param opts? rally.EffectOpts `cause`, `when` (not in a hook)
---@return rally.Effect
function rally.effect.destroy(opts) end

---For a rule's `steps`: every active robot fires its main laser forward, as
---`function(ctx) ctx:fire_robot_lasers() end` (the standard `robot_lasers` rule's `fire`).
---It is the only effect of a rule; the others act on a tile or a robot standing there.
---
---```lua
---steps = { fire = rally.effect.robot_lasers() },
---```
---@return rally.Effect
function rally.effect.robot_lasers() end

---For `tile_steps`: fires a beam from the tile towards its direction parameter `param`, as
---`function(ctx, tile) ctx:fire_beam(tile.at, tile[param], tile[opts.strength] or 1,
---{ cause = opts.cause }) end`. It is the only effect of `tile_steps`; the others act on a
---robot standing on the tile and belong in `steps`.
---
---```lua
---tile_steps = { fire = rally.effect.beam("dir", { strength = "strength", cause = "laser" }) },
---```
---@param param string a `rally.param.dir` of the element, never nil
---@param opts? rally.EffectOpts `when`, `strength`, `cause`
---@return rally.Effect
function rally.effect.beam(param, opts) end

---A declared effect, made with `rally.effect.*`: a value of an element's `steps` (or, for
---`beam`, `tile_steps`; for `destroy`, also a hook; for `robot_lasers`, a rule's `steps`). It can still be called as the function it stands for
---(`rally.elements.flag.steps.touch(ctx, tile, robot)`), `when` included.
---
---```lua
---steps = { belts = rally.effect.convey("dir") },
---```
---@class rally.Effect
---@field effect string `convey`, `rotate`, `push`, `checkpoint`, `archive`, `destroy`, `beam` or `robot_lasers`
---@field param? string the parameter it reads (`archive`, `destroy` and `robot_lasers` read none)

---Options of the standard effects.
---
---```lua
---rally.effect.rotate("turn", { by = "gear", when = "powered" })
---rally.effect.push("dir", { when = "phases" })
---```
---@class rally.EffectOpts
---@field when? string a `rally.param.bool` of the element (the effect happens only on tiles where it is true) or a `rally.param.phases` (only in the registers it lists)
---@field by? string `rotate` and `push`: the cause handlers and the log see (at most 256 bytes; `rotate`'s default "script")
---@field strength? string `beam` only: a `rally.param.int` of the element, the damage per hit (1 without)
---@field cause? string `beam` and `destroy`: the cause the hits or the `destroyed` event name (default "laser" and "script"; at most 256 bytes)

---A variant's parameters, as the game set them over the defaults of its variant.toml
---(variant scripts only).
---
---```lua
---ctx:set_lives(robot, robot.lives + params.extra)
---```
---@type table<string, any>
params = {}
