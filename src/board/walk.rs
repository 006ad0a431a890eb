//! Walking distances to a flag: how many squares a robot must walk, ignoring belts and other
//! robots, from every square of the board. A fact of the board alone, so a board computes
//! each flag's map once, the first time it is asked (`Board::walk_to`), and every bot,
//! re-entry advice and simulated game on that board shares it.

use super::Board;
use crate::geometry::{Dir, Pos};

/// Distance given to squares from which the flag cannot be reached on foot.
pub const FAR: i32 = 100;

#[derive(Clone, Debug)]
pub struct Walk {
    width: i32,
    height: i32,
    dist: Vec<i32>,
}

impl Walk {
    /// Breadth-first search outwards from the flag over squares a robot may stand on.
    pub(super) fn new(board: &Board, flag: Pos) -> Walk {
        let index = |p: Pos| (p.y * board.width + p.x) as usize;
        let mut dist = vec![FAR; (board.width * board.height) as usize];
        let mut queue = std::collections::VecDeque::from([flag]);
        dist[index(flag)] = 0;
        while let Some(p) = queue.pop_front() {
            for d in Dir::ALL {
                let q = p.step(d);
                if board.contains(q)
                    && !board.is_hazard(q)
                    && dist[index(q)] == FAR
                    && board.robot_can_cross(q, d.opposite())
                {
                    dist[index(q)] = dist[index(p)] + 1;
                    queue.push_back(q);
                }
            }
        }
        Walk {
            width: board.width,
            height: board.height,
            dist,
        }
    }

    /// Squares to walk from `p` (`FAR` off the board or where the flag cannot be reached).
    pub fn at(&self, p: Pos) -> i32 {
        if p.x >= 0 && p.y >= 0 && p.x < self.width && p.y < self.height {
            self.dist[(p.y * self.width + p.x) as usize]
        } else {
            FAR
        }
    }

    /// Quarter turns needed to face a direction that leads one square nearer the flag from
    /// `p` (0 on the flag, or where no direction does).
    pub fn turn_cost(&self, board: &Board, p: Pos, facing: Dir) -> u32 {
        let here = self.at(p);
        Dir::ALL
            .into_iter()
            .filter(|&d| board.robot_can_cross(p, d) && self.at(p.step(d)) < here)
            .map(|d| {
                let diff = (d.index() + 4 - facing.index()) % 4;
                diff.min(4 - diff) as u32
            })
            .min()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::FAR;
    use crate::board::file::{Layout, Origin, Placement};
    use crate::board::params::ParamSpecs;
    use crate::board::{Blocking, Board, Catalogue, Facts, Tile};
    use crate::geometry::{Dir, Pos};

    /// Three elements: a flag, a wall on the east side and a pit.
    struct Plain(ParamSpecs);

    impl Catalogue for Plain {
        fn element(&self, name: &str) -> Result<(usize, &ParamSpecs), String> {
            let index = ["flag", "wall_e", "pit"].iter().position(|e| *e == name);
            index.map(|i| (i, &self.0)).ok_or(format!("no {name}"))
        }
        fn build(&self, _: usize, tile: &Tile, facts: &mut Facts) -> crate::error::Result<()> {
            match tile.name.as_str() {
                "flag" => facts.flags.push((1, tile.at)),
                "wall_e" => facts.add_wall(
                    tile.at,
                    Dir::E,
                    Blocking {
                        robots_out: true,
                        robots_in: true,
                        ..Blocking::default()
                    },
                ),
                _ => facts.set_hazard(tile.at),
            }
            Ok(())
        }
    }

    fn board(width: i32, height: i32, placed: &[(&str, i32, i32)]) -> Board {
        let placements = placed
            .iter()
            .map(|&(element, x, y)| Placement {
                element: element.into(),
                at: Pos::new(x, y),
                params: toml::Table::new(),
                quarter_turns: 0,
                origin: Origin {
                    file: "test".into(),
                    line: 1,
                    column: 1,
                },
                context: None,
            })
            .collect();
        let layout = Layout {
            name: "test".into(),
            description: String::new(),
            width,
            height,
            placements,
            files: Vec::new(),
            parts: Vec::new(),
        };
        Board::compile(&layout, &Plain(ParamSpecs::new())).unwrap()
    }

    #[test]
    fn distances_go_round_walls_and_not_over_pits_and_are_computed_once() {
        // Flag at [0, 0]; a wall east of [1, 0]; a pit at [3, 1].
        //   F . | .
        //   . . . P
        let board = board(4, 2, &[("flag", 0, 0), ("wall_e", 1, 0), ("pit", 3, 1)]);
        let walk = board.walk_to(Pos::new(0, 0));
        let row = |y| (0..4).map(|x| walk.at(Pos::new(x, y))).collect::<Vec<_>>();
        assert_eq!(row(0), [0, 1, 4, 5], "round the wall");
        assert_eq!(row(1), [1, 2, 3, FAR]);
        assert_eq!(walk.at(Pos::new(-1, 0)), FAR, "off the board");
        // From [1, 1] the way is north or west: facing W costs nothing, E two quarter turns.
        assert_eq!(walk.turn_cost(&board, Pos::new(1, 1), Dir::W), 0);
        assert_eq!(walk.turn_cost(&board, Pos::new(1, 1), Dir::S), 1);
        assert_eq!(walk.turn_cost(&board, Pos::new(1, 0), Dir::E), 2);
        assert_eq!(
            walk.turn_cost(&board, Pos::new(0, 0), Dir::E),
            0,
            "on the flag"
        );
        assert!(
            std::ptr::eq(walk, board.walk_to(Pos::new(0, 0))),
            "computed once"
        );
    }
}
