//! The HTTP and WebSocket side of `rally serve` (axum on tokio). It serves the pages, checks
//! every link's token, reads and limits what browsers send ([`protocol::parse`], a size cap,
//! a rate limit) and routes what passes to the table's thread; frames come back over one
//! bounded channel per connection. It never looks inside a game.

use super::protocol::{self, error_frame};
use super::start::{Offer, Request};
use super::thread::{Command, OUTBOX_FRAMES};
use super::{Lobby, Role, TableHandle, TableInfo};
use crate::error::{Error, Result};
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path as UrlPath, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures_util::SinkExt;
use serde::Deserialize;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The largest WebSocket message the transport accepts at all; a bigger one closes the
/// connection (code 1009). Messages between [`protocol::MAX_MESSAGE`] and this get an error
/// frame and the connection stays.
pub const MAX_FRAME: usize = 64 * 1024;

/// The WebSocket read buffer: room for a few of the largest messages a page sends.
const READ_BUFFER: usize = 4 * protocol::MAX_MESSAGE;

/// Messages a browser may send in a burst, and how many a second after that. A person
/// clicking sends a few a second; a flood is refused with one error frame a second at most.
const BURST: f64 = 40.0;
const PER_SECOND: f64 = 20.0;
/// A connection that keeps flooding after this many refused messages is closed.
const FLOOD_CLOSE: u32 = 2000;

/// The most WebSockets one table holds, and one address opens to the server (a LAN party
/// shares no address; the load test's 200 clients on loopback fit). Beyond: HTTP 503.
pub const MAX_PER_TABLE: usize = 64;
pub const MAX_PER_ADDRESS: usize = 256;

/// What one connection may hold of the server, and how many it holds at once.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections open at once, WebSockets included (under the usual open-file limit of
    /// 1024). Beyond: HTTP 503 and the connection closed, at once.
    pub connections: usize,
    /// A request's headers must arrive within this, and a connection idle between requests
    /// this long is closed (a client sending its headers byte by byte holds nothing).
    pub header_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connections: 900,
            header_timeout: Duration::from_secs(10),
        }
    }
}

const PAGE: &str = include_str!("pages/table.html");
const SCRIPT: &str = include_str!("pages/table.js");
/// The host's debug panel, loaded by the host's page alone.
const DEBUG_SCRIPT: &str = include_str!("pages/debug.js");
const STYLE: &str = include_str!("pages/table.css");
const START_PAGE: &str = include_str!("pages/start.html");
const START_SCRIPT: &str = include_str!("pages/start.js");
const LOBBY_SCRIPT: &str = include_str!("pages/lobby.js");
const COPY_SCRIPT: &str = include_str!("pages/copy.js");

/// The largest request the start page sends (a game's name, variants, a choice per seat).
const MAX_REQUEST: usize = 16 * 1024;

/// The routes of a server over `lobby`.
pub fn router(lobby: Arc<Lobby>) -> Router {
    Router::new()
        .route("/", get(|| async { Html(START_PAGE) }))
        .route(
            "/api/tables",
            get(tables)
                .post(open_table)
                .layer(DefaultBodyLimit::max(MAX_REQUEST)),
        )
        .route("/api/start", get(start_page))
        .route("/t/{id}", get(table_page))
        .route("/t/{id}/role", get(role))
        .route("/t/{id}/ws", get(socket))
        .route("/t/{id}/replay", get(replay))
        // The replay viewer's page names no icon: a browser asks for this one.
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .route("/assets/{name}", get(asset))
        .with_state(lobby)
}

/// A server running on its own tokio runtime (a background thread).
pub struct Server {
    pub addr: SocketAddr,
    pub lobby: Arc<Lobby>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Binds `host:port` (port 0: any free port) and starts serving `lobby`.
    pub fn start(lobby: Arc<Lobby>, host: &str, port: u16) -> Result<Server> {
        Server::start_with(lobby, host, port, Limits::default())
    }

    /// [`Server::start`] with other limits.
    pub fn start_with(lobby: Arc<Lobby>, host: &str, port: u16, limits: Limits) -> Result<Server> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("rally-serve")
            .build()
            .map_err(|e| Error::Other(format!("cannot start the server's runtime: {e}")))?;
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind((host, port)))
            .map_err(|e| Error::Other(format!("cannot listen on {host}:{port}: {e}")))?;
        let addr = listener
            .local_addr()
            .map_err(|e| Error::Other(e.to_string()))?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let app = router(lobby.clone());
        let thread = std::thread::Builder::new()
            .name("rally-serve".into())
            .spawn(move || {
                runtime.block_on(accept(listener, app, limits, stopped));
                // Open WebSockets do not end by themselves: drop them with the runtime.
                runtime.shutdown_timeout(Duration::from_millis(200));
            })
            .map_err(|e| Error::Other(format!("cannot start the server thread: {e}")))?;
        Ok(Server {
            addr,
            lobby,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// `http://HOST:PORT`, for links.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Blocks until the server stops (it does not stop by itself).
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.lobby.shutdown();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The accept loop: each connection is served by hyper's HTTP/1 with `limits`, holding one
/// of `limits.connections` permits for as long as it is open (a WebSocket too: the permit
/// goes with the connection into the upgrade).
async fn accept(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: Limits,
    mut stopped: tokio::sync::oneshot::Receiver<()>,
) {
    let permits = Arc::new(tokio::sync::Semaphore::new(limits.connections));
    loop {
        let (tcp, addr) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, most likely: let some close.
                    tracing::debug!("cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut stopped => return,
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            tokio::spawn(refuse(tcp));
            continue;
        };
        // Frames are small and sent one after another: without TCP_NODELAY, Nagle's algorithm
        // holds a frame back until the browser acknowledges the one before (up to 40 ms of
        // delayed ACK per frame).
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("no TCP_NODELAY on a connection: {e}");
        }
        let app = app.clone();
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(Held {
                tcp,
                _permit: permit,
            });
            let service = hyper::service::service_fn(
                move |mut request: axum::http::Request<hyper::body::Incoming>| {
                    request.extensions_mut().insert(ConnectInfo(addr));
                    let mut app = app.clone();
                    async move { tower_service::Service::call(&mut app, request).await }
                },
            );
            let served = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(limits.header_timeout)
                .serve_connection(io, service)
                .with_upgrades();
            if let Err(e) = served.await {
                tracing::debug!("a connection from {addr}: {e}");
            }
        });
    }
}

/// Tells a connection beyond the server's limit so, and closes it (within a second: a client
/// that does not read holds nothing).
async fn refuse(mut tcp: tokio::net::TcpStream) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    const REFUSED: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\ncontent-length: 47\r\nconnection: close\r\n\r\nthe server has too many connections: try again\n";
    // The request is read (and thrown away) until the client closes: closing with it unread
    // would reset the connection before the client reads the answer.
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        tcp.write_all(REFUSED).await?;
        tcp.shutdown().await?;
        let mut sink = [0u8; 1024];
        while tcp.read(&mut sink).await? > 0 {}
        std::io::Result::Ok(())
    })
    .await;
}

/// A connection with its permit: the permit is given back when the connection closes.
struct Held {
    tcp: tokio::net::TcpStream,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl tokio::io::AsyncRead for Held {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().tcp).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Held {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.get_mut().tcp).poll_write(cx, buf)
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().tcp).poll_flush(cx)
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().tcp).poll_shutdown(cx)
    }
}

fn not_found(what: &str) -> Response {
    (StatusCode::NOT_FOUND, format!("{what}\n")).into_response()
}

/// The tables of this server, as anyone may see them (no links).
async fn tables(State(lobby): State<Arc<Lobby>>) -> Response {
    axum::Json(
        json!({ "tables": lobby.list().iter().map(|t| table_json(t, None)).collect::<Vec<_>>() }),
    )
    .into_response()
}

/// A table as the start page lists it: the spectators' link for anyone (from there a guest
/// takes a free seat), and with `links` every link (for the host). The paths are relative
/// to the start page, so the pages work behind a reverse proxy's path prefix.
fn table_json(info: &TableInfo, links: Option<()>) -> Value {
    let mut table = json!({
        "id": info.id,
        "title": info.title,
        "seats": info.seats,
        "over": info.replay().is_some(),
        // Anyone may watch, and take a free seat from the spectators' page.
        "watch": format!("t/{}#{}", info.id, info.tokens().spectator),
    });
    if links.is_some() {
        table["links"] = super::links(".", info)
            .into_iter()
            .map(|(who, path)| json!({ "who": who, "path": path }))
            .collect();
    }
    table
}

/// The start page's offer, if this server has one and `token` is its host's.
fn offer<'a>(
    lobby: &'a Lobby,
    token: &str,
) -> std::result::Result<&'a Offer, (StatusCode, String)> {
    match &lobby.offer {
        Some(offer) if super::same(token, &offer.token) => Ok(offer),
        Some(_) => Err((
            StatusCode::FORBIDDEN,
            "this start page link's token is not valid: use the link `rally serve` printed\n"
                .into(),
        )),
        None => Err((
            StatusCode::NOT_FOUND,
            "this server has no start page\n".into(),
        )),
    }
}

/// What the host may open, and every table with its links.
async fn start_page(State(lobby): State<Arc<Lobby>>, Query(q): Query<TokenQuery>) -> Response {
    let offer = match offer(&lobby, &q.token) {
        Ok(offer) => offer.clone(),
        Err(refused) => return refused.into_response(),
    };
    let catalogue = match tokio::task::spawn_blocking(move || offer.catalogue()).await {
        Ok(catalogue) => catalogue,
        Err(e) => return (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    };
    let tables: Vec<Value> = lobby
        .list()
        .iter()
        .map(|t| table_json(t, Some(())))
        .collect();
    axum::Json(json!({ "offer": catalogue, "tables": tables })).into_response()
}

/// Opens the table the start page asks for and answers with its links.
async fn open_table(
    State(lobby): State<Arc<Lobby>>,
    Query(q): Query<TokenQuery>,
    body: String,
) -> Response {
    let offer = match offer(&lobby, &q.token) {
        Ok(offer) => offer.clone(),
        Err(refused) => return refused.into_response(),
    };
    let refuse = |message: String| (StatusCode::BAD_REQUEST, message + "\n").into_response();
    let request: Request = match serde_json::from_str(&body) {
        Ok(request) => request,
        Err(e) => return refuse(format!("not a request to open a table: {e}")),
    };
    let Some(id) = lobby.reserve(&super::table_name(Path::new(&request.game))) else {
        return refuse(format!(
            "this server already hosts {} tables: stop it and resume the ones you need",
            super::start::MAX_TABLES
        ));
    };
    let opening = lobby.clone();
    let opened = tokio::task::spawn_blocking(move || match offer.launch(request, id.clone()) {
        Ok(launch) => opening.open(launch).map_err(|e| e.to_string()),
        Err(message) => {
            opening.release(&id);
            Err(message)
        }
    })
    .await;
    match opened {
        Ok(Ok(info)) => axum::Json(table_json(&info, Some(()))).into_response(),
        Ok(Err(message)) => refuse(message),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

async fn table_page(State(lobby): State<Arc<Lobby>>, UrlPath(id): UrlPath<String>) -> Response {
    if lobby.get(&id).is_none() {
        return not_found(&format!("there is no table `{id}` on this server"));
    }
    Html(PAGE).into_response()
}

async fn asset(UrlPath(name): UrlPath<String>) -> Response {
    let (body, kind) = match name.as_str() {
        "table.js" => (SCRIPT, "text/javascript; charset=utf-8"),
        "debug.js" => (DEBUG_SCRIPT, "text/javascript; charset=utf-8"),
        "start.js" => (START_SCRIPT, "text/javascript; charset=utf-8"),
        "lobby.js" => (LOBBY_SCRIPT, "text/javascript; charset=utf-8"),
        "copy.js" => (COPY_SCRIPT, "text/javascript; charset=utf-8"),
        "board.js" => (
            crate::pictures::html::BOARD_JS,
            "text/javascript; charset=utf-8",
        ),
        "table.css" => (STYLE, "text/css; charset=utf-8"),
        _ => return not_found("no such file"),
    };
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

async fn replay(State(lobby): State<Arc<Lobby>>, UrlPath(id): UrlPath<String>) -> Response {
    let Some(table) = lobby.get(&id) else {
        return not_found(&format!("there is no table `{id}` on this server"));
    };
    let Some(replay) = table.info.replay() else {
        return not_found("the game is not over yet: its replay is shown when it ends");
    };
    // Made once, on first request: a whole game's frames, off the network threads.
    match tokio::task::spawn_blocking(move || replay.page().to_string()).await {
        Ok(page) => Html(page).into_response(),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "the replay page failed").into_response(),
    }
}

#[derive(Deserialize)]
struct TokenQuery {
    #[serde(default)]
    token: String,
}

/// The table and the role a link's token gives, or the refusal.
fn admit(
    lobby: &Lobby,
    id: &str,
    token: &str,
) -> std::result::Result<(Arc<TableHandle>, Role), (StatusCode, String)> {
    let Some(table) = lobby.get(id) else {
        return Err((
            StatusCode::NOT_FOUND,
            format!("there is no table `{id}` on this server\n"),
        ));
    };
    match table.info.role(token) {
        Some(role) => Ok((table, role)),
        None => Err((
            StatusCode::FORBIDDEN,
            "this link's token is not valid for this table: ask the host for your link\n".into(),
        )),
    }
}

/// What a token is for (the page asks before it connects, to say so if the link is wrong).
async fn role(
    State(lobby): State<Arc<Lobby>>,
    UrlPath(id): UrlPath<String>,
    Query(q): Query<TokenQuery>,
) -> Response {
    match admit(&lobby, &id, &q.token) {
        Ok((table, role)) => {
            let (role, seat) = match role {
                Role::Seat(i) => ("seat", Some(table.info.seats[i].clone())),
                Role::Host => ("host", None),
                Role::Spectator => ("spectator", None),
            };
            axum::Json(serde_json::json!({ "role": role, "seat": seat, "title": table.info.title }))
                .into_response()
        }
        Err(refused) => refused.into_response(),
    }
}

async fn socket(
    State(lobby): State<Arc<Lobby>>,
    UrlPath(id): UrlPath<String>,
    Query(q): Query<TokenQuery>,
    ConnectInfo(from): ConnectInfo<SocketAddr>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let (table, role) = match admit(&lobby, &id, &q.token) {
        Ok(admitted) => admitted,
        Err(refused) => return refused.into_response(),
    };
    let Some(seat) = lobby.seat_connection(&id, from.ip()) else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("too many connections: at most {MAX_PER_TABLE} to a table and {MAX_PER_ADDRESS} from one address\n"),
        )
            .into_response();
    };
    let conn = lobby.connection_id();
    upgrade
        // tungstenite zeroes its whole read buffer before every read (128 KiB by default:
        // most of the network thread's time under load); a browser's messages are small.
        .read_buffer_size(READ_BUFFER)
        .max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        .on_upgrade(move |ws| async move {
            session(ws, table, role, conn).await;
            drop(seat);
        })
}

/// A token bucket: [`BURST`] messages at once, [`PER_SECOND`] after that.
struct RateLimit {
    tokens: f64,
    last: Instant,
    /// When the last "too many messages" frame was sent (one a second at most).
    told: Option<Instant>,
    refused_total: u32,
}

impl RateLimit {
    fn new() -> RateLimit {
        RateLimit {
            tokens: BURST,
            last: Instant::now(),
            told: None,
            refused_total: 0,
        }
    }

    fn allow(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.last).as_secs_f64() * PER_SECOND;
        self.tokens = (self.tokens + refill).min(BURST);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            self.refused_total += 1;
            false
        }
    }

    /// Whether a refused message is told so: the first of a flood, then once a second.
    fn tell(&mut self) -> bool {
        let now = Instant::now();
        let due = self
            .told
            .is_none_or(|t| now.duration_since(t) >= Duration::from_secs(1));
        if due {
            self.told = Some(now);
        }
        due
    }
}

/// One browser's connection: frames out as the table sends them, messages in as they pass.
async fn session(mut ws: WebSocket, table: Arc<TableHandle>, role: Role, conn: u64) {
    let (out, mut frames) = tokio::sync::mpsc::channel::<String>(OUTBOX_FRAMES);
    if !table.send(Command::Connect { conn, role, out }) {
        let _ = ws
            .send(Message::Text(error_frame("this table has stopped").into()))
            .await;
        return;
    }
    let mut limit = RateLimit::new();
    loop {
        let reply = tokio::select! {
            frame = frames.recv() => match frame {
                Some(text) => {
                    // Frames often come several at once (a turn's stages): write all that
                    // are waiting, then flush once.
                    let mut sent = ws.feed(Message::Text(text.into())).await;
                    while let (Ok(()), Ok(more)) = (&sent, frames.try_recv()) {
                        sent = ws.feed(Message::Text(more.into())).await;
                    }
                    if sent.is_err() || ws.flush().await.is_err() {
                        break;
                    }
                    continue;
                }
                // The table dropped this connection (it stopped reading) or stopped.
                None => break,
            },
            incoming = ws.recv() => match incoming {
                Some(Ok(Message::Close(_))) | None => break,
                // Every other kind of message counts towards the flood limit first: text,
                // binary, ping and pong alike.
                Some(Ok(message)) if !limit.allow() => {
                    if limit.refused_total > FLOOD_CLOSE {
                        close(&mut ws, 1008, "too many messages").await;
                        break;
                    }
                    if !limit.tell() {
                        continue;
                    }
                    // A ping's pong is the library's; a flood of them gets no error frame.
                    matches!(message, Message::Text(_) | Message::Binary(_)).then(|| {
                        format!("too many messages (at most {PER_SECOND} a second): ignored until you slow down")
                    })
                }
                Some(Ok(Message::Text(text))) => match protocol::parse(text.as_str()) {
                    Ok(message) => {
                        if !table.send(Command::Message { conn, message }) {
                            Some("this table has stopped".to_string())
                        } else {
                            None
                        }
                    }
                    Err(e) => Some(e),
                },
                Some(Ok(Message::Binary(_))) => {
                    Some("binary messages are not part of the protocol: send JSON text".into())
                }
                Some(Ok(_)) => None, // ping and pong: answered by the library
                Some(Err(e)) => {
                    // Over the transport's size limit, or not WebSocket at all.
                    let reason = e.to_string();
                    close(&mut ws, 1009, &reason).await;
                    break;
                }
            },
        };
        if let Some(message) = reply {
            if ws
                .send(Message::Text(error_frame(&message).into()))
                .await
                .is_err()
            {
                break;
            }
        }
    }
    table.send(Command::Disconnect { conn });
}

async fn close(ws: &mut WebSocket, code: u16, reason: &str) {
    // A close reason is at most 123 bytes.
    let mut reason = reason.to_string();
    while reason.len() > 120 {
        reason.pop();
    }
    let _ = ws
        .send(Message::Close(Some(CloseFrame {
            code,
            reason: reason.into(),
        })))
        .await;
}
