/*
 * RallyBoard: draws the moving parts of a rally game in a web page, from frame data (JSON)
 * over the static board SVG that rally draws (src/pictures/svg.rs). Shared by the replay viewer
 * (`rally replay`) and the playtest table (`rally serve`), so both show a game the same way.
 *
 *   const board = RallyBoard.mount(svgElement, { duration: 240 });
 *   board.show(frame, { animate: true });   // robots, ghosts and trails, beams, shots
 *   await board.settled();                  // the animation has ended
 *   RallyBoard.cards(element, frame);       // each robot's five cards
 *   RallyBoard.robots(tbody, frame, { flags: 3 });   // the robots' state, one row each
 *   RallyBoard.events(listElement, frames, { href: (frame) => "#" + frame.id });
 *
 * The frame JSON and this interface are documented in docs/pictures.md ("The frame JSON").
 * Everything that needs the rules (where a beam ends, who shot whom, the path a robot took)
 * is in the frame: this module only draws. No dependencies, no network, no build step.
 */
"use strict";
const RallyBoard = (function () {
  const NS = "http://www.w3.org/2000/svg";
  const DEGREES = { N: 0, E: 90, S: 180, W: 270 };
  const DELTA = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };
  const CARD_NAMES = {
    move1: "Move 1", move2: "Move 2", move3: "Move 3", back: "Back Up",
    left: "Turn Left", right: "Turn Right", uturn: "U-Turn",
  };
  const CARD_FACES = {
    move1: "↑1", move2: "↑2", move3: "↑3", back: "↓1", left: "↶", right: "↷", uturn: "⟲",
  };

  // The page's styles for the cards, the tables and the animations, added once.
  const STYLE = `
    .rb-robot { cursor: default; }
    .rb-robot.rb-highlight .rb-frame { stroke-width: 9; }
    .rb-ghost { opacity: 0.45; pointer-events: none; }
    .rb-mark-square { fill: #0072b2; fill-opacity: 0.18; stroke: #0072b2; stroke-width: 4; stroke-dasharray: 8 5; pointer-events: none; }
    .rb-mark-arrow { cursor: pointer; }
    .rb-preview rect { fill: #fff; fill-opacity: 0.2; stroke: #111; stroke-width: 3; stroke-dasharray: 6 5; }
    .rb-preview polygon { fill: #111; fill-opacity: 0.7; }
    .rb-preview text { fill: #111; font-size: 13px; font-weight: bold; text-anchor: middle; paint-order: stroke; stroke: #fff; stroke-width: 4px; }
    .rb-preview.rb-lost rect { stroke: #d55e00; fill-opacity: 0.6; }
    .rb-preview.rb-lost text { fill: #d55e00; }
    .rb-preview, .rb-preview * { pointer-events: none; }
    .rb-mark-arrow polygon { fill: #0072b2; stroke: #fff; stroke-width: 2; }
    .rb-mark-arrow text { fill: #fff; font-size: 13px; font-weight: bold; text-anchor: middle; pointer-events: none; }
    .rb-mark-arrow:hover polygon, .rb-mark-arrow:focus polygon { fill: #e69f00; }
    .rb-trail { fill: none; stroke-width: 3; stroke-dasharray: 2 6; stroke-linecap: round; opacity: 0.9; pointer-events: none; }
    .rb-shot { pointer-events: none; }
    .rb-shot line { stroke-dasharray: 1; stroke-dashoffset: 0; }
    .rb-animate .rb-shot line { animation: rb-fire 0.45s ease-out both; }
    .rb-animate .rb-shot .rb-burst { animation: rb-burst 0.6s ease-out both; }
    @keyframes rb-fire { from { stroke-dashoffset: 1; } to { stroke-dashoffset: 0; } }
    @keyframes rb-burst { 0% { opacity: 0; } 60% { opacity: 0; } 100% { opacity: 1; } }
    .rb-cards { display: grid; grid-template-columns: auto repeat(5, 1fr); gap: 4px 6px; align-items: center; }
    .rb-who { font-weight: bold; white-space: nowrap; }
    .rb-swatch { display: inline-block; width: 11px; height: 11px; border-radius: 3px; margin-right: 5px; border: 1px solid #111; vertical-align: -1px; }
    .rb-card { position: relative; display: flex; flex-direction: column; align-items: center; justify-content: center;
      height: 42px; min-width: 38px; border-radius: 5px; border: 1px solid #888; background: #fffdf5; font-weight: bold; font-size: 15px; line-height: 1.1; }
    .rb-card small { font-size: 10px; font-weight: normal; color: #555; }
    .rb-card.rb-back { background: repeating-linear-gradient(45deg, #5b6170, #5b6170 4px, #6b7282 4px, #6b7282 8px); color: #fff; border-color: #444; }
    .rb-card.rb-empty { background: transparent; border-style: dashed; color: #999; }
    .rb-card.rb-past { opacity: 0.55; }
    .rb-card.rb-future { opacity: 0.45; border-style: dashed; }
    .rb-card.rb-current { outline: 3px solid var(--rb-color, #f0b400); outline-offset: 1px; }
    .rb-card.rb-acting { box-shadow: 0 0 0 6px #ffe06688; }
    .rb-robots-row td:first-child { white-space: nowrap; }
    .rb-robots-row.rb-gone { color: #999; text-decoration: line-through; }
    .rb-pips { letter-spacing: -2px; color: #c0102a; font-size: 11px; white-space: nowrap; }
    .rb-pips .rb-empty { color: #ccc; }
    .rb-vars { font-family: monospace; font-size: 12px; color: #555; }
    .rb-winner { color: #9a6b00; font-weight: bold; }
    .rb-events li.rb-heading a { font-weight: bold; color: #555; text-decoration: none; }
    .rb-events li a { color: inherit; text-decoration: none; display: block; }
    .rb-events li a:hover { background: #eef3ff; }
  `;

  function addStyle() {
    if (document.getElementById("rally-board-style")) return;
    const style = document.createElement("style");
    style.id = "rally-board-style";
    style.textContent = STYLE;
    document.head.appendChild(style);
  }

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (parent) parent.appendChild(node);
    return node;
  }

  const text = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

  /** A card as shown: "move2@500" → { kind: "move2", name: "Move 2", face: "↑2", priority: "500" }. */
  function card(c) {
    const [kind, priority] = String(c).split("@");
    return { kind, name: CARD_NAMES[kind] || kind, face: CARD_FACES[kind] || kind, priority: priority || "" };
  }

  /**
   * Prepares `svg` (a board picture by rally, with its `#robots` group) for drawing frames.
   * options.duration: milliseconds an animated robot takes per square (default 240).
   */
  function mount(svg, options) {
    addStyle();
    const opts = Object.assign({ duration: 240 }, options || {});
    const cell = Number(svg.dataset.cell || 64);
    const margin = Number(svg.dataset.margin || 24);
    let robotsLayer = svg.querySelector("#robots");
    if (!robotsLayer) robotsLayer = el("g", { id: "robots" }, svg);
    const parent = robotsLayer.parentNode;
    const ghosts = el("g", { id: "ghosts" });
    parent.insertBefore(ghosts, robotsLayer);
    const shots = el("g", { id: "shots" });
    parent.insertBefore(shots, robotsLayer.nextSibling);
    const marks = el("g", { id: "marks" });
    parent.insertBefore(marks, shots.nextSibling);
    // Above the robots: a register may end where a robot stands now (its own, at the start).
    const previews = el("g", { id: "preview" });
    parent.insertBefore(previews, robotsLayer.nextSibling);
    let beams = svg.querySelector("#beams");
    if (!beams) {
      beams = el("g", { id: "beams" });
      parent.insertBefore(beams, ghosts);
    }
    let running = null; // the animation: { moving, frame, timeout }
    let waiting = [];
    let highlighted = null;

    const corner = (p) => [margin + p[0] * cell, margin + p[1] * cell];
    const centre = (p) => [margin + (p[0] + 0.5) * cell, margin + (p[1] + 0.5) * cell];

    function finish() {
      if (running !== null) {
        cancelAnimationFrame(running.frame);
        clearTimeout(running.timeout);
        for (const { g, r } of running.moving) pose(g, r, 1);
      }
      running = null;
      svg.classList.remove("rb-animating");
      const done = waiting;
      waiting = [];
      done.forEach((resolve) => resolve());
    }

    /** The robot token: a frame round the square (the tile stays visible inside), an arrow
     *  on the side it faces, its full name on a tab, badges for damage and flags touched. */
    function token(r, into, won) {
      const g = el("g", { class: "rb-robot robot", "data-robot": r.name, "data-x": r.at[0], "data-y": r.at[1], "data-facing": r.facing }, into);
      el("title", {}, g).textContent = robotTitle(r) + (won ? " · has won" : "");
      const dash = r.powered_down ? { "stroke-dasharray": "7 4" } : {};
      // The winner: a gold outline round the token and a star before its name.
      if (won) el("rect", { class: "rb-crown", x: 0.5, y: 0.5, width: 63, height: 63, rx: 13, fill: "none", stroke: "#ffd700", "stroke-width": 3 }, g);
      el("rect", { class: "rb-tint", x: 4, y: 4, width: 56, height: 56, rx: 10, fill: r.color, "fill-opacity": 0.16 }, g);
      el("rect", Object.assign({ x: 5, y: 5, width: 54, height: 54, rx: 10, fill: "none", stroke: "#111", "stroke-width": 8 }, dash), g);
      el("rect", Object.assign({ class: "rb-frame", x: 5, y: 5, width: 54, height: 54, rx: 10, fill: "none", stroke: r.color, "stroke-width": 5 }, dash), g);
      const heading = el("g", { class: "rb-heading", transform: `rotate(${DEGREES[r.facing]} 32 32)` }, g);
      el("polygon", { points: "32,0 44,14 20,14", fill: r.color, stroke: "#111", "stroke-width": 2, "stroke-linejoin": "round" }, heading);
      // The name on the side away from the arrow; badges on the other corners.
      const top = r.facing === "S";
      const tab = el("g", { class: "rb-name" }, g);
      el("rect", { x: 4, y: top ? 3 : 46, width: 56, height: 15, rx: 5, fill: r.color, stroke: "#111", "stroke-width": 1.5 }, tab);
      const shown = (won ? 2 : 0) + r.name.length;
      const size = Math.min(11, 52 / (0.62 * Math.max(1, shown)));
      const label = el("text", { x: 32, y: (top ? 3 : 46) + 11, "font-size": Math.max(7, size).toFixed(1), "font-weight": "bold", fill: "#fff", stroke: "#111", "stroke-width": 2.2, "paint-order": "stroke", "text-anchor": "middle" }, tab);
      if (size < 7) { label.setAttribute("textLength", 52); label.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
      label.textContent = (won ? "★ " : "") + r.name;
      // The initial in a disc on the side away from the arrow: which robot it is, without
      // its colour (as the picture renderer draws it, src/pictures/svg/robots.rs).
      const side = r.facing === "W" ? 53 : 11;
      el("circle", { cx: side, cy: 32, r: 7.5, fill: "#fff", stroke: r.color, "stroke-width": 2.5 }, g);
      el("text", { class: "initial", x: side, y: 36, "font-size": 11, "font-weight": "bold", fill: "#111", "text-anchor": "middle" }, g).textContent = (r.name[0] || "?").toUpperCase();
      const by = top ? 54 : 10;
      if (r.damage > 0) {
        el("circle", { cx: 54, cy: by, r: 8, fill: "#c0102a", stroke: "#fff", "stroke-width": 1.5 }, g);
        el("text", { x: 54, y: by + 4, "font-size": 10, "font-weight": "bold", fill: "#fff", "text-anchor": "middle" }, g).textContent = r.damage;
      }
      if (r.flags > 0) {
        el("rect", { x: 2, y: by - 8, width: 16, height: 16, rx: 3, fill: "#fff", stroke: "#111" }, g);
        el("text", { x: 10, y: by + 4, "font-size": 10, "font-weight": "bold", fill: "#111", "text-anchor": "middle" }, g).textContent = r.flags;
      }
      iceChart(r, g);
      return g;
    }

    // The Ice Rink chart a robot on the ice carries (vars.ice = { vx, vy, spin }, vy north).
    function iceChart(r, g) {
      const ice = r.vars && r.vars.ice;
      if (!ice || typeof ice !== "object") return;
      const vx = ice.vx || 0, vy = ice.vy || 0, spin = ice.spin || 0;
      if (vx || vy) {
        el("line", { class: "ice-speed", x1: 32, y1: 32, x2: 32 + vx * 7, y2: 32 - vy * 7, stroke: "#00c8ff", "stroke-width": 4, "stroke-linecap": "round" }, g);
        el("circle", { cx: 32 + vx * 7, cy: 32 - vy * 7, r: 4, fill: "#00c8ff" }, g);
      }
      if (spin) {
        el("text", { class: "ice-spin", x: 9, y: 38, "font-size": 12, "font-weight": "bold", fill: "#006d8f" }, g).textContent = (spin > 0 ? "↻" : "↺") + Math.abs(spin);
      }
    }

    function place(g, p, facing) {
      const [x, y] = corner(p);
      g.setAttribute("transform", `translate(${x},${y})`);
      if (facing !== undefined) g.querySelector(".rb-heading").setAttribute("transform", `rotate(${facing} 32 32)`);
    }

    function ghost(r, at, facing) {
      const g = el("g", { class: "rb-ghost", "data-robot": r.name }, ghosts);
      el("title", {}, g).textContent = r.name + " was here";
      el("rect", { x: 7, y: 7, width: 50, height: 50, rx: 10, fill: "none", stroke: r.color, "stroke-width": 4, "stroke-dasharray": "6 4" }, g);
      const heading = el("g", { class: "rb-heading", transform: `rotate(${DEGREES[facing]} 32 32)` }, g);
      el("polygon", { points: "32,2 42,14 22,14", fill: r.color }, heading);
      place(g, at);
    }

    function wreck(r) {
      const last = r.path && r.path.length ? r.path[r.path.length - 1] : r.at;
      const g = el("g", { class: "rb-wreck", "data-robot": r.name }, ghosts);
      el("title", {}, g).textContent = r.name + " was destroyed here";
      el("path", { d: "M14,14 L50,50 M50,14 L14,50", stroke: "#111", "stroke-width": 9, "stroke-linecap": "round" }, g);
      el("path", { d: "M14,14 L50,50 M50,14 L14,50", stroke: r.color, "stroke-width": 5, "stroke-linecap": "round" }, g);
      place(g, last);
    }

    function trail(r) {
      const points = r.path.map((p) => centre(p).join(",")).join(" ");
      el("polyline", { class: "rb-trail", points, stroke: r.color }, ghosts);
    }

    function drawBeams(frame) {
      if (!Array.isArray(frame.beams)) return; // a page without beam data keeps the static ones
      beams.replaceChildren();
      for (const b of frame.beams) {
        const [dx, dy] = DELTA[b.dir];
        const [sx, sy] = centre(b.from);
        const [ex, ey] = centre(b.to);
        const reach = b.hit ? 0 : cell / 2;
        for (let i = 0; i < b.strength; i++) {
          const off = (i - (b.strength - 1) / 2) * 6;
          el("line", {
            class: "beam", x1: sx - dx * 18 + dy * off, y1: sy - dy * 18 + dx * off,
            x2: ex + dx * reach + dy * off, y2: ey + dy * reach + dx * off,
            stroke: "#ff2a2a", "stroke-width": 2.5, opacity: 0.8,
          }, beams);
        }
      }
    }

    function drawShots(frame) {
      shots.replaceChildren();
      for (const s of frame.shots || []) {
        const g = el("g", { class: "rb-shot", "data-target": s.target, "data-shooter": s.shooter || "" }, shots);
        el("title", {}, g).textContent = (s.shooter ? "the laser of robot " + s.shooter : "board laser at [" + s.from + "]") +
          " hits " + s.target + (s.amount ? ": " + s.amount + " damage" : ": prevented");
        // From the shooter's nose (or the emitter's lens) to the target's centre.
        const [fx, fy] = centre(s.from);
        const [x2, y2] = centre(s.to);
        const length = Math.hypot(x2 - fx, y2 - fy) || 1;
        const lead = s.shooter ? cell * 0.42 : -cell * 0.28;
        const [x1, y1] = [fx + ((x2 - fx) / length) * lead, fy + ((y2 - fy) / length) * lead];
        el("line", { x1, y1, x2, y2, stroke: "#7a0000", "stroke-width": 7, "stroke-linecap": "round", pathLength: 1, opacity: 0.6 }, g);
        el("line", { x1, y1, x2, y2, stroke: "#ff3030", "stroke-width": 4, "stroke-linecap": "round", pathLength: 1 }, g);
        el("line", { x1, y1, x2, y2, stroke: "#fff6a0", "stroke-width": 1.2, "stroke-linecap": "round", pathLength: 1 }, g);
        el("polygon", {
          class: "rb-burst", fill: "#ffd400", stroke: "#c00", "stroke-width": 1.5,
          points: "0,-13 4,-4 13,-4 6,2 9,12 0,6 -9,12 -6,2 -13,-4 -4,-4", transform: `translate(${x2},${y2})`,
        }, g);
      }
    }

    /** Draws `frame`; with `{ animate: true }` robots move along their paths and turn. */
    function show(frame, how) {
      finish();
      const animate = !!(how && how.animate) && opts.duration > 0;
      svg.classList.toggle("rb-animate", animate);
      robotsLayer.replaceChildren();
      ghosts.replaceChildren();
      drawBeams(frame);
      drawShots(frame);
      const moving = [];
      for (const r of frame.robots) {
        const moved = r.path && r.path.length > 1;
        if (moved) trail(r);
        if ((moved || r.was_facing) && !r.destroyed) ghost(r, moved ? r.path[0] : r.at, r.was_facing || r.facing);
        if (r.wrecked) wreck(r);
        if (r.destroyed) continue;
        const g = token(r, robotsLayer, r.name === frame.winner);
        place(g, r.at);
        if (r.name === highlighted) g.classList.add("rb-highlight");
        if (animate && (moved || r.was_facing)) moving.push({ g, r });
      }
      if (moving.length) run(moving);
    }

    // Robots glide square by square along their paths and turn on the spot, all together.
    function run(moving) {
      const steps = Math.max(1, ...moving.map((m) => (m.r.path ? m.r.path.length - 1 : 0) + (m.r.was_facing ? 1 : 0)));
      const total = opts.duration * steps;
      const start = performance.now();
      svg.classList.add("rb-animating");
      const tick = (now) => {
        // A frame's timestamp is when the frame began, which may be before `start`: without
        // the floor, t < 0 points past the path's start and the animation never ends.
        const t = Math.max(0, Math.min(1, (now - start) / total));
        for (const { g, r } of moving) pose(g, r, t);
        if (t < 1) running.frame = requestAnimationFrame(tick);
        else finish();
      };
      for (const { g, r } of moving) pose(g, r, 0);
      // A page in the background gets no animation frames: the timeout ends it all the same.
      running = { moving, frame: requestAnimationFrame(tick), timeout: setTimeout(finish, total + 100) };
    }

    // Where a moving robot is at time t (0..1): first along its path, then turning.
    function pose(g, r, t) {
      const path = r.path && r.path.length > 1 ? r.path : [r.at];
      const legs = path.length - 1;
      const turn = r.was_facing ? 1 : 0;
      const span = legs + turn;
      const u = t * span;
      const leg = Math.min(legs, u);
      const i = Math.min(legs - 1, Math.floor(leg));
      const f = legs ? leg - Math.max(0, i) : 0;
      const p = legs ? [path[i][0] + (path[i + 1][0] - path[i][0]) * f, path[i][1] + (path[i + 1][1] - path[i][1]) * f] : path[0];
      const from = DEGREES[r.was_facing || r.facing];
      let delta = DEGREES[r.facing] - from;
      if (delta > 180) delta -= 360;
      if (delta < -180) delta += 360;
      const turned = turn ? Math.max(0, Math.min(1, u - legs)) : 1;
      place(g, p, from + delta * turned);
    }

    return {
      show,
      /** Milliseconds an animated robot takes per square from now on (a page's speed
       *  control; 0 shows each frame at once). */
      setDuration(ms) { opts.duration = Math.max(0, Number(ms) || 0); },
      /** Ends the current animation at once (a page's skip). */
      finish,
      /** A promise resolved once the current animation (if any) has ended. */
      settled: () => (running === null ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve))),
      /** Emphasises one robot's token (null: none). */
      highlight(name) {
        highlighted = name;
        for (const g of robotsLayer.querySelectorAll(".rb-robot")) g.classList.toggle("rb-highlight", g.dataset.robot === name);
      },
      /** The square's centre in the SVG's coordinates (for pages that draw more). */
      centre,
      /**
       * Draws a program's preview: a dashed square where the robot would stand after each
       * register (`poses`: `{ register, at, facing, destroyed }`, as the table's desk has
       * them), numbered with the registers that end there and pointing the way it faces; a
       * register it is destroyed in is marked ✕. An empty list clears it.
       */
      preview(poses) {
        previews.replaceChildren();
        const squares = new Map();
        for (const p of poses || []) {
          const key = p.at.join(",");
          if (!squares.has(key)) squares.set(key, []);
          squares.get(key).push(p);
        }
        for (const here of squares.values()) {
          const last = here[here.length - 1];
          const lost = here.some((p) => p.destroyed);
          const g = el("g", { class: "rb-preview" + (lost ? " rb-lost" : ""), "data-registers": here.map((p) => p.register).join(" ") }, previews);
          const [x, y] = corner(last.at);
          el("rect", { x: x + 6, y: y + 6, width: cell - 12, height: cell - 12, rx: 9 }, g);
          const [cx, cy] = centre(last.at);
          el("text", { x: cx, y: cy + 5 }, g).textContent = here.map((p) => p.register).join(",") + (lost ? " ✕" : "");
          if (!lost) {
            el("polygon", { points: `0,${-cell * 0.5 + 7} 7,${-cell * 0.5 + 16} -7,${-cell * 0.5 + 16}`,
              transform: `translate(${cx},${cy}) rotate(${DEGREES[last.facing]})` }, g);
          }
        }
      },
      /**
       * Marks a square a question is about, with an arrow on each side `facings` names
       * ("N", "E"...) that calls `pick(facing)` when clicked (or Enter on it); null clears.
       */
      mark(square, facings, pick) {
        marks.replaceChildren();
        if (!square) return;
        const [x, y] = corner(square);
        el("rect", { class: "rb-mark-square", x: x + 2, y: y + 2, width: cell - 4, height: cell - 4, rx: 8 }, marks);
        const [cx, cy] = centre(square);
        for (const f of facings || []) {
          const a = el("g", { class: "rb-mark-arrow", "data-facing": f, tabindex: "0", role: "button", "aria-label": "face " + f,
            transform: `translate(${cx},${cy}) rotate(${DEGREES[f]})` }, marks);
          el("polygon", { points: `0,${-cell * 0.5 - 26} 16,${-cell * 0.5 - 6} -16,${-cell * 0.5 - 6}` }, a);
          el("text", { x: 0, y: -cell * 0.5 - 10, transform: `rotate(${-DEGREES[f]} 0 ${-cell * 0.5 - 14})` }, a).textContent = f;
          const go = () => pick && pick(f);
          a.addEventListener("click", go);
          a.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); } });
        }
      },
    };
  }

  function robotTitle(r) {
    const parts = [r.name + ", facing " + r.facing, r.damage + " damage", r.lives + (r.lives === 1 ? " life" : " lives"), r.flags + " flags"];
    if (r.powered_down) parts.push("powered down");
    if (r.options && r.options.length) parts.push("options: " + r.options.join(", "));
    return parts.join(" · ");
  }

  /** Each robot's five cards: played ones dimmed, the register's card outlined in the robot's
   *  colour once revealed (face down before its robot acts), the acting robot's glowing. */
  function cards(container, frame) {
    addStyle();
    const rows = [];
    for (const r of frame.robots) {
      if (!r.program || !r.program.length) continue;
      const cells = [];
      for (let i = 0; i < 5; i++) {
        const c = r.program[i];
        const register = i + 1;
        const up = register <= r.shown;
        const classes = ["rb-card"];
        if (register < frame.register || (frame.register === 0 && r.shown === 5)) classes.push("rb-past");
        if (register === frame.register) classes.push("rb-current");
        if (register === frame.register && frame.acting === r.name) classes.push("rb-acting");
        if (c === null || c === undefined) {
          classes.push("rb-empty");
          cells.push(`<span class="${classes.join(" ")}" title="register ${register}: no card">–</span>`);
        } else if (!up && register === frame.register) {
          classes.push("rb-back");
          cells.push(`<span class="${classes.join(" ")}" title="register ${register}: not revealed yet">?</span>`);
        } else {
          const k = card(c);
          if (!up) classes.push("rb-future");
          cells.push(`<span class="${classes.join(" ")}" data-card="${text(c)}" title="register ${register}: ${text(k.name)}${k.priority ? ", priority " + text(k.priority) : ""}">` +
            `${text(k.face)}<small>${text(k.priority)}</small></span>`);
        }
      }
      rows.push(`<span class="rb-who"><span class="rb-swatch" style="background:${r.color}"></span>${text(r.name)}</span>` +
        `<span style="display:contents;--rb-color:${r.color}" data-robot="${text(r.name)}">${cells.join("")}</span>`);
    }
    container.classList.add("rb-cards");
    container.innerHTML = rows.join("");
  }

  // The Ice Rink chart (vars.ice = { vx, vy, spin }, vy north) in words; other vars as JSON.
  function varsText(vars) {
    const parts = [];
    for (const [key, value] of Object.entries(vars || {})) {
      if (key === "ice" && value && typeof value === "object") {
        parts.push("ice: speed " + (value.vx || 0) + " E, " + (value.vy || 0) + " N, spin " + (value.spin || 0));
      } else {
        parts.push(key + ": " + JSON.stringify(value));
      }
    }
    return parts.join("; ");
  }

  function pips(damage) {
    let out = "";
    for (let i = 0; i < 10; i++) out += i < damage ? "■" : '<span class="rb-empty">□</span>';
    return '<span class="rb-pips" title="' + damage + ' damage">' + out + "</span> " + damage;
  }

  /** The robots' state, one `<tr data-robot>` each, into `tbody`: square, facing, damage,
   *  lives, flags (of options.flags), destroyed / powered down / winner, options, script vars. */
  function robots(tbody, frame, options) {
    addStyle();
    const flags = (options && options.flags) || 0;
    tbody.innerHTML = frame.robots.map((r) => {
      const state = [];
      if (r.name === frame.winner) state.push('<span class="rb-winner">★ winner</span>');
      if (r.destroyed) state.push("destroyed");
      if (r.powered_down) state.push("powered down");
      if (r.options && r.options.length) state.push("options: " + text(r.options.join(", ")));
      const vars = varsText(r.vars);
      return `<tr class="rb-robots-row${r.destroyed ? " rb-gone" : ""}" data-robot="${text(r.name)}">` +
        `<td><span class="rb-swatch" style="background:${r.color}"></span>${text(r.name)}</td>` +
        `<td>${r.destroyed ? "–" : "[" + r.at[0] + ", " + r.at[1] + "]"}</td>` +
        `<td>${r.facing}</td><td>${pips(r.damage)}</td><td>${r.lives}</td>` +
        `<td>${r.flags}${flags ? " / " + flags : ""}</td>` +
        `<td>${state.join(", ")}${vars ? '<div class="rb-vars">' + text(vars) + "</div>" : ""}</td></tr>`;
    }).join("");
  }

  /** Every frame's events under its label, into `list` (an `<ol>`), each item a link to its
   *  frame (`options.href(frame, index)`, default `#` + frame id) and marked with
   *  `data-frame` (the frame's index). Returns `mark(i)`: highlights frame i's items, hides
   *  later ones (unless options.all) and scrolls them into view. */
  function events(list, frames, options) {
    addStyle();
    const opts = Object.assign({ href: (f) => "#" + f.id, all: false }, options || {});
    const items = [];
    frames.forEach((f, i) => {
      const href = text(opts.href(f, i));
      items.push(`<li class="heading rb-heading" data-frame="${i}"><a href="${href}">${text(f.label)}</a></li>`);
      if (f.events.length === 0) items.push(`<li data-frame="${i}"><a href="${href}">(nothing happened)</a></li>`);
      for (const e of f.events) {
        if (e.what === "card" && e.robot === f.acting) continue; // the heading says it
        items.push(`<li data-frame="${i}" data-what="${text(e.what)}"${e.robot ? ' data-robot="' + text(e.robot) + '"' : ""}><a href="${href}">${text(e.text)}</a></li>`);
      }
    });
    list.classList.add("rb-events");
    list.innerHTML = items.join("");
    return function mark(current) {
      let first = null;
      for (const li of list.children) {
        const f = Number(li.dataset.frame);
        li.classList.toggle("current", f === current);
        li.classList.toggle("later", !opts.all && f > current);
        if (f === current && !first) first = li;
      }
      if (first) list.scrollTop = first.offsetTop - list.offsetTop;
    };
  }

  return { mount, cards, robots, events, card };
})();
