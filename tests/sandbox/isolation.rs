//! Issue 10 §3: scripts are isolated. Libraries, `rally`, the string metatable, tiles, robots
//! and parameters are read-only to every script, through every function a script could use
//! (`rawset`, `rawget`, `setmetatable`, `getmetatable`, `next`), and a failed attempt changes
//! nothing another script sees.

use super::harness::Attack;

#[test]
fn a_variant_cannot_change_rally_for_everyone() {
    Attack::file("rally.active = function() return false end\n")
        .run(&[])
        .refused(1, "the standard libraries and `rally` are read-only");
    Attack::file("rally.dirs[1] = 'S'\n")
        .run(&[])
        .refused(1, "read-only");
    Attack::file("rawset(rally, 'active', print)\n")
        .run(&[])
        .refused(1, "rawset: this table is read-only");
}

#[test]
fn libraries_and_globals_cannot_be_replaced() {
    Attack::file("string.format = nil\n")
        .run(&[])
        .refused(1, "read-only");
    Attack::file("table.insert = print\n")
        .run(&[])
        .refused(1, "read-only");
    Attack::file("_G.pairs = nil\n")
        .run(&[])
        .refused(1, "assignment to global `pairs`");
    Attack::file("pairs = nil\n")
        .run(&[])
        .refused(1, "assignment to global `pairs`");
    Attack::file("rawset(_G, 'x', 1)\n")
        .run(&[])
        .refused(1, "rawset: this table is read-only");
    Attack::file("setmetatable(_ENV, nil)\n")
        .run(&[])
        .refused(1, "cannot change a protected metatable");
    // The strings' metatable is locked: its methods cannot be reached through it.
    Attack::file("getmetatable('').__index.upper = nil\n")
        .run(&[])
        .refused(1, "attempt to index a boolean value");
}

#[test]
fn a_declared_element_is_changed_through_replace_not_by_mutation() {
    Attack::file("rally.elements.conveyor.steps.belts = function() end\n")
        .run(&[])
        .refused(1, "read-only");
    Attack::file("local c = rally.elements.conveyor\nc.describe = 'mine'\n")
        .run(&[])
        .refused(2, "read-only");
}

#[test]
fn tiles_robots_and_params_are_read_only_through_every_door() {
    for (line, what) in [
        ("tile.dir = 'N'", "on a tile: it is read-only"),
        (
            "rawset(tile, 'dir', 'N')",
            "rawset: this table is read-only",
        ),
        ("tile.at.x = 5", "read-only"),
        (
            "setmetatable(tile, nil)",
            "cannot change a protected metatable",
        ),
        (
            "getmetatable(tile).__index.dir = 'N'",
            "attempt to index a boolean value",
        ),
        (
            "getmetatable(robot).__index = nil",
            "attempt to index a boolean value",
        ),
        ("robot.damage = 9", "robot"),
    ] {
        Attack::on_card(line).run(&[]).refused(2, what);
    }
    let attack = Attack::file(
        "rally.rule { name = 'meddle', steps = { fire = function(ctx)\n  params.n = 9\nend } }\n",
    );
    std::fs::write(
        attack.path("variants/attack/variant.toml"),
        "name = \"attack\"\ndescription = \"x\"\nfiles = [\"attack.lua\"]\n[params.n]\nkind = \"int\"\ndefault = 1\n",
    )
    .unwrap();
    std::fs::write(
        attack.path("s.toml"),
        super::harness::trap_scenario().replace("\"T\" = \"trap\"", "\"T\" = \"floor\""),
    )
    .unwrap();
    attack
        .run(&[])
        .refused(2, "variant parameters are read-only");
}

#[test]
fn reading_through_the_raw_functions_sees_what_a_script_may_see() {
    // Read-only tables answer `rawget`, `rawlen`, `next`, `pairs`, `ipairs` and `#` as plain
    // tables would; what failed to change is unchanged for the next script.
    let attack = Attack::on_card(
        r#"assert(rawget(tile, 'element') == 'trap' and next(tile) ~= nil)
assert(#rally.dirs == 4 and rawlen(rally.dirs) == 4 and select(2, next(rally.dirs)) == 'N')
local n = 0 for _ in pairs(rally.dirs) do n = n + 1 end assert(n == 4)
for _, attempt in ipairs({
  function() rally.active = function() return false end end,
  function() string.upper = string.lower end,
  function() rawset(string, 'upper', string.lower) end,
  function() rally.dirs[1] = 'S' end,
  function() tile.element = 'floor' end,
}) do assert(not pcall(attempt)) end
ctx:log(robot, 'after', { upper = ('x'):upper(), active = rally.active({ 1 }, 1), first = rally.dirs[1], element = tile.element })"#,
    );
    let out = attack.rally(&["run", "--json", "s.toml"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let state: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let after = state["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["what"] == "after")
        .expect("the handler ran to its end");
    assert_eq!(after["upper"], "X");
    assert_eq!(after["active"], true);
    assert_eq!(after["first"], "N");
    assert_eq!(after["element"], "trap");
}

#[test]
fn nothing_outside_the_game_changes() {
    // No library reaches the file system: the folder the game runs in is left as it was.
    let attack = Attack::on_card("for _, name in ipairs({ 'io', 'os', 'require', 'load', 'dofile', 'debug' }) do\n  assert(not pcall(function() return _ENV[name] end))\nend");
    let before = attack.files();
    let out = attack.run(&[]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(before, attack.files());
}

#[test]
fn an_index_function_kept_from_load_time_cannot_hand_out_the_data_behind_a_view() {
    // Issue 24: the view's data kept the script's metatable, so `__index` was called with the
    // data itself, writable: a counter kept this way survived calls, rollbacks and games.
    Attack::file(
        "local counter = setmetatable({}, { __index = function(self, key) return self end })\nrally.element { name = \"trap\", on_card = function(ctx, tile, robot, card)\n  local data = counter.anything\n  data.n = 1\nend }\n",
    )
    .run(&[])
    .refused(4, "a table a script keeps between calls is read-only");
    // A class keeps working: methods through an `__index` table or function, called with the
    // object as it was.
    let out = Attack::file(
        "local Class = {}\nClass.__index = Class\nfunction Class.twice(self) return self.n * 2 end\nlocal object = setmetatable({ n = 21 }, Class)\nlocal lazy = setmetatable({ n = 4 }, { __index = function(self, key) return self.n + #key end })\nrally.element { name = \"trap\", on_card = function(ctx, tile, robot, card)\n  assert(object:twice() == 42 and lazy.abc == 7 and getmetatable(object) == Class)\n  ctx:set_var(robot, 'ok', true)\nend }\n",
    )
    .run(&[]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
}
