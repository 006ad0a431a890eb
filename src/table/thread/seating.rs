//! Who sits where, as the lobby and the host change it: a spectator sits down at a free
//! seat, the host renames a player, sends one away (their link is replaced) or has two
//! seats change places. The table's connections follow: a connection's role is its seat,
//! so a page keeps its connection through all of these but a kick.

use super::{Role, Table};
use crate::table::chat;
use serde_json::json;

impl Table {
    /// `seat` if the table has it.
    pub(super) fn seat_index(&self, seat: usize) -> Result<usize, String> {
        if seat < self.seats.len() {
            Ok(seat)
        } else {
            Err(format!(
                "there is no seat {seat}: the seats are 0 to {}",
                self.seats.len() - 1
            ))
        }
    }

    /// Spectator connection `conn` takes free seat `seat` as `name`: it is told the seat's
    /// token (its page's link from now on) and plays the seat.
    pub(super) fn sit(
        &mut self,
        conn: u64,
        role: Role,
        seat: usize,
        name: String,
    ) -> Result<(), String> {
        if role != Role::Spectator {
            return Err("only a spectator takes a free seat (this link has its own role)".into());
        }
        let seat = self.seat_index(seat)?;
        let s = &mut self.seats[seat];
        if s.taken || s.connections > 0 {
            return Err(format!("{}'s seat is taken: pick a free one", s.name));
        }
        s.taken = true;
        s.connections += 1;
        s.absent_since = None;
        s.player = Some(name);
        if let Some(c) = self.conns.get_mut(&conn) {
            c.role = Role::Seat(seat);
        }
        let token = self.info.tokens().seats[seat].clone();
        let seated = json!({"type": "seated", "seat": self.seats[seat].name, "token": token});
        self.send(conn, seated.to_string());
        Ok(())
    }

    /// The person at `seat` leaves it: a new token for the seat (the old link stops
    /// working), its pages are told and closed, and the seat is free.
    pub(super) fn kick(&mut self, seat: usize) -> Result<(), String> {
        let seat = self.seat_index(seat)?;
        if !self.seats[seat].taken {
            return Err(format!("nobody sits at {}'s seat", self.seats[seat].name));
        }
        let mut tokens = self.info.tokens();
        tokens.seats[seat] = crate::table::token().map_err(|e| e.to_string())?;
        self.info.set_tokens(tokens);
        self.save_tokens();
        let gone: Vec<u64> = self
            .conns
            .iter()
            .filter(|(_, c)| c.role == Role::Seat(seat))
            .map(|(&id, _)| id)
            .collect();
        let told = json!({"type": "kicked", "text": "the host gave your seat to someone else: this link no longer works"}).to_string();
        for conn in gone {
            self.send(conn, told.clone());
            // Dropping its outbox ends the connection (the server closes the WebSocket).
            self.conns.remove(&conn);
        }
        let s = &mut self.seats[seat];
        s.taken = false;
        s.player = None;
        s.connections = 0;
        s.absent_since = None;
        Ok(())
    }

    /// Seats `a` and `b` change places: their players, names, links and pages.
    pub(super) fn swap(&mut self, a: usize, b: usize) -> Result<(), String> {
        let (a, b) = (self.seat_index(a)?, self.seat_index(b)?);
        if a == b {
            return Err("a seat cannot change places with itself".into());
        }
        let mut tokens = self.info.tokens();
        tokens.seats.swap(a, b);
        self.info.set_tokens(tokens);
        self.save_tokens();
        for c in self.conns.values_mut() {
            c.role = match c.role {
                Role::Seat(s) if s == a => Role::Seat(b),
                Role::Seat(s) if s == b => Role::Seat(a),
                other => other,
            };
        }
        let (first, second) = self.seats.split_at_mut(b.max(a));
        let (x, y) = (&mut first[a.min(b)], &mut second[0]);
        std::mem::swap(&mut x.player, &mut y.player);
        std::mem::swap(&mut x.taken, &mut y.taken);
        std::mem::swap(&mut x.connections, &mut y.connections);
        std::mem::swap(&mut x.absent_since, &mut y.absent_since);
        // Each page learns its new seat's link.
        let moved: Vec<(u64, usize)> = self
            .conns
            .iter()
            .filter_map(|(&id, c)| match c.role {
                Role::Seat(s) if s == a || s == b => Some((id, s)),
                _ => None,
            })
            .collect();
        let tokens = self.info.tokens();
        for (conn, s) in moved {
            let seated =
                json!({"type": "seated", "seat": self.seats[s].name, "token": tokens.seats[s]});
            self.send(conn, seated.to_string());
        }
        Ok(())
    }

    /// A chat line from `role`'s page, told to every page.
    pub(super) fn say(&mut self, role: Role, text: String) -> Result<(), String> {
        let (sender, line) = match role {
            Role::Seat(r) => {
                let s = &self.seats[r];
                let from = s.player.clone().unwrap_or_else(|| s.name.clone());
                (
                    Some(r),
                    chat::Line {
                        from,
                        robot: Some(s.name.clone()),
                        text,
                    },
                )
            }
            Role::Host => (
                None,
                chat::Line {
                    from: "host".into(),
                    robot: None,
                    text,
                },
            ),
            Role::Spectator => {
                return Err("spectators read the chat: take a seat to write in it".into())
            }
        };
        self.chat.say(sender, line.clone())?;
        self.send_all(&chat::Chat::frame(&[line], false));
        Ok(())
    }

    /// Writes the links' tokens beside the save (`--resume` brings these links back).
    fn save_tokens(&self) {
        let tokens = self.info.tokens();
        let path = crate::table::tokens_path(&self.saving.path);
        super::save_later(&self.saving.saver, &path, &self.saving.me, move |path| {
            let text = serde_json::to_string_pretty(&tokens).expect("tokens serialize");
            crate::files::write_atomic(path, text.as_bytes())
        });
    }
}
