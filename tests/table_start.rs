//! The start page's side of the server (`rally serve` without a game file): it needs the
//! server's host token; it lists the game files of its folder (a broken one with its error)
//! and the variants; a good request opens a table whose links work, with the seats and
//! variants picked; every bad request is refused with a sentence and opens nothing.

use crate::support::table_client::{serve_lobby, Client, Workspace};
use rally::table::Lobby;
use serde_json::{json, Value};

/// The status and the body of a GET.
fn call(url: &str) -> (u16, String) {
    answer(
        ureq::get(url)
            .config()
            .http_status_as_error(false)
            .build()
            .call(),
    )
}

/// The status and the body of a POST of `body`.
fn post(url: &str, body: &str) -> (u16, String) {
    answer(
        ureq::post(url)
            .config()
            .http_status_as_error(false)
            .build()
            .send(body),
    )
}

fn answer(response: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> (u16, String) {
    let mut response = response.unwrap();
    (
        response.status().as_u16(),
        response.body_mut().read_to_string().unwrap(),
    )
}

#[test]
fn the_start_page_opens_the_table_the_host_picks_and_refuses_the_rest() {
    let ws = Workspace::new();
    let offer = ws.offer();
    let token = offer.token.clone();
    let (server, _) = serve_lobby(Lobby::with_offer(offer), Vec::new());
    let base = format!("http://{}", server.addr);
    let open = |body: &str| post(&format!("{base}/api/tables?token={token}"), body);

    // The page itself is for everyone; what it offers and opens needs the host's token.
    let (status, page) = call(&format!("{base}/"));
    assert_eq!(status, 200);
    assert!(
        page.contains("\"assets/start.js\""),
        "relative, for a proxy's path prefix"
    );
    // A browser's request for an icon (the replay page names none) is no error.
    assert_eq!(call(&format!("{base}/favicon.ico")).0, 204);
    for bad in ["", "nope", &token[..31]] {
        let (status, body) = call(&format!("{base}/api/start?token={bad}"));
        assert_eq!(status, 403, "{bad:?}: {body}");
        let (status, _) = post(&format!("{base}/api/tables?token={bad}"), "{}");
        assert_eq!(status, 403);
    }
    let (status, body) = call(&format!("{base}/api/start?token={token}"));
    assert_eq!(status, 200, "{body}");
    let start: Value = serde_json::from_str(&body).unwrap();
    let games = start["offer"]["games"].as_array().unwrap();
    assert_eq!(games[0]["file"], "arena.toml");
    assert_eq!(
        games[0]["seats"],
        json!([{"name": "Ann", "driver": "person"}, {"name": "Bob", "driver": "person"}, {"name": "Cog", "driver": "bot"}])
    );
    assert_eq!(games[1]["file"], "broken.toml");
    assert!(
        games[1]["error"]
            .as_str()
            .unwrap()
            .contains("broken.toml:1:"),
        "{}",
        games[1]
    );
    let variants: Vec<&str> = start["offer"]["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert!(variants.contains(&"more-lives"), "{variants:?}");

    // Every bad request: a sentence, and no table.
    let oversized = format!(
        r#"{{"game":"arena.toml","people":[true,true,false],"variants":["{}"]}}"#,
        "x".repeat(20_000)
    );
    let refused: [(&str, &str, u16); 8] = [
        ("{not json", "not a request", 400),
        (r#"{"game":"arena.toml"}"#, "missing field `people`", 400),
        (
            r#"{"game":"arena.toml","people":[true,true,false],"colour":"red"}"#,
            "unknown field `colour`",
            400,
        ),
        (
            r#"{"game":"../table.toml","people":[true,true,false]}"#,
            "no game file `../table.toml`",
            400,
        ),
        (
            r#"{"game":"broken.toml","people":[]}"#,
            "broken.toml:1:",
            400,
        ),
        (
            r#"{"game":"arena.toml","people":[true]}"#,
            "has 3 seats",
            400,
        ),
        (
            r#"{"game":"arena.toml","people":[true,true,false],"variants":["warp-drive"]}"#,
            "unknown variant `warp-drive`",
            400,
        ),
        (&oversized, "", 413),
    ];
    for (body, expected, code) in refused {
        let (status, answer) = open(body);
        assert_eq!(status, code, "{body:.80}: {answer}");
        assert!(answer.contains(expected), "{body:.80}: {answer}");
    }
    let (status, answer) =
        open(r#"{"game":"arena.toml","people":[true,true,false],"timer":90000}"#);
    assert_eq!(status, 400);
    assert!(answer.contains("at most 86400"), "{answer}");
    let (_, listed) = call(&format!("{base}/api/tables"));
    assert_eq!(listed, r#"{"tables":[]}"#, "nothing was opened");

    // A good request: Bob's seat goes to a bot, more lives on top of the game's rules.
    let (status, answer) = open(
        r#"{"game":"arena.toml","people":[true,false,false],"variants":["more-lives"],"timer":45}"#,
    );
    assert_eq!(status, 200, "{answer}");
    let table: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(table["id"], "arena");
    let links = table["links"].as_array().unwrap();
    assert_eq!(links.len(), 5, "three seats, spectators, host");
    let ann = links[0]["path"].as_str().unwrap();
    assert!(
        ann.starts_with("./t/arena#"),
        "relative to the start page: {ann}"
    );
    // The table plays at once: Ann is the only person it waits for.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (_, ann_token) = ann.split_once('#').unwrap();
        let mut ann = Client::connect(&server, "arena", ann_token).await;
        let state = ann
            .state_where(|s| s["phase"] == "programming" && s["desk"].is_object())
            .await;
        assert_eq!(state["seats"][1]["driver"], "bot", "{state}");
        assert_eq!(state["settings"]["timer"], 45);
        // more-lives: one life more than the game's 3.
        assert_eq!(state["frame"]["robots"][0]["lives"], 4, "{state}");
    });
    // The same game again: a second table beside the first.
    let (status, answer) = open(r#"{"game":"arena.toml","people":[false,false,false]}"#);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        serde_json::from_str::<Value>(&answer).unwrap()["id"],
        "arena-2"
    );
    let (_, listed) = call(&format!("{base}/api/tables"));
    // Anyone may watch (and take a free seat from there): the spectators' link is the only
    // one in the public list.
    let public: Value = serde_json::from_str(&listed).unwrap();
    assert!(!listed.contains("\"links\""), "{listed}");
    assert_eq!(
        listed.matches('#').count(),
        public["tables"].as_array().unwrap().len(),
        "the public list has no links but the spectators': {listed}"
    );
}
