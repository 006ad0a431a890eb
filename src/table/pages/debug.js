// The host's debug panel at the table (docs/table.md, "The host's debug panel"). table.js
// loads this file on the host's page only, and calls RallyDebug.update with every state
// frame (whose `debug` part only the host's frames carry) and the function that sends a
// message. Every change is checked by the server: a refused one comes back as an error frame.
"use strict";
window.RallyDebug = (function () {
  const text = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  let send = () => {};
  let last = null;   // the last state frame
  const el = (id) => document.getElementById(id);

  const section = document.createElement("section");
  section.id = "debug";
  section.innerHTML =
    '<h2>Debug panel <small>changes the game between stages: pause first</small></h2>' +
    '<div class="debug-row"><button id="debug-pause"></button> <button id="debug-undo">Undo</button> <span id="debug-status"></span></div>' +
    '<form id="debug-robot" class="debug-row">' +
    '<label>robot <select id="debug-robot-name"></select></label>' +
    '<label>at <input id="debug-x" type="number" min="0"> <input id="debug-y" type="number" min="0"></label>' +
    '<label>facing <select id="debug-facing"><option>N</option><option>E</option><option>S</option><option>W</option></select></label>' +
    '<label>damage <input id="debug-damage" type="number" min="0" max="9"></label>' +
    '<label>lives <input id="debug-lives" type="number" min="0" max="99"></label>' +
    '<label>flags <input id="debug-flags" type="number" min="0"></label>' +
    '<label>archive <input id="debug-archive-x" type="number" min="0"> <input id="debug-archive-y" type="number" min="0"></label>' +
    '<button type="submit" id="debug-apply">Apply</button></form>' +
    '<form id="debug-option" class="debug-row"><label>option <select id="debug-option-name"></select></label>' +
    '<button type="submit" id="debug-give" value="give">Give</button> <button type="submit" id="debug-take" value="take">Take</button></form>' +
    '<form id="debug-card" class="debug-row"><label>register <select id="debug-register"><option>1</option><option>2</option><option>3</option><option>4</option><option>5</option></select></label>' +
    '<label>card <select id="debug-card-name"></select></label> <button type="submit" id="debug-set-card">Set</button>' +
    ' <span id="debug-program"></span></form>' +
    '<form id="debug-rewind" class="debug-row"><label>rewind to <select id="debug-rewind-to"></select></label>' +
    '<button type="submit" id="debug-rewind-go">Rewind and play again</button></form>' +
    '<ol id="debug-undo-list"></ol>';
  const host = document.getElementById("host");
  host.parentNode.insertBefore(section, host.nextSibling);

  const robots = () => (last ? last.frame.robots : []);
  const selected = () => el("debug-robot-name").value;
  const robotNamed = (name) => robots().find((r) => r.name === name);
  const debugRobot = (name) => (last ? last.debug.robots.find((r) => r.name === name) : null);

  // The robot's values into the form (when another robot is picked, or the state changed and
  // the host is not typing in it).
  function fill() {
    const r = robotNamed(selected());
    const d = debugRobot(selected());
    if (!r || !d) return;
    el("debug-x").value = r.at[0]; el("debug-y").value = r.at[1];
    el("debug-facing").value = r.facing;
    el("debug-damage").value = r.damage; el("debug-lives").value = r.lives; el("debug-flags").value = r.flags;
    el("debug-archive-x").value = d.archive[0]; el("debug-archive-y").value = d.archive[1];
    el("debug-program").textContent = "program: " + d.program.map((c, i) => (i + 1) + ":" + (c || "–")).join(" ");
  }

  // A select's choices: `values` sent, `labels` shown, `hints` on hover (each optional).
  function options(select, values, labels, hints) {
    const keep = select.value;
    select.innerHTML = values.map((v, i) => '<option value="' + text(v) + '"' + (hints && hints[i] ? ' title="' + text(hints[i]) + '"' : "") + ">" +
      text(labels ? labels[i] : v) + "</option>").join("");
    if (values.includes(keep)) select.value = keep;
  }

  function update(s, sender) {
    send = sender;
    if (!s.debug) return;
    last = s;
    const d = s.debug;
    section.dataset.paused = d.paused ? "yes" : "no";
    el("debug-pause").textContent = d.pausing ? "Resume" : "Pause";
    el("debug-status").textContent = d.paused ? "paused: change the game, then resume"
      : d.pausing ? "pausing at the end of this stage…" : "";
    el("debug-undo").disabled = d.undo.length === 0;
    for (const id of ["debug-apply", "debug-give", "debug-take", "debug-set-card", "debug-rewind-go"]) el(id).disabled = !d.paused;
    options(el("debug-robot-name"), d.robots.map((r) => r.name));
    // By title, with what the card does on hover (the name is what the message carries).
    options(el("debug-option-name"), d.options.map((o) => o.name), d.options.map((o) => o.title), d.options.map((o) => o.text));
    options(el("debug-card-name"), [""].concat(d.deck), ["(take the card out)"].concat(d.deck));
    const words = (t) => t.register === 0 ? "turn " + t.turn + ", before the deal" : "turn " + t.turn + ", register " + t.register;
    options(el("debug-rewind-to"), d.rewind.map((t) => t.turn + ":" + t.register), d.rewind.map(words));
    el("debug-undo-list").innerHTML = d.undo.map((u) => "<li>" + text(u) + "</li>").join("");
    if (!section.contains(document.activeElement)) fill();
  }

  el("debug-robot-name").onchange = fill;
  el("debug-pause").onclick = () => send({ type: last && last.debug.pausing ? "resume" : "pause" });
  el("debug-undo").onclick = () => send({ type: "undo" });
  el("debug-robot").onsubmit = (e) => {
    e.preventDefault();
    const r = robotNamed(selected());
    const d = debugRobot(selected());
    if (!r || !d) return;
    const number = (id) => Number(el(id).value);
    const message = { type: "edit", robot: r.name };
    const at = [number("debug-x"), number("debug-y")];
    const archive = [number("debug-archive-x"), number("debug-archive-y")];
    // Only what the host changed: each change is an event of its own.
    if (at[0] !== r.at[0] || at[1] !== r.at[1] || r.destroyed) message.at = at;
    if (el("debug-facing").value !== r.facing) message.facing = el("debug-facing").value;
    for (const [key, id] of [["damage", "debug-damage"], ["lives", "debug-lives"], ["flags", "debug-flags"]]) {
      if (number(id) !== r[key]) message[key] = number(id);
    }
    if (archive[0] !== d.archive[0] || archive[1] !== d.archive[1]) message.archive = archive;
    send(message);
    document.activeElement.blur();
  };
  el("debug-option").onsubmit = (e) => {
    e.preventDefault();
    send({ type: "option", robot: selected(), option: el("debug-option-name").value, give: e.submitter === el("debug-give") });
  };
  el("debug-card").onsubmit = (e) => {
    e.preventDefault();
    const card = el("debug-card-name").value;
    send({ type: "card", robot: selected(), register: Number(el("debug-register").value), card: card || null });
  };
  el("debug-rewind").onsubmit = (e) => {
    e.preventDefault();
    const [turn, register] = el("debug-rewind-to").value.split(":").map(Number);
    send({ type: "rewind", turn, register });
  };

  return { update };
})();
