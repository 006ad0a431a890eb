//! The lobby and the end screen in headless Chromium: a guest at `/` follows a table's
//! watch link, types a name (markup in it stays text) and takes a free seat; the host page
//! shows the seats' links; the chat shows what was typed as text; a finished game shows its
//! standings with the winner marked, and the host's rematch starts a new game on the same
//! links. Skips without Chromium; `RALLY_SCREENSHOTS=DIR` keeps the screenshots
//! docs/table.md shows (lobby, lobby-host, end, at 1280×800 and 390×844).

use crate::support::browser::{self, Browser};
use crate::support::table_client::{serve, Client, Workspace};
use rally::table::protocol::Settings;
use serde_json::json;
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(60);

/// The lobby's, the chat's and the end screen's sections fit the window's width (on a phone
/// too), and nothing in them is wider than they are; the rest of the page's phone layout is
/// docs/table.md's "Phones".
const FITS: &str = "return Array.from(document.querySelectorAll('#lobby, #end, #chat, #host')).filter(s => !s.hidden).map(s => [s.id, Math.round(s.getBoundingClientRect().right), s.scrollWidth, s.clientWidth]).filter(([, right, inner, room]) => right > window.innerWidth || inner > room);";

/// Screenshots `name` at 1280×800 and (`name-phone`) at 390×844, there scrolled to the
/// element `focus`.
fn both_sizes(page: &Browser, name: &str, focus: &str) {
    page.resize(1280, 800);
    page.screenshot(name);
    page.resize(390, 844);
    page.run(&format!(
        "document.getElementById('{focus}').scrollIntoView(); return null;"
    ));
    assert_eq!(page.run(FITS), json!([]), "{name} fits a phone's width");
    page.screenshot(&format!("{name}-phone"));
    page.resize(1280, 800);
}

#[test]
fn a_guest_takes_a_free_seat_by_name_and_the_host_sees_the_seats_links() {
    let Some((chromium, chromedriver)) =
        browser::tools("a_guest_takes_a_free_seat_by_name_and_the_host_sees_the_seats_links")
    else {
        return;
    };
    let ws = Workspace::new();
    let (server, infos) = serve(vec![ws.launch("arena", Settings::default(), false)]);
    let tokens = infos[0].tokens();
    let guest = Browser::start(&chromium, &chromedriver);
    let host = Browser::start(&chromium, &chromedriver);
    host.open(&format!("http://{}/t/arena#{}", server.addr, tokens.host));
    guest.open(&format!("http://{}/", server.addr));
    guest.wait_for(
        "the tables",
        "return document.querySelector('a.watch') !== null;",
        PATIENCE,
    );
    guest.click("a.watch");
    guest.wait_for(
        "the free seats",
        "return document.querySelectorAll('#free-seats button.sit').length === 3;",
        PATIENCE,
    );
    let name = "<i>Ada</i><img src=x>";
    guest.run(&format!(
        "document.getElementById('name').value = {}; return null;",
        json!(name)
    ));
    both_sizes(&guest, "lobby", "lobby");
    guest.click("#free-seats button.sit");
    guest.wait_for(
        "Ann's seat",
        "return document.getElementById('who').textContent === 'you play Ann';",
        PATIENCE,
    );
    assert_eq!(
        guest.run("return location.hash;"),
        json!(format!("#{}", tokens.seats[0])),
        "the page's address is the seat's link now"
    );
    let shown = host.wait_for(
        "the guest's name on the host page",
        "const td = document.querySelector('#seats tr[data-robot=\"Ann\"] .player-name'); return td && td.textContent;",
        PATIENCE,
    );
    assert_eq!(shown, json!(name), "the name as typed, as text");
    for page in [&guest, &host] {
        assert_eq!(
            page.run("return document.querySelectorAll('img, #seats i').length;"),
            json!(0)
        );
    }
    let links = host.wait_for(
        "the seats' links",
        "const l = Array.from(document.querySelectorAll('#host-seats .seat-link')).map(i => i.value); return l.length === 3 && l;",
        PATIENCE,
    );
    assert_eq!(
        links[1],
        json!(format!(
            "http://{}/t/arena#{}",
            server.addr, tokens.seats[1]
        ))
    );
    // Copying over plain http (no navigator.clipboard off a secure context but here): the
    // fallback copies from a selected field.
    host.run("Object.defineProperty(navigator, 'clipboard', { value: undefined }); return null;");
    host.click("#host-seats button.copy");
    host.wait_for(
        "copied",
        "return document.querySelector('#host-seats button.copy').dataset.copied === 'yes';",
        PATIENCE,
    );

    // The chat: what the guest types reaches the host as text.
    guest.run("document.getElementById('chat-text').value = '<b>hi</b> all'; return null;");
    guest.click("#chat-form button");
    let said = host.wait_for(
        "the chat line",
        "const li = document.querySelector('#chat-lines li'); return li && [li.textContent, li.querySelectorAll('b').length];",
        PATIENCE,
    );
    assert!(
        said[0].as_str().unwrap().ends_with(": <b>hi</b> all"),
        "{said}"
    );
    assert_eq!(
        said[1],
        json!(1),
        "the sender's name in bold, nothing of what was typed"
    );
    both_sizes(&host, "lobby-host", "host-seats");
    assert_eq!(guest.errors(), Vec::<String>::new());
    assert_eq!(host.errors(), Vec::<String>::new());
}

#[test]
fn a_finished_game_shows_its_standings_and_the_host_starts_a_rematch() {
    let Some((chromium, chromedriver)) =
        browser::tools("a_finished_game_shows_its_standings_and_the_host_starts_a_rematch")
    else {
        return;
    };
    let ws = Workspace::new();
    let (server, infos) = serve(vec![ws.launch("arena", Settings::default(), false)]);
    let tokens = infos[0].tokens();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let mut host = Client::connect(&server, "arena", &tokens.host).await;
            // Players with names, then a bot for each (they leave; a bot steps in at once).
            host.send(json!({"type": "settings", "bot_after": 1})).await;
            for (seat, name) in [(0, "Ada"), (1, "Björn")] {
                let mut guest = Client::connect(&server, "arena", &tokens.spectator).await;
                guest
                    .send(json!({"type": "sit", "seat": seat, "name": name}))
                    .await;
                guest.until(|f| f["type"] == "seated").await;
                guest.close().await;
            }
            host.send(json!({"type": "start"})).await;
            host.state_where(|s| s["phase"] == "over").await;
        });
    let host = Browser::start(&chromium, &chromedriver);
    host.open(&format!("http://{}/t/arena#{}", server.addr, tokens.host));
    let rows = host.wait_for(
        "the standings",
        "const rows = document.querySelectorAll('#standings tbody tr'); return !document.getElementById('end').hidden && rows.length === 3 && Array.from(rows).map(r => r.textContent);",
        PATIENCE,
    );
    assert!(
        rows.to_string().contains("Ada") && rows.to_string().contains("Björn"),
        "{rows}"
    );
    let winner = host.run(
        "const w = document.querySelector('#board-view svg .rb-crown'); const row = document.querySelector('#standings tr.winner'); return [w !== null, row !== null];",
    );
    assert_eq!(
        winner,
        json!([true, true]),
        "the board marks the winner the standings name"
    );
    both_sizes(&host, "end", "end");
    host.click("#rematch");
    host.wait_for(
        "the new game",
        "return document.getElementById('end').hidden && document.body.dataset.phase !== 'over';",
        PATIENCE,
    );
    assert_eq!(infos[0].tokens().seats, tokens.seats, "the same links");
    assert_eq!(host.errors(), Vec::<String>::new());
}
