// The start page (start.html). Everyone sees the tables on this server; the host's link
// (#token, printed by `rally serve`) also shows every table's links and the form that opens
// a table. The server checks everything the form sends (src/table/start.rs).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const token = location.hash.slice(1);
  const text = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  let offer = null;

  // The server's paths are relative to this page (behind a proxy it has a path prefix).
  const absolute = (path) => new URL(path, location.href).href;

  function showTables(tables, fresh) {
    $("no-tables").hidden = tables.length > 0;
    $("tables").innerHTML = tables.map((t) => {
      const links = (t.links || []).map((l) => {
        const url = absolute(l.path);
        return '<tr><td>' + text(l.who) + '</td><td><a href="' + text(url) + '" target="_blank">' + text(url) + "</a></td>" +
          '<td><button type="button" class="copy" data-url="' + text(url) + '">copy</button></td></tr>';
      }).join("");
      return '<div class="table-card' + (t.id === fresh ? " fresh" : "") + '" data-table="' + text(t.id) + '">' +
        "<h3>" + text(t.title) + ' <small>table <code>' + text(t.id) + "</code>" + (t.over ? ' · over: <a href="t/' + text(encodeURIComponent(t.id)) + '/replay">replay</a>' : "") + "</small></h3>" +
        (links ? '<table class="links">' + links + "</table>" : "<p>" + text(t.seats.join(", ")) +
          ' · <a class="watch" href="' + text(absolute(t.watch)) + '">watch, or take a free seat</a></p>') + "</div>";
    }).join("");
    for (const b of document.querySelectorAll("button.copy")) {
      b.onclick = () => window.rallyCopy(b.dataset.url, b);
    }
  }

  function chosenGame() {
    const picked = document.querySelector('input[name="game"]:checked');
    return picked && offer.games.find((g) => g.file === picked.value);
  }

  // The seats and the game's own variants follow the game picked.
  function showGame() {
    const game = chosenGame();
    $("seat-choices").tBodies[0].innerHTML = game ? game.seats.map((s, i) =>
      "<tr><td>" + text(s.name) + '</td><td><select data-seat="' + i + '">' +
      '<option value="person"' + (s.driver === "person" ? " selected" : "") + ">waits for a person</option>" +
      '<option value="bot"' + (s.driver === "bot" ? " selected" : "") + ">a bot until someone takes it</option>" +
      "</select></td></tr>").join("") : "";
    for (const box of document.querySelectorAll('#variants input[type="checkbox"]')) {
      const own = game && game.variants.includes(box.value);
      box.disabled = !!own;
      if (own) box.checked = true;
      box.closest("label").classList.toggle("own", !!own);
    }
    $("open-button").disabled = !game;
  }

  function showOffer(o) {
    offer = o;
    $("games-folder").textContent = "from " + o.folder;
    $("games").innerHTML = o.games.length ? o.games.map((g, i) =>
      '<label class="game' + (g.error ? " broken" : "") + '"><input type="radio" name="game" value="' + text(g.file) + '"' +
      (g.error ? " disabled" : i === o.games.findIndex((x) => !x.error) ? " checked" : "") + "> <b>" + text(g.file) + "</b> " +
      (g.error ? '<span class="error-text">' + text(g.error) + "</span>" : text(g.description) +
        ' <small>(' + g.seats.length + " seats" + (g.variants.length ? "; " + text(g.variants.join(", ")) : "") + ")</small>") +
      "</label>").join("") : "<p>No game files there: start <code>rally serve --games-dir DIR</code> with the folder of your game files.</p>";
    $("variants").innerHTML = o.variants.map((v) =>
      '<label title="' + text(v.conflicts.length ? "cannot be combined with " + v.conflicts.join(", ") : "") + '"><input type="checkbox" value="' + text(v.name) + '"> <b>' +
      text(v.name) + "</b> " + text(v.description) + ' <small class="own-note">set by the game file</small></label>').join("") || "<p>No variants.</p>";
    $("timer-seconds").value = o.settings.timer;
    for (const radio of document.querySelectorAll('input[name="game"]')) radio.onchange = showGame;
    showGame();
  }

  $("open-form").onsubmit = async (e) => {
    e.preventDefault();
    const game = chosenGame();
    if (!game) return;
    const request = {
      game: game.file,
      variants: Array.from(document.querySelectorAll("#variants input:checked:not(:disabled)")).map((b) => b.value),
      people: Array.from(document.querySelectorAll("#seat-choices select")).map((s) => s.value === "person"),
      timer: Number($("timer-seconds").value) || 0,
    };
    $("open-button").disabled = true;
    $("open-error").hidden = true;
    const response = await fetch("api/tables?token=" + encodeURIComponent(token), {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request),
    });
    $("open-button").disabled = false;
    if (!response.ok) {
      $("open-error").textContent = await response.text();
      $("open-error").hidden = false;
      document.body.dataset.state = "refused-open";
      return;
    }
    const table = await response.json();
    await load(table.id);
    document.body.dataset.state = "opened";
    document.querySelector('[data-table="' + CSS.escape(table.id) + '"]').scrollIntoView();
  };

  async function load(fresh) {
    if (!token) {
      $("guest-hint").hidden = false;
      const response = await fetch("api/tables");
      showTables((await response.json()).tables, null);
      document.body.dataset.state = "ready";
      return;
    }
    const response = await fetch("api/start?token=" + encodeURIComponent(token));
    if (!response.ok) {
      $("who").textContent = "refused";
      $("tables").innerHTML = '<p class="notice error">' + text(await response.text()) + "</p>";
      document.body.dataset.state = "refused";
      return;
    }
    const data = await response.json();
    $("who").textContent = "host";
    $("open").hidden = false;
    if (!offer) showOffer(data.offer);
    showTables(data.tables, fresh);
    document.body.dataset.state = "ready";
  }

  load(null).catch(() => { $("who").textContent = "the server does not answer"; });
})();
