// The rally playtest table in the browser (table.html). The link's #token says who this page
// is (a seat, a spectator or the host); the server sends this page only what that role may
// see. Frames: "welcome" (the board), "state" (the table now, for this page), "stage" (what
// one stage of the turn did: played one after the other), "notice", "error", "board".
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const table = location.pathname.split("/")[2];
  const token = location.hash.slice(1);
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
  window.rallyTable = { played, applied };
  // The last "state" that came while the board still played: the phase, the outcome, the
  // next turn's deal and a question wait for the board (they belong after the stages sent
  // before them).
  let held = null;
  // The highest stage number (`seq`) this page has shown or queued: the log a (re)connected
  // page gets and a stage sent again are not shown twice.
  let seen = 0;
  let run = null;            // the table's run (a resumed table numbers its stages afresh)
  let retry = 500;
  let questionShown = null;
  let timerBase = null;      // [ms left, when received]
  let questionBase = null;

  const GLYPHS = { move1: "↑", move2: "⇈", move3: "⤊", back: "↓", left: "↶", right: "↷", uturn: "⟲" };
  const NAMES = { move1: "Move 1", move2: "Move 2", move3: "Move 3", back: "Back up", left: "Turn left", right: "Turn right", uturn: "U-turn" };

  function cardHtml(card, extra) {
    const [kind, priority] = card.split("@");
    return '<div class="card" data-card="' + text(card) + '"' + (extra || "") + ">" +
      '<span class="priority">' + text(priority || "") + "</span>" +
      '<span class="glyph">' + (GLYPHS[kind] || "?") + "</span>" +
      '<span class="name">' + text(NAMES[kind] || kind) + "</span></div>";
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
  function mountBoard(svg) {
    $("board-view").innerHTML = svg;
    board = RallyBoard.mount($("board-view").querySelector("svg"), { duration: 240 });
  }

  // The robots on the board now: the seats table shows their damage, lives and flags, so
  // that it never tells what the board has not played yet.
  let onBoard = null;

  function drawRobots(frame, animate) {
    onBoard = frame.robots;
    if (board) board.show(frame, { animate: !!animate });
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

  function playQueue() {
    if (playing) return;
    const item = queue.shift();
    if (!item) {
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
    showPhase();
    document.body.dataset.animating = "yes";
    // A later turn already waiting (this page was away or slow): it catches up without
    // animating.
    const behind = (queue.length > 0 && queue[queue.length - 1].stage.turn > stage.turn);
    drawRobots(frame, !behind);
    played.push({ id: frame.id, animated: !behind });
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

  function seatsTable(s) {
    const robots = onBoard || s.frame.robots;
    $("seats").tBodies[0].innerHTML = s.seats.map((seat, i) => {
      const r = robots.find((robot) => robot.name === seat.name) || s.frame.robots[i];
      const locked = seat.locked.map((c, j) => c ? (j + 1) + ":" + c : "").filter(Boolean).join(" ");
      const player = seat.driver === "bot" ? "bot" : seat.connected ? "person" : '<span class="away">away</span>';
      return '<tr data-robot="' + text(seat.name) + '" data-status="' + seat.status + '">' +
        '<td><span class="swatch" style="background:' + seat.color + '"></span>' + text(seat.name) +
        (s.seat === seat.name ? " (you)" : "") +
        (seat.options.length ? '<div class="options" title="option cards">' + text(seat.options.join(", ")) + "</div>" : "") +
        "</td>" +
        '<td><span class="status-' + seat.status + '">' + seat.status + '</span><div class="player">' + player + "</div></td>" +
        "<td>" + pips(r.damage) + "</td><td>" + r.lives + "</td><td>" + r.flags + "</td>" +
        "<td>" + text(locked) + "</td></tr>";
    }).join("");
  }

  function desk(s) {
    const d = s.desk;
    $("desk").hidden = !d;
    if (!d) return;
    const used = new Set(d.registers.filter(Boolean));
    $("registers").innerHTML = d.registers.map((c, i) =>
      '<div class="slot' + (d.locked[i] ? " locked" : "") + '" data-register="' + (i + 1) + '"' +
      (d.locked[i] ? ' title="locked by damage"' : "") + '><span class="number">' + (i + 1) + (d.locked[i] ? " locked" : "") + "</span>" +
      (c ? cardHtml(c) : "") + "</div>").join("");
    $("hand").innerHTML = d.hand.map((c) =>
      cardHtml(c, used.has(c) ? ' class="card used"' : ' draggable="true"')).join("");
    // cardHtml's own class attribute comes first; keep "used" cards marked.
    for (const el of $("hand").children) if (used.has(el.dataset.card)) el.classList.add("used");
    $("power-down").checked = d.power_down;
    $("power-down").disabled = d.ready;
    $("power-down-label").hidden = !d.can_power_down;
    $("ready").disabled = d.ready;
    $("ready").textContent = d.ready ? "Ready ✓ waiting for the others" : "Ready";
    document.body.dataset.ready = d.ready ? "yes" : "no";
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
    resolving: "resolving", deciding: "a player is deciding", paused: "paused", over: "game over",
  };

  function apply(s) {
    state = s;
    applied.push({ phase: s.phase, question: s.question ? s.question.id : null, outcome: s.outcome || null, animating: playing || queue.length > 0 });
    document.body.dataset.phase = s.phase;
    document.body.dataset.turn = String(s.turn);
    document.body.dataset.rules = String(s.rules);
    $("rules").textContent = "rules v" + s.rules;
    $("who").textContent = s.role === "seat" ? "you play " + s.seat : s.role === "host" ? "host" : "spectator";
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
  }

  // The phase, and whether the board is still playing an earlier turn.
  function showPhase() {
    if (!state) return;
    const s = state;
    let phase = s.paused && s.role !== "host" ? "paused: " + s.paused : PHASES[s.phase] || s.phase;
    if (playingTurn !== null) phase = "the board plays turn " + playingTurn;
    $("phase").textContent = phase;
  }

  function question(q) {
    const dialog = $("question");
    if (!q) {
      if (dialog.open) dialog.close();
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
    $("question-text").textContent = q.robot + ": " + q.text;
    $("question-default").textContent = q.default;
    // A choice that is a card shows as one; the default is marked.
    $("question-choices").innerHTML = q.choices.map((c) =>
      '<button value="' + text(c) + '" data-choice="' + text(c) + '"' + (c === q.default ? ' class="default"' : "") + ">" +
      (isCard(c) ? cardHtml(c) : text(c)) + "</button>").join("");
    for (const b of $("question-choices").children) {
      b.onclick = (e) => { e.preventDefault(); send({ type: "answer", question: q.id, choice: b.dataset.choice }); dialog.close(); };
    }
    if (!dialog.open) dialog.showModal();
  }

  setInterval(() => {
    const left = (base) => Math.max(0, Math.ceil((base[0] - (Date.now() - base[1])) / 1000));
    $("timer").textContent = timerBase ? "· " + left(timerBase) + " s left" : "";
    if (questionBase) $("question-left").textContent = left(questionBase);
  }, 250);

  // --- programming: clicks and drag-and-drop -------------------------------------------------
  function firstEmpty() {
    const d = state && state.desk;
    if (!d) return null;
    const i = d.registers.findIndex((c, j) => !c && !d.locked[j]);
    return i < 0 ? null : i + 1;
  }

  $("hand").addEventListener("click", (e) => {
    const card = e.target.closest(".card");
    if (!card || card.classList.contains("used")) return;
    const register = firstEmpty();
    if (register) send({ type: "place", register, card: card.dataset.card });
  });
  $("hand").addEventListener("dragstart", (e) => {
    const card = e.target.closest(".card");
    if (card) e.dataTransfer.setData("text/plain", card.dataset.card);
  });
  $("registers").addEventListener("click", (e) => {
    const slot = e.target.closest(".slot");
    if (slot && !slot.classList.contains("locked") && slot.querySelector(".card")) {
      send({ type: "clear", register: Number(slot.dataset.register) });
    }
  });
  $("registers").addEventListener("dragover", (e) => {
    const slot = e.target.closest(".slot");
    if (slot && !slot.classList.contains("locked")) { e.preventDefault(); slot.classList.add("over"); }
  });
  $("registers").addEventListener("dragleave", (e) => {
    const slot = e.target.closest(".slot");
    if (slot) slot.classList.remove("over");
  });
  $("registers").addEventListener("drop", (e) => {
    const slot = e.target.closest(".slot");
    if (!slot) return;
    e.preventDefault();
    slot.classList.remove("over");
    const register = Number(slot.dataset.register);
    const card = e.dataTransfer.getData("text/plain");
    if (slot.querySelector(".card")) send({ type: "clear", register });
    send({ type: "place", register, card });
  });
  $("ready").onclick = () => send({ type: "ready" });
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
        if (frame.run !== run) { run = frame.run; seen = 0; }
        break;
      case "board": mountBoard(frame.board); if (state) drawRobots(state.frame); break;
      // A state waits for the stages sent before it to be played.
      case "state": if (playing || queue.length > 0) held = frame; else apply(frame); break;
      case "stage": enqueue(frame); break;
      case "log": log(frame); break;
      case "notice":
        notice(frame.text, frame.level);
        if (frame.rules) { document.body.dataset.rules = String(frame.rules); $("rules").textContent = "rules v" + frame.rules; }
        break;
      case "error": notice(frame.message, "error"); break;
    }
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(scheme + "//" + location.host + "/t/" + table + "/ws?token=" + encodeURIComponent(token));
    socket.onopen = () => { retry = 500; $("link").textContent = "connected"; $("link").classList.add("up"); };
    socket.onmessage = (e) => receive(JSON.parse(e.data));
    socket.onclose = (e) => {
      $("link").classList.remove("up");
      $("link").textContent = "disconnected: reconnecting…" + (e.reason ? " (" + e.reason + ")" : "");
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 8000);
    };
  }

  fetch("/t/" + table + "/role?token=" + encodeURIComponent(token)).then(async (response) => {
    if (!response.ok) {
      document.body.dataset.phase = "refused";
      $("link").textContent = "refused";
      $("board-view").innerHTML = '<p class="notice error">' + text(await response.text()) + "</p>";
      return;
    }
    connect();
  }, () => { $("link").textContent = "the server does not answer"; });
})();
