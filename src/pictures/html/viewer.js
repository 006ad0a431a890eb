/*
 * The replay viewer around RallyBoard (board.js): step buttons, slider, keys, play/pause,
 * deep links to a frame (#t3r2s4), the event list linking to frames, and the board fitted to
 * the window. The frames are the JSON in #replay-data (docs/pictures.md).
 */
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const frames = data.frames;
  const $ = (id) => document.getElementById(id);
  const svg = document.querySelector("#board-view svg");
  const board = RallyBoard.mount(svg);
  const slider = $("slider");
  slider.max = String(frames.length - 1);
  const mark = RallyBoard.events($("events"), frames);
  let current = -1;
  let timer = null;

  /** The frame a link names: its id exactly (`t3r2s4`), else the first frame whose id
   *  begins with it and goes on with a letter (`t3r2` is that register's first frame). */
  function frameOf(hash) {
    let id;
    try {
      id = decodeURIComponent(hash.replace(/^#/, ""));
    } catch (e) {
      return null; // a mangled link opens the first frame
    }
    if (!id) return null;
    const exact = frames.findIndex((f) => f.id === id);
    if (exact >= 0) return exact;
    const within = frames.findIndex((f) => f.id.startsWith(id) && /^[a-z]/.test(f.id.slice(id.length)));
    return within >= 0 ? within : null;
  }

  function show(i, animate) {
    i = Math.max(0, Math.min(frames.length - 1, i));
    const frame = frames[i];
    const forward = i === current + 1;
    current = i;
    board.show(frame, { animate: !!animate && forward });
    slider.value = String(i);
    $("frame-label").textContent = frame.label;
    $("frame-count").textContent = "(" + (i + 1) + " of " + frames.length + ")";
    $("frame-link").href = "#" + frame.id;
    RallyBoard.cards($("cards"), frame);
    RallyBoard.robots($("robots-table").tBodies[0], frame, { flags: data.flags });
    mark(i);
    $("winner").textContent = frame.winner ? "winner: robot " + frame.winner : "";
    document.body.dataset.frame = String(i);
    if (location.hash !== "#" + frame.id) history.replaceState(null, "", "#" + frame.id);
  }

  function pause() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    $("play").textContent = "▶";
  }

  // Playing waits for each frame's animation before the next.
  function play() {
    if (current >= frames.length - 1) show(0);
    $("play").textContent = "||";
    const step = () => {
      if (current >= frames.length - 1) return pause();
      show(current + 1, true);
      board.settled().then(() => { if (timer !== null) timer = setTimeout(step, 500); });
    };
    timer = setTimeout(step, 300);
  }

  // The board as large as the window allows beside (or, when narrow, above) the side panel.
  function fit() {
    const w = Number(svg.getAttribute("width")), h = Number(svg.getAttribute("height"));
    const narrow = window.innerWidth < 900;
    const room = $("board-view").getBoundingClientRect();
    const maxW = narrow ? window.innerWidth - 32 : window.innerWidth - 32 - 16 - 380;
    const maxH = narrow ? Infinity : window.innerHeight - room.top - window.scrollY - 16;
    const scale = Math.min(maxW / w, maxH / h, 1.25);
    svg.style.width = Math.floor(w * scale) + "px";
    svg.style.height = Math.floor(h * scale) + "px";
  }

  $("first").onclick = () => { pause(); show(0); };
  $("prev").onclick = () => { pause(); show(current - 1); };
  $("next").onclick = () => { pause(); show(current + 1, true); };
  $("last").onclick = () => { pause(); show(frames.length - 1); };
  $("play").onclick = () => (timer === null ? play() : pause());
  slider.oninput = () => { pause(); show(Number(slider.value)); };
  document.addEventListener("keydown", (e) => {
    if (e.target === slider) return;
    const keys = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last", " ": "play" };
    if (keys[e.key]) { e.preventDefault(); $(keys[e.key]).click(); }
  });
  window.addEventListener("hashchange", () => {
    const i = frameOf(location.hash);
    if (i !== null && i !== current) { pause(); show(i, true); }
  });
  // Pointing at an event points at its robot on the board.
  $("events").addEventListener("mouseover", (e) => {
    const li = e.target.closest("li[data-robot]");
    board.highlight(li ? li.dataset.robot : null);
  });
  $("events").addEventListener("mouseleave", () => board.highlight(null));
  window.addEventListener("resize", fit);

  fit();
  show(frameOf(location.hash) ?? 0);
  // For scripts driving the page (the browser test): the board and the frame shown.
  window.rallyViewer = { board, frames, show, current: () => current };
})();
