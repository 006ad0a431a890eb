// The lobby of a table page (table.html), beside table.js: the player's name, the free seats
// a spectator may take, the host's seat links and controls, the chat and the end screen.
// Everything a person typed (names, chat lines) is put on the page as text (textContent),
// never as markup.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const send = (message) => window.rallyTable.send(message);
  const el = (tag, props, children) => {
    const node = document.createElement(tag);
    Object.assign(node, props || {});
    for (const child of children || []) node.append(child);
    return node;
  };
  let last = null;   // the last state

  // The link of seat `i`, for the host: this page's address with the seat's token.
  const seatLink = (token) => location.href.split("#")[0] + "#" + token;

  function lobbyState(s) {
    last = s;
    const mine = s.role === "seat" ? s.seats.find((seat) => seat.name === s.seat) : null;
    // A seat's player names themself; a spectator may take a free seat.
    const free = s.role === "spectator" ? s.seats.map((seat, i) => [seat, i]).filter(([seat]) => seat.free) : [];
    $("lobby").hidden = !mine && free.length === 0;
    $("name-form").hidden = !mine && free.length === 0;
    $("name-button").hidden = !mine;
    $("name-label").textContent = mine ? "Your name, playing " + mine.name : "Your name";
    if (mine && document.activeElement !== $("name") && !$("name").dataset.edited) $("name").value = mine.player || "";
    document.body.dataset.named = mine && mine.player ? "yes" : "no";
    $("free-seats").replaceChildren(...free.map(([seat, i]) => el("button", {
      type: "button", className: "sit", textContent: "Take " + seat.name + "'s seat", onclick: () => sit(i),
    }, [])));
    if (free.length) $("free-seats").prepend(el("span", { className: "hint", textContent: "Free seats: " }, []));
    hostSeats(s);
    end(s);
    $("chat-form").hidden = s.role === "spectator";
  }

  function sit(i) {
    const name = $("name").value.trim();
    if (!name) { $("name").focus(); $("name").reportValidity(); return; }
    send({ type: "sit", seat: i, name });
  }

  $("name").oninput = () => { $("name").dataset.edited = "yes"; };
  $("name-form").onsubmit = (e) => {
    e.preventDefault();
    if (last && last.role === "seat") {
      send({ type: "name", name: $("name").value.trim() });
      delete $("name").dataset.edited;
    }
  };

  function hostSeats(s) {
    const body = $("host-seats").tBodies[0];
    if (s.role !== "host" || !s.seat_tokens) { body.replaceChildren(); return; }
    // Rebuilt only when the seats change, so a name being typed is kept.
    const key = JSON.stringify([s.seat_tokens, s.seats.map((seat) => [seat.player, seat.free, seat.connected])]);
    if (body.dataset.key === key) return;
    body.dataset.key = key;
    body.replaceChildren(...s.seats.map((seat, i) => {
      const link = seatLink(s.seat_tokens[i]);
      const field = el("input", { className: "seat-link", value: link, readOnly: true }, []);
      field.setAttribute("aria-label", seat.name + "'s link");
      const copy = el("button", { type: "button", className: "copy", textContent: "copy" }, []);
      copy.onclick = () => window.rallyCopy(link, copy);
      const rename = el("input", { className: "rename", placeholder: "name", maxLength: 24, value: seat.player || "" }, []);
      rename.setAttribute("aria-label", "the name of " + seat.name + "'s player");
      const renameButton = el("button", { type: "button", textContent: "rename", disabled: seat.free }, []);
      renameButton.onclick = () => send({ type: "rename", seat: i, name: rename.value.trim() });
      const kick = el("button", { type: "button", className: "kick", textContent: "send away", disabled: seat.free }, []);
      kick.title = "a new link for this seat: the old one stops working";
      kick.onclick = () => send({ type: "kick", seat: i });
      const move = el("select", { className: "move" }, [el("option", { value: "", textContent: "move to…" }, [])]);
      s.seats.forEach((other, j) => { if (j !== i) move.append(el("option", { value: String(j), textContent: other.name }, [])); });
      move.setAttribute("aria-label", "move " + seat.name + "'s player to another robot");
      move.onchange = () => { if (move.value !== "") send({ type: "move_seat", seat: i, to: Number(move.value) }); };
      const who = seat.free ? el("span", { className: "free", textContent: "free" }, []) : el("span", { textContent: seat.player || "(no name yet)" }, []);
      return el("tr", { }, [
        el("td", {}, [el("b", { textContent: seat.name }, []), " ", who]),
        el("td", {}, [field, copy]),
        el("td", {}, [rename, renameButton, kick, move]),
      ]);
    }));
  }

  function end(s) {
    $("end").hidden = !s.standings;
    $("rematch").hidden = !(s.standings && s.role === "host");
    if (!s.standings) return;
    $("standings").tBodies[0].replaceChildren(...s.standings.map((line, i) => {
      const robot = el("td", {}, [line.winner ? el("span", { className: "crown", textContent: "★ " }, []) : "", line.robot]);
      if (line.player) robot.append(el("span", { className: "player-name", textContent: " · " + line.player }, []));
      const row = el("tr", { className: line.winner ? "winner" : "" }, [
        el("td", { textContent: String(i + 1) }, []), robot,
        ...[line.flags, line.lives, line.deaths, line.damage_dealt].map((n) => el("td", { textContent: String(n) }, [])),
      ]);
      return row;
    }));
  }
  $("rematch").onclick = () => send({ type: "rematch" });

  function chat(lines) {
    const list = $("chat-lines");
    for (const line of lines) {
      list.append(el("li", {}, [el("b", { textContent: line.from }, []), line.robot && line.robot !== line.from ? el("small", { textContent: " (" + line.robot + ")" }, []) : "", ": ", line.text]));
    }
    while (list.children.length > 100) list.firstChild.remove();
    list.scrollTop = list.scrollHeight;
  }
  $("chat-form").onsubmit = (e) => {
    e.preventDefault();
    const text = $("chat-text").value.trim();
    if (text) send({ type: "chat", text });
    $("chat-text").value = "";
  };

  function receive(frame) {
    switch (frame.type) {
      // A seat taken (or moved by the host): this page's link is now the seat's. The
      // address changes without a reload or a `hashchange`.
      case "seated":
        history.replaceState(null, "", "#" + frame.token);
        window.rallyTable.seated(frame.token);
        break;
      case "kicked": {
        document.body.dataset.kicked = "yes";
        const div = el("div", { className: "notice error", textContent: frame.text }, []);
        $("notices").append(div);
        break;
      }
      case "chat":
        // A page that (re)connects gets the whole chat again.
        if (frame.all) $("chat-lines").replaceChildren();
        chat(frame.lines);
        break;
    }
  }

  window.rallyLobby = { state: lobbyState, receive };
})();
