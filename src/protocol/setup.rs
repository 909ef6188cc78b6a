//! Positions set up whole: BOARD/YXBOARD (stones by owner) and SWAP2BOARD (stones in
//! move order). Each fills an empty board or says why it cannot.

use super::parse::Coord;
use crate::board::{Board, Cell, Color, Pos};
use crate::rules::Rule;

pub fn empty_point(board: &Board, at: Coord) -> Result<Pos, String> {
    let pos = board
        .pos(at.x, at.y)
        .ok_or_else(|| format!("{at} is off the {}x{} board", board.width(), board.height()))?;
    if board.is_empty(pos) {
        Ok(pos)
    } else {
        Err(format!("{at} is already occupied"))
    }
}

/// Fills an empty board from BOARD lines: field 1 the engine's stones, 2 the opponent's,
/// 3 a stone of nobody's. The engine is to move: Black with as many stones as the
/// opponent, White with one fewer (any other count is refused only under renju).
pub fn set_up_position(
    board: &mut Board,
    stones: &[(Coord, Option<i64>)],
    rule: Rule,
) -> Result<(), String> {
    let count = |field| stones.iter().filter(|(_, f)| *f == Some(field)).count();
    let (own, opponent) = (count(1), count(2));
    let own_color = if own == opponent {
        Color::Black
    } else if own + 1 == opponent {
        Color::White
    } else if rule == Rule::Renju {
        return Err(format!(
            "{own} own and {opponent} opponent stones cannot occur under renju"
        ));
    } else if own < opponent {
        Color::White
    } else {
        Color::Black
    };
    for &(at, field) in stones {
        let cell = match field {
            Some(1) => Cell::Stone(own_color),
            Some(2) => Cell::Stone(own_color.opponent()),
            Some(3) => Cell::Wall,
            Some(other) => return Err(format!("stone {at}: field {other} is not 1, 2 or 3")),
            None => return Err(format!("stone {at}: the field X,Y,F is missing")),
        };
        let pos = empty_point(board, at).map_err(|e| format!("stone {e}"))?;
        board.put(pos, cell);
    }
    board.set_to_move(own_color);
    Ok(())
}

/// Fills an empty board from SWAP2BOARD lines: stones in move order, Black first; a
/// field, if given, is ignored since the order fixes the colours.
pub fn set_up_swap2(board: &mut Board, stones: &[(Coord, Option<i64>)]) -> Result<(), String> {
    if ![0, 3, 5].contains(&stones.len()) {
        return Err(format!(
            "{} stones: swap2 positions have 0, 3 or 5",
            stones.len()
        ));
    }
    for &(at, _) in stones {
        let pos = empty_point(board, at).map_err(|e| format!("stone {e}"))?;
        board.play(pos);
    }
    Ok(())
}
