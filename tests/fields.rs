//! What scripts read of robots and ctx (`robot.x`, `ctx.register`): the common fields are
//! answered natively (src/engine/native.rs), the rest through mlua; both must give the same
//! values, inside coroutines too, and a tile's declared but absent parameter reads as nil.

use crate::support;

use std::path::Path;

/// Runs `s.toml` of `dir` with `--json` and returns robot A's vars.
fn vars_after(dir: &Path) -> serde_json::Value {
    let out = support::rally_ok(dir, &["run", "s.toml", "--json"]);
    let state: serde_json::Value = serde_json::from_str(&out).unwrap();
    state["robots"][0]["vars"].clone()
}

/// The element `probe` (a declared, absent `turn`), whose `fire` step stores what it reads.
const PROBE: &str = r#"
local function read(ctx, tile, robot)
  return {
    name = robot.name, x = robot.x, y = robot.y, at = { robot.at.x, robot.at.y },
    facing = robot.facing, damage = robot.damage, lives = robot.lives, flags = robot.flags,
    archive = { robot.archive.x, robot.archive.y }, destroyed = robot.destroyed,
    powered_down = robot.powered_down, options = #robot.options, vars = robot.vars.before,
    register = ctx.register, turn = ctx.turn, width = ctx.width, height = ctx.height,
    segment = ctx.segment, turn_param = tile.turn == nil,
  }
end

return rally.element {
  name = "probe",
  params = { turn = rally.param.rotation { optional = true } },
  steps = {
    fire = function(ctx, tile, robot)
      ctx:set_var(robot, "direct", read(ctx, tile, robot))
      local co = coroutine.create(read)
      local _, inside = coroutine.resume(co, ctx, tile, robot)
      ctx:set_var(robot, "coroutine", inside)
    end,
  },
}
"#;

#[test]
fn fields_read_the_same_natively_through_mlua_and_in_coroutines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("scripts/elements")).unwrap();
    std::fs::write(d.join("scripts/elements/probe.lua"), PROBE).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/elements/floor.lua"),
        d.join("scripts/elements/floor.lua"),
    )
    .unwrap();
    std::fs::write(
        d.join("s.toml"),
        "registers = 2\n[board]\ngrid = \". P .\\n. . .\"\n[board.legend]\n\"P\" = { element = \"probe\" }\n\".\" = \"floor\"\n[[robot]]\nname = \"Ada\"\nat = [0, 0]\nfacing = \"E\"\ndamage = 2\nvars = { before = 7 }\nprogram = [\"move1\", \"left\"]\n",
    )
    .unwrap();
    let vars = vars_after(d);
    let expected = serde_json::json!({
        "name": "Ada", "x": 1, "y": 0, "at": [1, 0], "facing": "N", "damage": 2, "lives": 3,
        "flags": 0, "archive": [0, 0], "destroyed": false, "powered_down": false,
        "options": 0, "vars": 7, "register": 2, "turn": 1, "width": 3, "height": 2,
        "segment": "lasers", "turn_param": true,
    });
    assert_eq!(vars["direct"], expected, "{vars}");
    assert_eq!(vars["coroutine"], expected, "{vars}");
}
