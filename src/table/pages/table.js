// The rally playtest table in the browser (table.html). The link's #token says who this page
// is (a seat, a spectator or the host); the server sends this page only what that role may
// see. Frames: "welcome" (the board), "state" (the table now, for this page), "stage" (what
// one stage of the turn did: played one after the other), "notice", "error", "board".
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  // The last part of the path (`…/t/ID`): behind a reverse proxy the path has a prefix, and
  // every URL this page asks for is relative to it.
  const table = decodeURIComponent(location.pathname.split("/").pop());
  let token = location.hash.slice(1);
  const text = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

  let socket = null;
  let state = null;          // the last "state" frame
  let queue = [];            // frames of "stage" messages still to show, in order
  let playing = false;
  let playingTurn = null;    // the turn of the frame on the board while playing
  const played = [];         // every frame shown: { id, animated } (window.rallyTable, for tests)
  // Every state applied: { phase, question, outcome, animating } (for tests: none while the
  // board still plays).
  const applied = [];
  // Each reload's notice as it was shown: its rules, the stage it follows (`after`) and the
  // stage the board had played then.
  const reloads = [];
  // lobby.js (names, seats, the chat, the end) plugs in here: `lobby.state(s)` on every
  // state, `lobby.receive(frame)` for the frames it knows, `send` for its messages.
  const lobby = () => window.rallyLobby;
  window.rallyTable = { played, applied, reloads, send: (m) => send(m), seated: (t) => { token = t; } };
  let playedSeq = 0;
  // The last "state" that came while the board still played: the phase, the outcome, the
  // next turn's deal and a question wait for the board (they belong after the stages sent
  // before them).
  let held = null;
  // The highest stage number (`seq`) this page has shown or queued: the log a (re)connected
  // page gets and a stage sent again are not shown twice.
  let seen = 0;
  let run = null;            // the table's run: a resumed table sends its whole log again
  let retry = 500;
  let questionShown = null;
  let timerBase = null;      // [ms left, when received]
  let questionBase = null;

  const GLYPHS = { move1: "↑", move2: "⇈", move3: "⤊", back: "↓", left: "↶", right: "↷", uturn: "⟲" };
  const NAMES = { move1: "Move 1", move2: "Move 2", move3: "Move 3", back: "Back up", left: "Turn left", right: "Turn right", uturn: "U-turn" };

  // A card in words, for screen readers and titles: "Move 2, priority 700".
  function cardWords(card) {
    const [kind, priority] = String(card).split("@");
    return (NAMES[kind] || kind) + (priority ? ", priority " + priority : "");
  }

  function cardHtml(card, extra) {
    const [kind, priority] = card.split("@");
    return '<div class="card" data-card="' + text(card) + '" aria-label="' + text(cardWords(card)) + '"' + (extra || "") + ">" +
      '<span class="priority" aria-hidden="true">' + text(priority || "") + "</span>" +
      '<span class="glyph" aria-hidden="true">' + (GLYPHS[kind] || "?") + "</span>" +
      '<span class="name" aria-hidden="true">' + text(NAMES[kind] || kind) + "</span></div>";
  }

  const isCard = (c) => /^[a-z0-9]+@\d+$/.test(c) && c.split("@")[0] in GLYPHS;

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }

  function notice(message, level) {
    const div = document.createElement("div");
    div.className = "notice " + level;
    div.textContent = message;
    $("notices").appendChild(div);
    setTimeout(() => div.remove(), level === "error" ? 15000 : 8000);
  }

  // --- the board ---------------------------------------------------------------------------
  // The drawing module shared with the replay viewer (board.js) draws every frame.
  let board = null;
  // The animation's pace (ms a robot takes per square; 0: no animation), kept in the
  // browser for the next visit.
  let pace = Number(localStorage.getItem("rally.pace") || 240);
  if (!(pace >= 0 && pace <= 2000)) pace = 240;
  $("speed").value = String(pace);
  // Skip: the frames queued now are shown at once, without animation.
  let skipping = false;

  function mountBoard(svg) {
    $("board-view").innerHTML = svg;
    const drawn = $("board-view").querySelector("svg");
    drawn.setAttribute("role", "img");
    drawn.setAttribute("aria-describedby", "board-text");
    board = RallyBoard.mount(drawn, { duration: pace });
  }

  $("speed").onchange = () => {
    pace = Number($("speed").value);
    localStorage.setItem("rally.pace", String(pace));
    if (board) board.setDuration(pace);
  };
  $("skip").onclick = () => {
    skipping = true;
    if (board) board.finish();
  };

  // The board in words: where each robot is, which way it faces, how it stands.
  function describeBoard(frame) {
    $("board-text").textContent = "The board: " + frame.robots.map((r) =>
      r.destroyed ? r.name + " is destroyed, " + r.lives + (r.lives === 1 ? " life" : " lives") + " left"
        : r.name + " at column " + r.at[0] + ", row " + r.at[1] + ", facing " + ({ N: "north", E: "east", S: "south", W: "west" }[r.facing] || r.facing) +
          ", " + r.damage + " damage, " + r.lives + (r.lives === 1 ? " life" : " lives") + ", " + r.flags + " flags" + (r.powered_down ? ", powered down" : "")).join("; ") + ".";
  }

  // The robots on the board now: the seats table shows their damage, lives and flags, so
  // that it never tells what the board has not played yet.
  let onBoard = null;

  function drawRobots(frame, animate) {
    onBoard = frame.robots;
    if (board) board.show(frame, { animate: !!animate });
    describeBoard(frame);
    if (state) seatsTable(state);
  }

  // A stage of the turn comes as its frames (each card, each step in which something
  // happened); they are played one after the other, so every page shows the turn as it went.
  // The state that arrives meanwhile waits for the last one.
  function enqueue(stage) {
    if (stage.seq <= seen) return;
    seen = stage.seq;
    stage.frames.forEach((frame, i) => queue.push({ stage, frame, first: i === 0 }));
    playQueue();
  }

  const priority = (card) => Number(String(card).split("@")[1] || 0);

  // A frame that belongs after the stages sent before it (a reload's notice and redrawn
  // board): it waits in the queue while the board plays them.
  function after(action) {
    if (playing || queue.length > 0) queue.push({ action });
    else action();
  }

  function playQueue() {
    if (playing) return;
    let item = queue.shift();
    while (item && item.action) {
      item.action();
      item = queue.shift();
    }
    if (!item) {
      skipping = false;
      document.body.dataset.animating = "no";
      playingTurn = null;
      if (held) {
        const s = held;
        held = null;
        apply(s);
      }
      if (state) drawRobots(state.frame);
      showPhase();
      return;
    }
    const { stage, frame } = item;
    playing = true;
    playingTurn = stage.turn;
    playedSeq = stage.seq;
    showPhase();
    document.body.dataset.animating = "yes";
    // A later turn already waiting (this page was away or slow): it catches up without
    // animating.
    const behind = skipping || queue.some((q) => q.stage && q.stage.turn > stage.turn);
    drawRobots(frame, !behind);
    played.push({ id: frame.id, animated: !behind, skipped: skipping });
    const step = frame.label.split(" · ").slice(1).join(" · ");
    $("stage-label").textContent = stage.label + (step ? " · " + step : "");
    if (item.first) logHeading(stage.label);
    // The register's cards, face up in the order they are played.
    $("revealed").innerHTML = stage.revealed.slice().sort((a, b) => priority(b.card) - priority(a.card)).map((r) =>
      '<span class="played' + (r.robot === frame.acting ? " acting" : "") + '" title="' + text(r.robot) + '">' +
      text(r.robot) + " " + cardHtml(r.card) + "</span>").join(" ");
    logFrame(frame, step, item.first && stage.frames.length === 1);
    const pause = behind ? 0 : frame.acting ? 450 : 300;
    board.settled().then(() => setTimeout(() => { playing = false; playQueue(); }, pause));
  }

  // The turn log ("What happened"): a stage's heading, then each frame's step and events.
  function logHeading(label) {
    $("events").insertAdjacentHTML("beforeend", '<li class="heading">' + text(label) + "</li>");
  }

  function logFrame(frame, step, alone) {
    const events = $("events");
    // A card's frame is headed by the card; its `card` event would say it again.
    const said = frame.events.filter((e) => !(e.what === "card" && e.robot === frame.acting));
    let items = step ? '<li class="step">' + text(step) + "</li>" : "";
    items += said.map((e) => '<li data-what="' + text(e.what) + '">' + text(e.text) + "</li>").join("");
    if (alone && said.length === 0) items += '<li class="quiet">(nothing happened)</li>';
    events.insertAdjacentHTML("beforeend", items);
    events.scrollTop = events.scrollHeight;
  }

  // The log the server keeps: the stages of the game so far, as every page was told them,
  // sent to a page that (re)connects. Those this page has not seen are written at once.
  function log(frame) {
    for (const stage of frame.stages) {
      if (stage.seq <= seen) continue;
      seen = stage.seq;
      playedSeq = stage.seq;
      logHeading(stage.label);
      stage.steps.forEach((s) => logFrame(s, s.step, stage.steps.length === 1));
    }
  }

  // --- the table ---------------------------------------------------------------------------
  function pips(damage) {
    let out = "";
    for (let i = 0; i < 10; i++) out += i < damage ? "■" : '<span class="empty">□</span>';
    return '<span class="pips" title="' + damage + ' damage">' + out + "</span>";
  }

  // An option card by its title; its text opens on a click, a tap or Enter (and shows on
  // hover).
  function optionHtml(o, seat) {
    const title = o.title + (o.uses_left == null ? "" : " (" + o.uses_left + " left)");
    return '<details class="option" data-option="' + text(seat + "/" + o.name) + '"><summary title="' + text(o.text) + '">' + text(title) +
      "</summary><p>" + text(o.text) + "</p></details>";
  }

  // A locked register's card, readable: "3 ⇈ Move 2 (730)".
  function lockedHtml(card, i) {
    const [kind, priority] = card.split("@");
    return '<span class="locked-card" title="register ' + (i + 1) + " is locked: " + text(cardWords(card)) + '">' +
      "R" + (i + 1) + " " + (GLYPHS[kind] || "") + " " + text(NAMES[kind] || kind) + (priority ? " (" + text(priority) + ")" : "") + "</span>";
  }

  function seatsTable(s) {
    const robots = onBoard || s.frame.robots;
    // The option texts a player opened stay open when the table is drawn again.
    const open = new Set(Array.from($("seats").querySelectorAll("details.option[open]")).map((d) => d.dataset.option));
    $("seats").tBodies[0].innerHTML = s.seats.map((seat, i) => {
      const r = robots.find((robot) => robot.name === seat.name) || s.frame.robots[i];
      const locked = seat.locked.map((c, j) => c ? lockedHtml(c, j) : "").filter(Boolean).join(" ");
      const cards = seat.option_cards || [];
      const player = seat.driver === "bot" ? "bot" : seat.connected ? "person" : '<span class="away">away</span>';
      return '<tr data-robot="' + text(seat.name) + '" data-status="' + seat.status + '">' +
        '<td><span class="swatch" style="background:' + seat.color + '"></span>' + text(seat.name) +
        (seat.player ? ' · <span class="player-name">' + text(seat.player) + "</span>" : "") +
        (s.seat === seat.name ? ' <span class="you">you</span>' : "") +
        (cards.length ? '<div class="options">' + cards.map((o) => optionHtml(o, seat.name)).join("") + "</div>" : "") +
        "</td>" +
        '<td><span class="status-' + seat.status + '">' + seat.status + '</span><div class="player">' + player + "</div></td>" +
        "<td>" + pips(r.damage) + "</td><td>" + r.lives + "</td><td>" + r.flags + "</td>" +
        "<td>" + locked + "</td></tr>";
    }).join("");
    for (const d of $("seats").querySelectorAll("details.option")) if (open.has(d.dataset.option)) d.open = true;
  }

  // The register picked by a click (or Enter) to move its card or to receive the next card
  // clicked in the hand: its number, or null.
  let picked = null;

  // Why a click on the desk did nothing, or what it did: said in the line under the hand
  // (and to screen readers), never silently.
  function say(message, level) {
    const hint = $("desk-hint");
    hint.textContent = message;
    hint.className = level || "info";
  }

  // The program's preview (the engine's rehearsal, `game::preview`): drawn on the board while
  // programming, and said in words under the registers.
  function preview(d) {
    const poses = d ? d.preview : [];
    if (board) board.preview(poses);
    $("preview-note").hidden = poses.length === 0;
    $("preview-note").textContent = poses.length === 0 ? "" : "Preview (dashed on the board; the others standing still, chance drawn afresh): " +
      poses.map((p) => "after register " + p.register + (p.destroyed ? " destroyed" : " at [" + p.at.join(", ") + "] facing " + p.facing)).join("; ") + ".";
  }

  function desk(s) {
    const d = s.desk;
    $("desk").hidden = !d;
    deskNote(s);
    preview(s.phase === "programming" ? d : null);
    if (!d) { picked = null; return; }
    if (picked !== null && (d.ready || d.locked[picked - 1])) picked = null;
    const used = new Set(d.registers.filter(Boolean));
    $("registers").innerHTML = d.registers.map((c, i) => {
      const n = i + 1;
      const label = "Register " + n + (d.locked[i] ? ", locked by damage" : "") + ": " + (c ? cardWords(c) : "empty");
      return '<div class="slot' + (d.locked[i] ? " locked" : "") + (picked === n ? " picked" : "") + '" data-register="' + n + '"' +
        ' role="button" tabindex="0" aria-label="' + text(label) + '"' + (picked === n ? ' aria-pressed="true"' : "") +
        (d.locked[i] ? ' title="locked by damage: its card stays this turn"' : "") + '><span class="number" aria-hidden="true">' + n + (d.locked[i] ? " locked" : "") + "</span>" +
        (c ? cardHtml(c) : "") + "</div>";
    }).join("");
    $("hand").innerHTML = d.hand.map((c) =>
      cardHtml(c, ' role="button" tabindex="0"' + (used.has(c) ? ' aria-disabled="true"' : ""))).join("");
    for (const el of $("hand").children) if (used.has(el.dataset.card)) el.classList.add("used");
    $("power-down").checked = d.power_down;
    $("power-down").disabled = d.ready;
    $("power-down-label").hidden = !d.can_power_down;
    // Ready only for a complete program; once ready, Un-Ready until the last seat is.
    $("ready").hidden = d.ready;
    $("ready").disabled = !d.complete;
    $("ready").title = d.complete ? "" : "fill every open register first";
    $("unready").hidden = !d.ready;
    // Mid-turn (a question about the program): shown, not changed.
    $("desk-actions").hidden = s.phase === "deciding";
    document.body.dataset.ready = d.ready ? "yes" : "no";
    document.body.dataset.complete = d.complete ? "yes" : "no";
  }

  // Where the desk would be, when there is none: why this seat has nothing to program.
  function deskNote(s) {
    const me = s.role === "seat" ? s.frame.robots.find((r) => r.name === s.seat) : null;
    let note = "";
    if (me && !s.desk) {
      const seat = s.seats.find((x) => x.name === s.seat);
      if (seat && seat.status === "out") note = "Your robot is out of the game: it has no lives left.";
      else if (me.powered_down) note = "Your robot is powered down this turn: it plays no cards, does not move or fire, and its damage is repaired. You program again next turn.";
      else if (me.destroyed) note = "Your robot is destroyed: it re-enters at the end of the turn.";
      else if (s.phase === "programming") note = "Your robot does not program this turn.";
    }
    $("desk-note").hidden = !note;
    $("desk-note").textContent = note;
    document.body.dataset.deskNote = note ? "yes" : "no";
  }

  function host(s) {
    $("host").hidden = s.role !== "host";
    if (s.role !== "host") return;
    $("start").hidden = s.phase !== "waiting";
    const error = [s.paused, s.reload_error].filter(Boolean).join("\n\n");
    $("host-error").hidden = !error;
    $("host-error").textContent = error;
    for (const [id, key] of [["bot-after", "bot_after"], ["choice-timeout", "choice_timeout"], ["timer-setting", "timer"]]) {
      if (document.activeElement !== $(id)) $(id).value = s.settings[key];
    }
    debugPanel(s);
  }

  // The debug panel (debug.js), fetched by the host's page only, the first time it is needed.
  let debugLoading = false;
  function debugPanel(s) {
    if (window.RallyDebug) return window.RallyDebug.update(s, send);
    if (debugLoading) return;
    debugLoading = true;
    const script = document.createElement("script");
    script.src = "/assets/debug.js";
    script.onload = () => { if (state) window.RallyDebug.update(state, send); };
    document.body.appendChild(script);
  }

  const PHASES = {
    waiting: "waiting for the players to take their seats", programming: "programming",
    resolving: "resolving", deciding: "a player is deciding", paused: "paused", stopped: "stopped", over: "game over",
  };

  function apply(s) {
    state = s;
    applied.push({ phase: s.phase, question: s.question ? s.question.id : null, outcome: s.outcome || null, animating: playing || queue.length > 0 });
    document.body.dataset.phase = s.phase;
    document.body.dataset.turn = String(s.turn);
    document.body.dataset.rules = String(s.rules);
    $("rules").textContent = "rules v" + s.rules;
    $("who").textContent = s.role === "seat" ? "you play " + s.seat : s.role === "host" ? "host" : "spectator";
    // The same seat open in more than one window (or by two people): moves from either count.
    $("windows").hidden = !(s.windows > 1);
    $("windows").textContent = s.windows > 1 ? "This seat is open in " + s.windows + " windows: a card placed in one is placed in all. Close the others, or check that nobody else has your link." : "";
    $("turn").textContent = s.phase === "waiting" ? "" : "Turn " + s.turn + " ·";
    showPhase();
    timerBase = s.timer_ms == null ? null : [s.timer_ms, Date.now()];
    seatsTable(s);
    desk(s);
    host(s);
    question(s.question);
    $("outcome").hidden = !s.outcome;
    if (s.outcome) {
      $("outcome").innerHTML = text(s.outcome) + (s.replay ? ' <a href="' + text(s.replay) + '">Watch the replay</a>' : "");
    }
    if (!playing && queue.length === 0) drawRobots(s.frame);
    if (lobby()) lobby().state(s);
  }

  // The phase, and whether the board is still playing an earlier turn.
  function showPhase() {
    if (!state) return;
    const s = state;
    let phase = s.paused && s.role !== "host"
      ? (s.phase === "stopped" ? s.paused : "paused: " + s.paused)
      : PHASES[s.phase] || s.phase;
    if (playingTurn !== null) phase = "the board plays turn " + playingTurn;
    $("phase").textContent = phase;
  }

  // Card codes in a script's sentence (`left@90`) read as the cards' names.
  const inWords = (sentence) => String(sentence).replace(/\b([a-z0-9]+)@(\d+)\b/g, (code, kind) =>
    kind in NAMES ? cardWords(code).replace(", priority ", " (") + ")" : code);
  const FACINGS = ["N", "E", "S", "W"];
  const ARROWS = { N: "↑", E: "→", S: "↓", W: "←" };

  // One choice as its button shows it: a card as a card, a facing with its arrow, a
  // register with the card in it (the desk is in view), anything else in words.
  function choiceHtml(q, c) {
    if (isCard(c)) return cardHtml(c);
    if (q.key === "reenter_facing" && c in ARROWS) return ARROWS[c] + " " + text(c);
    const d = state && state.desk;
    if (d && /^[1-5]$/.test(c) && d.registers[Number(c) - 1]) {
      return '<span class="register-choice">register ' + text(c) + "</span>" + cardHtml(d.registers[Number(c) - 1]);
    }
    return text(c);
  }

  function answer(q, choice, quiet) {
    const message = { type: "answer", question: q.id, choice };
    if (quiet) message.quiet = quiet;
    send(message);
    $("question").close();
    if (board) board.mark(null);
  }

  function question(q) {
    const dialog = $("question");
    if (!q) {
      if (dialog.open) dialog.close();
      if (questionShown !== null && board) board.mark(null);
      questionShown = null;
      questionBase = null;
      return;
    }
    if (questionShown === q.id) return;
    questionShown = q.id;
    // The board has played up to the question: the player's time starts now, here and on
    // the server.
    questionBase = [q.timeout_ms, Date.now()];
    send({ type: "shown", question: q.id });
    $("question-text").textContent = q.robot + ": " + inWords(q.text);
    $("question-default").textContent = isCard(q.default) ? cardWords(q.default) : q.default;
    $("question-cards").innerHTML = (q.cards || []).map((c) => cardHtml(c)).join("");
    // Facings always in the order N E S W, whatever the engine's order (its first is the
    // default, the facing the robot has).
    const choices = q.key === "reenter_facing" ? FACINGS.filter((f) => q.choices.includes(f)) : q.choices;
    $("question-choices").innerHTML = choices.map((c) =>
      '<button type="button" value="' + text(c) + '" data-choice="' + text(c) + '"' + (c === q.default ? ' class="default"' : "") +
      ' aria-label="' + text(isCard(c) ? cardWords(c) : c) + (c === q.default ? " (the default)" : "") + '">' +
      choiceHtml(q, c) + "</button>").join("");
    for (const b of $("question-choices").children) b.onclick = () => answer(q, b.dataset.choice);
    $("question-quiet").hidden = !q.optional;
    $("not-this-turn").onclick = () => answer(q, q.default, "turn");
    $("not-this-game").onclick = () => answer(q, q.default, "game");
    // Re-entry: the square on the board, with an arrow to click for each facing.
    if (board) board.mark(q.square || null, q.key === "reenter_facing" ? choices : [], (f) => answer(q, f));
    if (!dialog.open) dialog.show();
    const first = $("question-choices").querySelector("button.default") || $("question-choices").querySelector("button");
    if (first) first.focus();
  }

  setInterval(() => {
    const left = (base) => Math.max(0, Math.ceil((base[0] - (Date.now() - base[1])) / 1000));
    $("timer").textContent = timerBase ? "· " + left(timerBase) + " s left" : "";
    if (questionBase) $("question-left").textContent = left(questionBase);
  }, 250);

  // --- programming: clicks, keys and dragging -------------------------------------------------
  // A click on a hand card fills the picked register, else the first empty one; a click on a
  // register picks it (a second click on it takes its card back, a click on another moves
  // the card there). Enter and Space do what a click does. Dragging (mouse, pen or finger)
  // drops a card on a register. Every refused click says why.
  function emptyRegister() {
    const d = state.desk;
    const i = d.registers.findIndex((c, j) => !c && !d.locked[j]);
    return i < 0 ? null : i + 1;
  }

  function refusedWhenReady() {
    if (!state || !state.desk) return "there is nothing to program now";
    if (state.phase !== "programming") return "the turn is being played: your program can no longer change";
    if (state.desk.ready) return "you are ready: press Un-Ready to change your program";
    return null;
  }

  // The card `card` from the hand into register `register` (one with a card in it gives it
  // back to the hand first).
  function placeCard(register, card) {
    const d = state.desk;
    if (d.registers[register - 1]) send({ type: "clear", register });
    send({ type: "place", register, card });
    // The next click looks at the registers as they will be (the server's state follows).
    d.registers[register - 1] = card;
    picked = null;
    say(cardWords(card) + " in register " + register, "info");
  }

  function handCard(el) {
    const why = refusedWhenReady();
    if (why) return say(why, "refused");
    const d = state.desk;
    const card = el.dataset.card;
    const at = d.registers.indexOf(card);
    if (at >= 0) return say(cardWords(card) + " is in register " + (at + 1) + " already: click the register to move it or take it back", "refused");
    const register = picked || emptyRegister();
    if (!register) return say("your registers are full: click a register to take its card back (or drag this card onto one)", "refused");
    placeCard(register, card);
  }

  function registerSlot(el) {
    const why = refusedWhenReady();
    if (why) return say(why, "refused");
    const d = state.desk;
    const n = Number(el.dataset.register);
    if (d.locked[n - 1]) return say("register " + n + " is locked by damage: its card stays this turn", "refused");
    if (picked === n) {
      picked = null;
      if (d.registers[n - 1]) {
        send({ type: "clear", register: n });
        say(cardWords(d.registers[n - 1]) + " back to your hand", "info");
      } else {
        say("register " + n + " is no longer picked", "info");
      }
    } else if (picked !== null && d.registers[picked - 1]) {
      send({ type: "move", from: picked, to: n });
      say(cardWords(d.registers[picked - 1]) + " moved to register " + n, "info");
      picked = null;
    } else {
      picked = n;
      say(d.registers[n - 1]
        ? "register " + n + " picked: click another register to move its card there, this one again to take it back, or a card in your hand to put in its place"
        : "register " + n + " picked: click a card in your hand to put it here", "info");
    }
    desk(state);
    const again = $("registers").querySelector('.slot[data-register="' + n + '"]');
    if (again && document.activeElement === document.body) again.focus();
  }

  function activate(target) {
    const card = target.closest("#hand .card");
    if (card) return handCard(card);
    const slot = target.closest("#registers .slot");
    if (slot) return registerSlot(slot);
  }

  // A drag: pressing on a card and moving it more than a few pixels. The card follows the
  // pointer; letting go over a register places it there (or moves it, from a register).
  let drag = null;
  const SLOP = 6;
  document.addEventListener("pointerdown", (e) => {
    const card = e.target.closest("#hand .card:not(.used), #registers .slot:not(.locked) .card");
    if (!card || e.button > 0 || refusedWhenReady()) return;
    const slot = card.closest(".slot");
    drag = { card, from: slot ? Number(slot.dataset.register) : null, x: e.clientX, y: e.clientY, ghost: null, id: e.pointerId };
  });
  document.addEventListener("pointermove", (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    if (!drag.ghost) {
      if (Math.hypot(e.clientX - drag.x, e.clientY - drag.y) < SLOP) return;
      drag.ghost = drag.card.cloneNode(true);
      drag.ghost.classList.add("drag-ghost");
      drag.ghost.removeAttribute("tabindex");
      document.body.appendChild(drag.ghost);
      drag.card.classList.add("dragging");
    }
    e.preventDefault();
    drag.ghost.style.left = (e.clientX - 28) + "px";
    drag.ghost.style.top = (e.clientY - 35) + "px";
    for (const s of $("registers").children) s.classList.remove("over");
    const over = slotAt(e.clientX, e.clientY);
    if (over) over.classList.add("over");
  });
  function slotAt(x, y) {
    const hit = document.elementsFromPoint(x, y).find((el) => el.closest && el.closest("#registers .slot"));
    return hit ? hit.closest("#registers .slot") : null;
  }
  function endDrag(e, dropped) {
    if (!drag || e.pointerId !== drag.id) return;
    const d = drag;
    drag = null;
    if (!d.ghost) return; // a click: the click handler has it
    d.ghost.remove();
    d.card.classList.remove("dragging");
    for (const s of $("registers").children) s.classList.remove("over");
    // The click that follows a drag is not a click.
    const swallow = (c) => { c.stopPropagation(); c.preventDefault(); };
    document.addEventListener("click", swallow, { capture: true, once: true });
    setTimeout(() => document.removeEventListener("click", swallow, { capture: true }), 0);
    const slot = dropped ? slotAt(e.clientX, e.clientY) : null;
    if (!slot) return;
    const n = Number(slot.dataset.register);
    if (state.desk.locked[n - 1]) return say("register " + n + " is locked by damage: its card stays this turn", "refused");
    if (d.from === null) placeCard(n, d.card.dataset.card);
    else if (d.from !== n) {
      send({ type: "move", from: d.from, to: n });
      say(cardWords(d.card.dataset.card) + " moved to register " + n, "info");
    }
  }
  document.addEventListener("pointerup", (e) => endDrag(e, true));
  document.addEventListener("pointercancel", (e) => endDrag(e, false));

  for (const id of ["hand", "registers"]) {
    $(id).addEventListener("click", (e) => activate(e.target));
    $(id).addEventListener("keydown", (e) => {
      if (e.key !== "Enter" && e.key !== " ") return;
      e.preventDefault();
      activate(e.target);
    });
  }
  $("ready").onclick = () => send({ type: "ready" });
  $("unready").onclick = () => { send({ type: "unready" }); say("Ready taken back: change your program, then press Ready again", "info"); };
  $("power-down").onchange = (e) => send({ type: "power_down", on: e.target.checked });
  $("start").onclick = () => send({ type: "start" });
  $("settings").onsubmit = (e) => {
    e.preventDefault();
    send({ type: "settings", bot_after: Number($("bot-after").value), choice_timeout: Number($("choice-timeout").value), timer: Number($("timer-setting").value) });
  };

  // --- the connection ------------------------------------------------------------------------
  function receive(frame) {
    switch (frame.type) {
      case "welcome":
        $("title").textContent = frame.title;
        document.title = frame.title + " — rally table";
        mountBoard(frame.board);
        // Another run of the table (resumed from its save, a rematch): its log replaces
        // this page's.
        if (frame.run !== run) { run = frame.run; seen = 0; $("events").textContent = ""; }
        break;
      case "board": after(() => { mountBoard(frame.board); if (state) drawRobots(state.frame); }); break;
      // A state waits for the stages sent before it to be played.
      case "state": if (playing || queue.length > 0) held = frame; else apply(frame); break;
      case "stage": enqueue(frame); break;
      case "log": log(frame); break;
      case "notice":
        if (!frame.rules) { notice(frame.text, frame.level); break; }
        after(() => {
          reloads.push({ rules: frame.rules, after: frame.after, played: playedSeq });
          notice(frame.text, frame.level);
          document.body.dataset.rules = String(frame.rules);
          $("rules").textContent = "rules v" + frame.rules;
        });
        break;
      // A refused move of this page's own is said under the desk, where the player looks.
      case "error":
        if (state && state.desk && !$("desk").hidden) say(frame.message, "refused");
        else notice(frame.message, "error");
        break;
      default: if (lobby()) lobby().receive(frame);
    }
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const url = new URL(encodeURIComponent(table) + "/ws?token=" + encodeURIComponent(token), location.href);
    url.protocol = scheme;
    socket = new WebSocket(url.href);
    socket.onopen = () => { retry = 500; $("link").textContent = "connected"; $("link").classList.add("up"); };
    socket.onmessage = (e) => receive(JSON.parse(e.data));
    socket.onclose = (e) => {
      $("link").classList.remove("up");
      // Sent away by the host: this link no longer works.
      if (document.body.dataset.kicked === "yes") { $("link").textContent = "this link no longer works"; return; }
      $("link").textContent = "disconnected: reconnecting…" + (e.reason ? " (" + e.reason + ")" : "");
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 8000);
    };
  }

  // Another link of this table pasted into this tab: the page becomes that seat (or role).
  window.addEventListener("hashchange", () => {
    if (location.hash.slice(1) !== token) location.reload();
  });

  fetch(encodeURIComponent(table) + "/role?token=" + encodeURIComponent(token)).then(async (response) => {
    if (!response.ok) {
      document.body.dataset.phase = "refused";
      $("link").textContent = "refused";
      $("board-view").innerHTML = '<p class="notice error">' + text(await response.text()) + "</p>";
      return;
    }
    connect();
  }, () => { $("link").textContent = "the server does not answer"; });
})();
