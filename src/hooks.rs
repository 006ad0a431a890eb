//! The hooks, in one table that says who hears each and in what order (as `order.rs` says
//! when each step comes): the moments the core tells scripts of (a robot entered a square, is
//! about to execute its card, is about to take damage...) and, for each, which listeners hear
//! it, one kind after the other: the rules, the robot's option cards, the element(s) of its
//! square. The order is part of the rules (the square's `on_enter` acts before the rules'
//! `on_enter`, which track where robots are; an option's `on_damage` before the rules', which
//! let a player scrap an option), so the engine reads it here (`engine/hooks.rs`, the one
//! dispatcher) and nowhere else, docs/scripting.md shows it (checked by tests/hooks.rs), and
//! a declaration accepts a hook's key exactly when its kind of listener hears that hook.
//!
//! Within one kind, listeners hear in the order they were loaded (rules: the built-in
//! scripts, then a project's, then the variants switched on, in file-name order), drawn
//! (options: the order the robot drew them) or placed (a square's elements: board order). A
//! pack of rules loaded after these takes its place by the same rule: listeners are ordered
//! by kind, as the table says, then by load order.

/// Who may hear a hook: a kind of declaration, and which of them are asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listener {
    /// Every rule (`rally.rule`) with a handler, in load order.
    Rules,
    /// The options (`rally.option`) the robot holds, in the order it drew them.
    Options,
    /// Every tile of the board (`tile_steps` of `rally.element`), in board order.
    Board,
    /// The element(s) (`rally.element`) of the robot's square, in board order.
    Square,
}

impl Listener {
    /// How the docs name this kind of listener.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Rules => "rules",
            Self::Options => "options",
            Self::Board => "every tile",
            Self::Square => "square",
        }
    }
}

/// When the rest of a hook's listeners are no longer asked, whatever they would say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// Every listener is asked.
    Always,
    /// Only while the robot is on the board (and, for a square's elements, still on the
    /// square they were found on): a listener never hears of a robot an earlier one
    /// destroyed or moved away.
    OnBoard,
    /// Only while the robot is still destroyed (an earlier listener may bring it back).
    Destroyed,
}

impl Guard {
    fn describe(self) -> &'static str {
        match self {
            Guard::Always => "every listener",
            Guard::OnBoard => "while the robot is on the board (a square's: on that square)",
            Guard::Destroyed => "while the robot is destroyed",
        }
    }
}

/// A hook: a moment the core tells scripts of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hook {
    Reveal,
    Card,
    CardEnd,
    Cross,
    Enter,
    Conveyed,
    Push,
    Rotate,
    Damage,
    Destroyed,
    Reenter,
    Deal,
    Program,
    /// A step of the order of play (`steps`, `tile_steps`).
    Step,
    /// `modify.KEY`: what the robot's options make of a value.
    Modify,
    /// `shot = { can, advise, fire }`: an option's shot instead of the main laser.
    Shot,
}

/// One row of the table.
pub struct Spec {
    pub hook: Hook,
    /// The declaration key (`on_card`; for the last three, the key that holds their handlers).
    pub key: &'static str,
    /// Who hears it, in order.
    pub listeners: &'static [Listener],
    pub guard: Guard,
    /// What a handler gets after `ctx` and the robot (a square's element gets its tile
    /// before the robot, an option the held card last): `(name, LuaLS type)`.
    pub args: &'static [(&'static str, &'static str)],
    /// The LuaLS type of what a handler returns (`""`: nothing that matters).
    pub returns: &'static str,
    /// When the core tells it, and what an answer does.
    pub when: &'static str,
}

const CARD: (&str, &str) = ("card", "rally.Card");
const MOVE_INFO: (&str, &str) = ("info", "rally.MoveInfo");

use Listener::*;

/// Every hook and its listeners, in the order of a register.
pub const HOOKS: [Spec; 16] = [
    Spec {
        hook: Hook::Step,
        key: "steps",
        listeners: &[Rules, Options, Board, Square],
        guard: Guard::OnBoard,
        args: &[],
        returns: "",
        when: "each step of the order of play: rules' `steps` once, options' `steps` for each \
               robot holding one (robots in list order), elements' `tile_steps` once per tile, \
               elements' `steps` for each robot standing on the tile (robots in board order; \
               one moved during the step is not visited again)",
    },
    Spec {
        hook: Hook::Reveal,
        key: "on_reveal",
        listeners: &[Square],
        guard: Guard::OnBoard,
        args: &[CARD],
        returns: "(string|rally.Card|nil)",
        when: "segment A: a robot revealed its card; the first card returned is played instead",
    },
    Spec {
        hook: Hook::Card,
        key: "on_card",
        listeners: &[Rules, Options, Square],
        guard: Guard::OnBoard,
        args: &[CARD],
        returns: "rally.CardResult",
        when: "a robot is about to execute its card; a table changes the card the next \
               listener sees, `rally.HANDLED` ends the hook (the script resolved the card); \
               of the square's elements, the first that answers",
    },
    Spec {
        hook: Hook::Cross,
        key: "on_cross",
        listeners: &[Square],
        guard: Guard::OnBoard,
        args: &[MOVE_INFO],
        returns: "({ cost: integer?, block: boolean? }|nil)",
        when: "a robot crosses an edge (or a wall there stops it): the square it leaves, then \
               the one beyond; the costs add up. An element that declares `blocks` is asked \
               before the robot crosses, and may refuse it (`{ block = true }`)",
    },
    Spec {
        hook: Hook::Enter,
        key: "on_enter",
        listeners: &[Square, Rules],
        guard: Guard::OnBoard,
        args: &[MOVE_INFO],
        returns: "",
        when: "a robot arrived on a square (card, push, belt, script); of its elements, the \
               first that returns something ends their turn",
    },
    Spec {
        hook: Hook::CardEnd,
        key: "on_card_end",
        listeners: &[Square],
        guard: Guard::OnBoard,
        args: &[CARD, ("info", "rally.MoveInfo")],
        returns: "",
        when: "a robot finished its card on this square (also a card a script resolved)",
    },
    Spec {
        hook: Hook::Conveyed,
        key: "on_conveyed",
        listeners: &[Square],
        guard: Guard::OnBoard,
        args: &[("travel", "rally.Dir")],
        returns: "",
        when: "a belt carried a robot onto this square (before `on_enter`)",
    },
    Spec {
        hook: Hook::Push,
        key: "on_push",
        listeners: &[Rules, Options],
        guard: Guard::Always,
        args: &[("other", "rally.Robot"), ("info", "rally.PushInfo")],
        returns: "",
        when: "a robot pushed another one square: the rules (robot: the pusher), then the \
               pusher's options, then the pushed robot's (`info.pushing` says which)",
    },
    Spec {
        hook: Hook::Rotate,
        key: "on_rotate",
        listeners: &[Rules, Options],
        guard: Guard::Always,
        args: &[("info", "rally.RotateInfo")],
        returns: "(rally.Rotation|false|nil)",
        when: "a robot is about to turn; a rotation replaces the turn for the next listener, \
               false ends the hook (it does not turn)",
    },
    Spec {
        hook: Hook::Damage,
        key: "on_damage",
        listeners: &[Options, Rules],
        guard: Guard::OnBoard,
        args: &[("amount", "integer"), ("info", "rally.DamageInfo")],
        returns: "integer|nil",
        when: "a robot is about to take damage; each listener sees the amount the ones before \
               left, and none is asked once it is 0",
    },
    Spec {
        hook: Hook::Destroyed,
        key: "on_destroyed",
        listeners: &[Rules],
        guard: Guard::Destroyed,
        args: &[],
        returns: "",
        when: "a robot was destroyed (told after the card or step that destroyed it)",
    },
    Spec {
        hook: Hook::Reenter,
        key: "on_reenter",
        listeners: &[Rules],
        guard: Guard::Always,
        args: &[],
        returns: "",
        when: "a destroyed robot re-entered the board",
    },
    Spec {
        hook: Hook::Deal,
        key: "on_deal",
        listeners: &[Rules, Options, Square],
        guard: Guard::OnBoard,
        args: &[],
        returns: "",
        when: "programming time: a robot was dealt its hand (`ctx:hand`)",
    },
    Spec {
        hook: Hook::Program,
        key: "on_program",
        listeners: &[Rules, Options, Square],
        guard: Guard::OnBoard,
        args: &[],
        returns: "",
        when: "programming time: a robot's program is set (`ctx:hand` holds the leftovers)",
    },
    Spec {
        hook: Hook::Modify,
        key: "modify",
        listeners: &[Options],
        guard: Guard::Always,
        args: &[],
        returns: "",
        when: "`modify.KEY`: the core or a script asks what the robot's options make of a \
               value (`hand_size`, `reentry_damage`, `main_laser`); each gets the value the \
               ones before left",
    },
    Spec {
        hook: Hook::Shot,
        key: "shot",
        listeners: &[Options],
        guard: Guard::Always,
        args: &[],
        returns: "",
        when: "the robot's main laser would hit a robot: each option's `shot.can`, then \
               `shot.advise` until one advises; the chosen option's `shot.fire` after the volley",
    },
];

impl Hook {
    /// The hook's row of [`HOOKS`].
    pub fn spec(self) -> &'static Spec {
        HOOKS
            .iter()
            .find(|s| s.hook == self)
            .expect("every hook has a row")
    }

    pub fn key(self) -> &'static str {
        self.spec().key
    }

    /// The hooks a handler passed by key (`on_card = function ...`) answers: those but the
    /// step, modify and shot tables.
    pub fn events() -> impl Iterator<Item = &'static Spec> {
        HOOKS
            .iter()
            .filter(|s| !matches!(s.hook, Hook::Step | Hook::Modify | Hook::Shot))
    }

    /// The event hooks a kind of listener hears: the `on_*` keys its declaration accepts.
    pub fn heard_by(listener: Listener) -> impl Iterator<Item = &'static Spec> {
        Hook::events().filter(move |s| s.listeners.contains(&listener))
    }
}

impl Spec {
    /// The LuaLS type of a handler of this hook for `listener` (`fun(ctx: rally.Ctx, ...)`).
    pub fn signature(&self, listener: Listener) -> String {
        let params: Vec<String> = self
            .typed(listener)
            .iter()
            .map(|(n, t)| format!("{n}: {t}"))
            .collect();
        let returns = if self.returns.is_empty() {
            String::new()
        } else {
            format!(": {}", self.returns)
        };
        format!("fun({}){returns}", params.join(", "))
    }
}

impl Spec {
    /// The names of a handler's parameters for `listener` (`rally check` compares them).
    pub fn params(&self, listener: Listener) -> Vec<&'static str> {
        self.typed(listener).iter().map(|(n, _)| *n).collect()
    }

    /// A handler's parameters for `listener`, `(name, LuaLS type)`: `ctx`, a square's tile,
    /// the robot, the hook's own, an option's held card.
    fn typed(&self, listener: Listener) -> Vec<(&'static str, &'static str)> {
        let mut params = vec![("ctx", "rally.Ctx")];
        if listener == Square {
            params.push(("tile", "rally.Tile"));
        }
        params.push(("robot", "rally.Robot"));
        params.extend_from_slice(self.args);
        if listener == Options {
            params.push(("option", "rally.HeldOption"));
        }
        params
    }
}

/// The table as docs/scripting.md shows it (tests/hooks.rs keeps the two the same).
pub fn markdown() -> String {
    let mut out =
        String::from("| hook | heard by, in order | asked | when |\n| --- | --- | --- | --- |\n");
    for s in &HOOKS {
        let listeners: Vec<&str> = s.listeners.iter().map(|l| l.describe()).collect();
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            s.key,
            listeners.join(" → "),
            s.guard.describe(),
            s.when.split_whitespace().collect::<Vec<_>>().join(" ")
        ));
    }
    out
}
