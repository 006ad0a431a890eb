---@meta rally
-- Type annotations of the rally scripting API for lua-language-server (LuaLS): completion,
-- hover docs and type checks in element and variant scripts. Never loaded by rally itself
-- (only scripts/elements/ and scripts/rules/ are). The `.luarc.json` at the project root
-- points the language server here. tests/lua_api.rs fails when this file and the API in
-- src/script/ (ctx.rs, mod.rs, decl.rs, prelude.lua) or the order of play disagree.

---@alias rally.Dir "N"|"E"|"S"|"W"
---@alias rally.Rotation "left"|"right"|"uturn"
---@alias rally.How "card"|"push"|"belt"|"jump"|"script"

---A square: `{ x = .., y = .. }` (ctx methods also accept `{ x, y }`).
---@class rally.Pos
---@field x integer column, from the west edge (0)
---@field y integer row, from the north edge (0); north is y - 1

---A program card as scripts see it.
---@class rally.Card
---@field name string `move1`, `move2`, `move3`, `back`, `left`, `right` or `uturn`
---@field priority integer|nil
---@field distance integer squares it moves (0 for rotations)
---@field rotation rally.Rotation|nil
---@field back boolean true for Back Up
---@field dir rally.Dir|nil in `on_card` and `on_card_end`: the direction it will move the robot (nil for rotations)

---A robot, read-only: change it only through `ctx` methods. A live view: it always shows the robot as it is now.
---@class rally.Robot
---@field name string
---@field at rally.Pos
---@field x integer
---@field y integer
---@field facing rally.Dir
---@field damage integer
---@field lives integer
---@field flags integer checkpoints touched
---@field archive rally.Pos
---@field destroyed boolean
---@field powered_down boolean
---@field vars table<string, any> what scripts remember about it (`ctx:set_var`)
---@field options string[] the option cards it holds, in the order drawn

---A tile: the element's parameters (checked, defaults filled in) plus where it is. Read-only.
---@class rally.Tile
---@field at rally.Pos
---@field x integer
---@field y integer
---@field element string the element's name
---@field [string] any its parameters, e.g. `tile.dir`, `tile.phases`

---The door to the game, given to every handler. Every change goes through its methods.
---@class rally.Ctx
---@field register integer the register being resolved (1..5), 0 outside registers
---@field turn integer
---@field width integer board width in squares
---@field height integer board height in squares
---@field segment string the segment being resolved (for log events)
local Ctx = {}

---The robots on the board (not destroyed), in game order.
---@return rally.Robot[]
function Ctx:robots() end

---The robot standing on a square, if any.
---@param at rally.Pos
---@return rally.Robot|nil
function Ctx:robot_at(at) end

---The tiles on a square, in board order.
---@param at rally.Pos
---@return rally.Tile[]
function Ctx:tiles_at(at) end

---Every tile of one element on the board, in board order (row, then column).
---@param element string
---@return rally.Tile[]
function Ctx:find_tiles(element) end

---Does the square hold this element?
---@param at rally.Pos
---@param element string
---@return boolean
function Ctx:has(at, element) end

---@param at rally.Pos
---@return boolean
function Ctx:on_board(at) end

---Can a robot cross from `at` to its neighbour in `dir` (no wall in between)?
---@param at rally.Pos
---@param dir rally.Dir
---@return boolean
function Ctx:can_move(at, dir) end

---A pit or anything robots are never placed on; off the board counts too.
---@param at rally.Pos
---@return boolean
function Ctx:is_hazard(at) end

---Something occupies the square (a teleport cannot land there).
---@param at rally.Pos
---@return boolean
function Ctx:is_solid(at) end

---How many flags the board has.
---@return integer
function Ctx:flag_count() end

---Moves a robot up to `squares` (default 1) in `dir`, pushing others; walls and pits apply.
---@param robot rally.Robot
---@param dir rally.Dir
---@param squares? integer
---@param how? rally.How default "script"
---@return integer moved squares actually moved
function Ctx:move(robot, dir, squares, how) end

---Pushes a robot 1 square (with any chain ahead). True if it moved.
---@param robot rally.Robot
---@param dir rally.Dir
---@return boolean
function Ctx:push(robot, dir) end

---Puts a robot on a free square (teleports, portals); `dir` sets its facing.
---@param robot rally.Robot
---@param at rally.Pos
---@param how? rally.How default "script"
---@param dir? rally.Dir default: its facing
function Ctx:place(robot, at, how, dir) end

---@param robot rally.Robot
---@param rotation rally.Rotation
function Ctx:rotate(robot, rotation) end

---Turns a robot to face `dir`.
---@param robot rally.Robot
---@param dir rally.Dir
function Ctx:face(robot, dir) end

---Queues a belt move; all belt moves of a step are resolved together (rules.md §5.2).
---@param robot rally.Robot
---@param dir rally.Dir
function Ctx:convey(robot, dir) end

---Queues a board pusher's push (the robot and any chain ahead); all pushes of a step are
---resolved together from the board as it stands before them: opposed or crossing pushes,
---and pushes into one square, cancel (rules.md §5.2).
---@param robot rally.Robot
---@param dir rally.Dir
function Ctx:queue_push(robot, dir) end

---Every robot on the board that is not powered down fires its main laser forward (the
---standard robot lasers): 1 damage to the first robot in line, as its options modify it
---(`modify.main_laser`). Damage in segment D is applied together at the end of the step.
function Ctx:fire_robot_lasers() end

---Fires a beam; damages the first robot hit (applied with segment D's damage). From a square
---(a board laser) the beam starts in that square; from a robot (its own laser) it starts in
---the square in front, so the shooter never hits itself.
---@param from rally.Pos|rally.Robot
---@param dir rally.Dir
---@param strength? integer default 1
---`opts.through = n`: the beam goes on through n walls or robots (High-Power Laser); every
---robot in it is hit.
---@param opts? { cause: string?, through: integer? }
---@return rally.Robot|nil hit the first robot hit
---@return rally.Robot[] all every robot hit, in order
function Ctx:fire_beam(from, dir, strength, opts) end

---Damage, after the robot's options and the rules' `on_damage` had their say.
---@param robot rally.Robot
---@param amount integer
---@param cause? string for the log, default "script"
---@param from? rally.Dir the side of the robot it comes from (Power-Down Shield), if any
function Ctx:damage(robot, amount, cause, from) end

---@param robot rally.Robot
---@param cause? string for the log, default "script"
function Ctx:destroy(robot, cause) end

---Removes damage (default 1).
---@param robot rally.Robot
---@param amount? integer
function Ctx:repair(robot, amount) end

---@param robot rally.Robot
---@param lives integer
function Ctx:set_lives(robot, lives) end

---Touches flag `number`; true if it was the robot's next flag.
---@param robot rally.Robot
---@param number integer
---@return boolean
function Ctx:touch_flag(robot, number) end

---Moves the robot's archive marker (default: where it stands).
---@param robot rally.Robot
---@param at? rally.Pos
function Ctx:set_archive(robot, at) end

---Remembers a value about a robot (`robot.vars[key]`); nil removes it. Saved with the game.
---@param robot rally.Robot
---@param key string
---@param value any JSON-like: nil, boolean, number, string, table
function Ctx:set_var(robot, key, value) end

---A game-wide remembered value.
---@param key string
---@return any
function Ctx:game_var(key) end

---@param key string
---@param value any JSON-like; nil removes it
function Ctx:set_game_var(key, value) end

---A number in 1..n from the game's seeded RNG (never use anything else for chance).
---@param n integer
---@return integer
function Ctx:random(n) end

---Adds an event to the log.
---@param robot rally.Robot|nil
---@param what string
---@param detail? table<string, any>
function Ctx:log(robot, what, detail) end

---A random card from the classic deck, leaving out the cards in robots' registers.
---@return rally.Card
function Ctx:random_card() end

---The robot's card in the current register, if any.
---@param robot rally.Robot
---@return rally.Card|nil
function Ctx:card(robot) end

---An option card as `ctx:options` lists it and option handlers receive it.
---@class rally.HeldOption
---@field name string
---@field uses integer|nil ammunition left (nil: no limit)
---@field max_uses integer|nil the declared `uses`

---The option cards a robot holds, in the order drawn.
---@param robot rally.Robot
---@return rally.HeldOption[]
function Ctx:options(robot) end

---@param robot rally.Robot
---@param name string
---@return boolean
function Ctx:has_option(robot, name) end

---Draws the top option card (logs `option_drawn`); the first draw shuffles the deck.
---@param robot rally.Robot
---@return string|nil name nil when deck and discards are empty
function Ctx:draw_option(robot) end

---Scraps a held option onto the discards (logs `option_discarded`).
---@param robot rally.Robot
---@param name string
---@param why? string for the log, default "scrapped"
---@return boolean done false if not held
function Ctx:discard_option(robot, name, why) end

---Spends ammunition (default 1) of a held option.
---@param robot rally.Robot
---@param name string
---@param n? integer
---@return boolean done false if not held or not enough left
function Ctx:use_option(robot, name, n) end

---Refills a held option's ammunition to its declared `uses`.
---@param robot rally.Robot
---@param name string
---@return boolean done false if not held or without ammunition
function Ctx:reload_option(robot, name) end

---Asks the robot's player (the decision interface, docs/options.md). The FIRST choice is the
---default. A scenario fixes answers with `choices = { key = "answer" }` in its `[[robot]]`.
---@param robot rally.Robot
---@param key string a stable name for the question
---@param choices string[]
---@param info? table `text` for people; other keys are hints for bots
---@return string answer one of `choices`
function Ctx:choose(robot, key, choices, info) end

---`value` after each option the robot holds ran its `modify[key]` on it (held order).
---@generic T
---@param robot rally.Robot
---@param key string `hand_size`, `reentry_damage`, `main_laser`, or a script's own
---@param value T
---@return T
function Ctx:modify(robot, key, value) end

---What `build(b, tile)` writes static facts through, when the board is compiled.
---@class rally.Builder
local Builder = {}

---A wall on side `side` of this square. `opts.pass = "out"|"in"`: one way only;
---`opts.lasers = false`: lasers cross it.
---@param side rally.Dir
---@param opts? { pass: "out"|"in"|nil, lasers: boolean? }
function Builder:wall(side, opts) end

---Robots are never placed here and a teleport onto it destroys (pits and kin).
function Builder:hazard() end

---Something occupies this square.
function Builder:solid() end

---This square is flag `number`.
---@param number integer
function Builder:flag(number) end

---This square is start (docking bay) `number`.
---@param number integer
function Builder:start(number) end

---What `on_enter` and `on_cross` are told about the move.
---@class rally.MoveInfo
---@field how rally.How
---@field dir rally.Dir the direction of travel
---@field card rally.Card|nil the card that moved it, if a card did
---@field side rally.Dir|nil `on_cross`: the side of this square crossed
---@field leaving boolean|nil `on_cross`: true on the square being left
---@field blocked boolean|nil `on_cross`: a wall on that edge stopped it
---@field remaining integer|nil `on_cross`: squares of the move still to go
---@field pusher rally.Robot|nil `on_cross`: the robot pushing it
---@field moved boolean|nil `on_card_end`: whether the card changed its square

---What `on_card` may return: nil (execute normally), `rally.HANDLED`, or a new distance.
---@alias rally.CardResult nil|table|{ distance: integer }

---A parameter declaration, made with `rally.param.*`.
---@class rally.ParamSpec
---@field kind string
---@field default any
---@field optional boolean|nil
---@field describe string|nil

---Options every parameter kind takes.
---@class rally.ParamOpts
---@field default? any
---@field optional? boolean
---@field describe? string
---@field min? integer `int` only
---@field max? integer `int` only
---@field choices? string[] `string` only

---Handlers run for each robot on a tile (`steps`) or for each tile (`tile_steps`), by step
---of the order of play. Variants may add steps of their own.
---@class rally.Steps
---@field turn_start? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field register_start? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field reveal? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field robots_move? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field after_cards? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field express_belts? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field belts? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field currents? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field pushers? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field gears? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field crushers? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field fire? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field touch? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field register_end? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field end_of_turn? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field reenter? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)
---@field turn_end? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot)

---How `rally render` draws an element it has no drawing of its own for.
---@class rally.Draw
---@field color? string fill, "#rgb" or "#rrggbb"
---@field label? string|fun(tile: rally.Tile): string text on the square (default: the glyph)
---@field shape? "square"|"circle"|"edge" `edge`: a band on the side named by `tile.side`

---What `rally.element { ... }` takes.
---@class rally.ElementDecl
---@field name string
---@field describe? string one line for `rally elements`
---@field params? table<string, rally.ParamSpec>
---@field glyph? string|fun(tile: rally.Tile): string two characters for the text board
---@field draw? rally.Draw
---@field build? fun(b: rally.Builder, tile: rally.Tile) static facts: walls, hazards, flags, starts
---@field steps? rally.Steps called for each robot standing on a tile
---@field tile_steps? table<string, fun(ctx: rally.Ctx, tile: rally.Tile)> called once per tile
---@field replace? boolean replaces a loaded element of the same name (variants)
---@field on_enter? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot, info: rally.MoveInfo)
---@field on_card? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot, card: rally.Card): rally.CardResult
---@field on_card_end? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot, card: rally.Card, info: rally.MoveInfo)
---@field on_reveal? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot, card: rally.Card): (string|rally.Card|nil)
---@field on_conveyed? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot, travel: rally.Dir)
---@field on_cross? fun(ctx: rally.Ctx, tile: rally.Tile, robot: rally.Robot, info: rally.MoveInfo): ({ cost: integer }|nil)

---What `rally.rule { ... }` takes.
---@class rally.RuleDecl
---@field name string
---@field describe? string
---@field steps? table<string, fun(ctx: rally.Ctx)> called once per step
---@field replace? boolean
---@field on_card? fun(ctx: rally.Ctx, robot: rally.Robot, card: rally.Card): rally.CardResult
---@field on_destroyed? fun(ctx: rally.Ctx, robot: rally.Robot)
---@field on_reenter? fun(ctx: rally.Ctx, robot: rally.Robot)
---@field on_enter? fun(ctx: rally.Ctx, robot: rally.Robot, info: rally.MoveInfo)
---@field on_damage? fun(ctx: rally.Ctx, robot: rally.Robot, amount: integer, info: { cause: string, from: rally.Dir|nil }): integer|nil

---What `rally.option { ... }` takes (`scripts/options/`). Handlers get the option last.
---@class rally.OptionDecl
---@field name string
---@field describe? string one line for `rally options`
---@field uses? integer ammunition a drawn card starts with (chop shops reload it)
---@field replace? boolean
---@field on_card? fun(ctx: rally.Ctx, robot: rally.Robot, card: rally.Card, option: rally.HeldOption): rally.CardResult
---@field on_damage? fun(ctx: rally.Ctx, robot: rally.Robot, amount: integer, info: { cause: string, from: rally.Dir|nil }, option: rally.HeldOption): integer|nil
---@field steps? table<string, fun(ctx: rally.Ctx, robot: rally.Robot, option: rally.HeldOption)> once per holder in that step
---@field modify? table<string, fun(ctx: rally.Ctx, robot: rally.Robot, value: any, option: rally.HeldOption): any> value modifiers (`ctx:modify`)

---The rally API. The native half is in src/script/, the Lua half in src/script/prelude.lua.
---@class rally
rally = {}

---Declares a board element; a script returns it.
---@param decl rally.ElementDecl
---@return rally.ElementDecl
function rally.element(decl) end

---Declares a game-wide rule (robot lasers, a variant's house rule).
---@param decl rally.RuleDecl
---@return rally.RuleDecl
function rally.rule(decl) end

---The declarations loaded so far, by name, to build on (reading an unknown name is an error).
---@type table<string, rally.ElementDecl>
rally.elements = {}

---@type table<string, rally.RuleDecl>
rally.rules = {}

---Declares an option card; a script in scripts/options/ returns it.
---@param decl rally.OptionDecl
---@return rally.OptionDecl
function rally.option(decl) end

---@type table<string, rally.OptionDecl>
rally.options = {}

---The four directions, clockwise from north.
---@type rally.Dir[]
rally.dirs = {}

---The direction `dir` turned by `rotation`.
---@param dir rally.Dir
---@param rotation rally.Rotation
---@return rally.Dir
function rally.turn(dir, rotation) end

---@param dir rally.Dir
---@return rally.Dir
function rally.opposite(dir) end

---The rotation that turns `from` into `to`, or nil if they are equal.
---@param from rally.Dir
---@param to rally.Dir
---@return rally.Rotation|nil
function rally.rotation_between(from, to) end

---dx, dy of one step in `dir` (north is y - 1).
---@param dir rally.Dir
---@return integer dx
---@return integer dy
function rally.delta(dir) end

---The square `n` (default 1) steps from `pos` in `dir`.
---@param pos rally.Pos
---@param dir rally.Dir
---@param n? integer
---@return rally.Pos
function rally.step(pos, dir, n) end

---Is `register` one of the `phases` listed on a tile?
---@param phases integer[]
---@param register integer
---@return boolean
function rally.active(phases, register) end

---For `on_card`: the card loses its first square (water, oil).
---@param card rally.Card
---@return { distance: integer }|nil
function rally.lose_first_square(card) end

---Returned by `on_card`: the element resolved the card; the core does not execute it.
---@type table
rally.HANDLED = {}

---Parameter declarations for `params = { ... }`.
---@class rally.param
rally.param = {}

---@param opts? rally.ParamOpts
---@return rally.ParamSpec
function rally.param.dir(opts) end

---@param opts? rally.ParamOpts
---@return rally.ParamSpec
function rally.param.rotation(opts) end

---@param opts? rally.ParamOpts
---@return rally.ParamSpec
function rally.param.bool(opts) end

---@param opts? rally.ParamOpts `min`, `max`
---@return rally.ParamSpec
function rally.param.int(opts) end

---@param opts? rally.ParamOpts `choices`
---@return rally.ParamSpec
function rally.param.string(opts) end

---A list of registers 1..5; default every register.
---@param opts? rally.ParamOpts
---@return rally.ParamSpec
function rally.param.phases(opts) end

---@param of rally.ParamSpec
---@param opts? rally.ParamOpts
---@return rally.ParamSpec
function rally.param.list(of, opts) end

---A table keyed by direction, e.g. `{ N = "right" }`.
---@param of rally.ParamSpec
---@param opts? rally.ParamOpts
---@return rally.ParamSpec
function rally.param.dir_map(of, opts) end

---A variant's parameters, as the game set them (variant scripts only).
---@type table<string, any>
params = {}
