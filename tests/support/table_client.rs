//! What the table's tests share: a server on a free loopback port with tables of the test
//! game (in a temporary folder with its own copy of the scripts, so a test may edit them),
//! and a WebSocket client that keeps every frame it receives.

use futures_util::{SinkExt, StreamExt};
use rally::script::RuleFolders;
use rally::table::protocol::Settings;
use rally::table::server::Server;
use rally::table::start::Offer;
use rally::table::{Launch, Lobby, TableInfo, Tokens};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long a test waits for a frame before it fails.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// The runtime the protocol tests drive their clients on (two workers, as the server's).
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A folder with the test game, its board and a copy of the standard scripts.
pub struct Workspace {
    pub dir: tempfile::TempDir,
}

impl Workspace {
    pub fn new() -> Workspace {
        let dir = tempfile::tempdir().unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        super::copy_dir(&root.join("scripts"), &dir.path().join("scripts"));
        std::fs::create_dir_all(dir.path().join("variants")).unwrap();
        for file in ["table.toml", "table_board.toml"] {
            std::fs::copy(root.join("tests/games").join(file), dir.path().join(file)).unwrap();
        }
        Workspace { dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn common(&self) -> RuleFolders {
        RuleFolders {
            scripts: Some(self.path("scripts")),
            variants: Some(self.path("variants")),
            ..RuleFolders::default()
        }
    }

    /// A start page offering the game files of `games/` (the test game with an option card
    /// for Ann, and a file that is not a game) with the project's variants; saves in
    /// `saves/`.
    pub fn offer(&self) -> Offer {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        super::copy_dir(&root.join("variants"), &self.path("variants"));
        std::fs::create_dir_all(self.path("games")).unwrap();
        let game = std::fs::read_to_string(self.path("table.toml")).unwrap();
        // Ann holds Conditional Program, so she is asked things (the dialogs).
        let game = game
            .replace("\"table_board.toml\"", "\"../table_board.toml\"")
            .replace(
                "name = \"Ann\"\n",
                "name = \"Ann\"\noptions = [\"conditional_program\"]\n",
            );
        std::fs::write(self.path("games/arena.toml"), game).unwrap();
        std::fs::write(self.path("games/broken.toml"), "seed = \n").unwrap();
        Offer {
            games: self.path("games"),
            saves: self.path("saves"),
            common: self.common(),
            settings: Settings::default(),
            reload: false,
            token: rally::table::token().unwrap(),
        }
    }

    /// A table of the test game, saved in this folder.
    pub fn launch(&self, id: &str, settings: Settings, reload: bool) -> Launch {
        Launch {
            id: id.into(),
            game: self.path("table.toml"),
            resume: None,
            common: self.common(),
            extra: Vec::new(),
            save: self.path(&format!("{id}.save.json")),
            tokens: Tokens::new(3).unwrap(),
            settings,
            reload,
            people: None,
        }
    }
}

/// A server on a free loopback port with the given tables.
pub fn serve(launches: Vec<Launch>) -> (Server, Vec<Arc<TableInfo>>) {
    serve_lobby(Lobby::default(), launches)
}

/// A server on a free loopback port over `lobby`, with the given tables.
pub fn serve_lobby(lobby: Lobby, launches: Vec<Launch>) -> (Server, Vec<Arc<TableInfo>>) {
    let lobby = Arc::new(lobby);
    let server = Server::start(lobby.clone(), "127.0.0.1", 0).unwrap();
    let infos = launches
        .into_iter()
        .map(|l| lobby.open(l).unwrap())
        .collect();
    (server, infos)
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// One browser, as a WebSocket: it keeps every frame it received.
pub struct Client {
    ws: Socket,
    /// Every frame received, in order.
    pub frames: Vec<Value>,
    /// The last "state" frame.
    pub state: Value,
}

impl Client {
    pub async fn connect(server: &Server, table: &str, token: &str) -> Client {
        Client::try_connect(server, table, token)
            .await
            .unwrap_or_else(|e| panic!("connecting to table {table}: {e}"))
    }

    pub async fn try_connect(
        server: &Server,
        table: &str,
        token: &str,
    ) -> Result<Client, tokio_tungstenite::tungstenite::Error> {
        Client::try_connect_at(&server.addr.to_string(), table, token).await
    }

    /// A client of the server at `addr` (`127.0.0.1:PORT`: a `rally serve` process).
    pub async fn try_connect_at(
        addr: &str,
        table: &str,
        token: &str,
    ) -> Result<Client, tokio_tungstenite::tungstenite::Error> {
        let url = format!("ws://{addr}/t/{table}/ws?token={token}");
        // As a browser does: no Nagle delay on small messages. tungstenite zeroes its read
        // buffer before every read: 16 KiB, not 128, keeps the load test's 200 clients light.
        let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
            .read_buffer_size(16 * 1024);
        let (ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(config), true).await?;
        let mut client = Client {
            ws,
            frames: Vec::new(),
            state: Value::Null,
        };
        client.until(|f| f["type"] == "state").await;
        Ok(client)
    }

    pub async fn send(&mut self, message: Value) {
        self.send_text(message.to_string()).await;
    }

    pub async fn send_text(&mut self, text: String) {
        self.ws.send(Message::text(text)).await.unwrap();
    }

    pub async fn send_raw(&mut self, message: Message) {
        self.ws.send(message).await.unwrap();
    }

    /// Sends `message` unless the server has closed the connection: false then.
    pub async fn try_send_raw(&mut self, message: Message) -> bool {
        self.ws.send(message).await.is_ok()
    }

    /// The next frame; `None` when the server closed the connection (with the close frame's
    /// reason in `frames` as `{"type":"closed"}`).
    pub async fn next(&mut self) -> Option<Value> {
        let text = self.next_text().await?;
        let frame: Value = serde_json::from_str(&text).unwrap();
        if frame["type"] == "state" {
            self.state = frame.clone();
        }
        self.frames.push(frame.clone());
        Some(frame)
    }

    /// The next frame's text, neither parsed nor kept (the load test reads only what it
    /// needs, so that its 200 clients do not outweigh the server on the same cores); `None`
    /// as for [`Client::next`].
    pub async fn next_text(&mut self) -> Option<String> {
        loop {
            let message = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("a frame within the patience")?;
            match message {
                Ok(Message::Text(text)) => return Some(text.to_string()),
                Ok(Message::Close(reason)) => {
                    let (code, reason) = reason
                        .map(|r| (u16::from(r.code), r.reason.to_string()))
                        .unwrap_or((0, String::new()));
                    let frame = json!({"type": "closed", "code": code, "reason": reason});
                    self.frames.push(frame);
                    return None;
                }
                Ok(_) => continue,
                Err(_) => return None,
            }
        }
    }

    /// Frames until one matches.
    pub async fn until(&mut self, matches: impl Fn(&Value) -> bool) -> Value {
        loop {
            let frame = self.next().await.expect("the connection stays open");
            if matches(&frame) {
                return frame;
            }
        }
    }

    /// The next error frame's message (frames before it are kept).
    pub async fn error(&mut self) -> String {
        let frame = self.until(|f| f["type"] == "error").await;
        frame["message"].as_str().unwrap().to_string()
    }

    /// Waits for a state frame in which `matches`.
    pub async fn state_where(&mut self, matches: impl Fn(&Value) -> bool) -> Value {
        if matches(&self.state) {
            return self.state.clone();
        }
        self.until(|f| f["type"] == "state" && matches(f)).await
    }

    /// The hand in the last state frame.
    pub fn hand(&self) -> Vec<String> {
        self.state["desk"]["hand"]
            .as_array()
            .map(|h| h.iter().map(|c| c.as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    }

    /// Waits for this seat's hand.
    pub async fn dealt(&mut self) -> Vec<String> {
        self.state_where(|s| s["phase"] == "programming" && s["desk"].is_object())
            .await;
        self.hand()
    }

    /// Programs the first five cards of the hand and says Ready; returns the cards.
    pub async fn program_and_ready(&mut self) -> Vec<String> {
        let cards: Vec<String> = self.dealt().await.into_iter().take(5).collect();
        self.play(&cards).await;
        cards
    }

    /// Places `cards` in registers 1, 2, … and says Ready.
    pub async fn play(&mut self, cards: &[String]) {
        for (i, card) in cards.iter().enumerate() {
            self.send(json!({"type": "place", "register": i + 1, "card": card}))
                .await;
        }
        self.send(json!({"type": "ready"})).await;
        self.state_where(|s| s["desk"]["ready"] == true || s["phase"] != "programming")
            .await;
    }

    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}
