//! Game records in SGF, as c-gomoku-cli writes them: one game tree per game, the rule in
//! `RU` (a Gomocup rule mask), the board size in `SZ`, the result in `RE` (`B+…`,
//! `W+…`, anything else a draw) and the moves as `B[..]`/`W[..]` nodes with letter
//! coordinates from `a`. The syntax (escapes, brackets inside values, whitespace,
//! several games in one file) is read by the `sgf-parse` crate; this module only turns
//! its nodes into [`Game`]s.

use crate::board::Color;
use crate::rules::RuleSetting;
use anyhow::{Context, bail};
use sgf_parse::unknown_game::Prop;
use sgf_parse::{GameTree, SgfNode};

/// One game: rule, board size, moves (x, y) from the empty board, winner.
#[derive(Debug, PartialEq)]
pub struct Game {
    pub setting: RuleSetting,
    pub size: usize,
    pub moves: Vec<(usize, usize)>,
    pub winner: Option<Color>,
}

/// Every game of an SGF collection, in file order; the first unreadable game is an
/// error that names it.
pub fn read_games(text: &str) -> anyhow::Result<Vec<Game>> {
    let trees = sgf_parse::parse(text).context("not a readable SGF collection")?;
    trees
        .iter()
        .enumerate()
        .map(|(index, tree)| read_game(tree).with_context(|| format!("game {}", index + 1)))
        .collect()
}

fn read_game(tree: &GameTree) -> anyhow::Result<Game> {
    let root = match tree {
        GameTree::Unknown(root) => root,
        // A tree without GM counts as Go; its nodes read the same way.
        GameTree::GoGame(_) => bail!("a Go record (GM[1]); Gomoku records have GM[4]"),
    };
    let rule: u64 = match root.get_property("RU") {
        Some(Prop::RU(text)) => text.text.trim().parse().context("RU is not a number")?,
        _ => 0,
    };
    let setting =
        RuleSetting::from_mask(rule).with_context(|| format!("unknown rule RU[{rule}]"))?;
    let size = match root.get_property("SZ") {
        Some(Prop::SZ((width, height))) if width == height => usize::from(*width),
        Some(Prop::SZ((width, height))) => bail!("board {width}x{height} is not square"),
        _ => bail!("no board size (SZ)"),
    };
    let winner = match root.get_property("RE") {
        Some(Prop::RE(text)) if text.text.starts_with("B+") => Some(Color::Black),
        Some(Prop::RE(text)) if text.text.starts_with("W+") => Some(Color::White),
        _ => None,
    };
    let moves = root
        .main_variation()
        .filter_map(SgfNode::get_move)
        .map(|prop| match prop {
            Prop::B(point) | Prop::W(point) => point_of(point),
            other => bail!("unexpected move property {other}"),
        })
        .collect::<anyhow::Result<_>>()?;
    Ok(Game {
        setting,
        size,
        moves,
        winner,
    })
}

/// `hh` → (7, 7).
fn point_of(text: &str) -> anyhow::Result<(usize, usize)> {
    let coordinate = |c: u8| c.is_ascii_lowercase().then(|| usize::from(c - b'a'));
    match text.as_bytes() {
        &[x, y] => match (coordinate(x), coordinate(y)) {
            (Some(x), Some(y)) => Ok((x, y)),
            _ => bail!("bad move '{text}'"),
        },
        _ => bail!("bad move '{text}'"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    /// Two games as c-gomoku-cli writes them: an opening played from a file (marked as
    /// such), a draw, and an engine name with the characters the old reader split on.
    const RECORD: &str = "(;FF[4]GM[4]GN[1]EV[a;b x c(d)]DT[2026.12.05 10:00:00]RO[1.1]RU[4]SZ[15]\
        PB[a;b]PW[c(d)]RE[W+1]TE[White win]\n\
        ;B[hh]C[opening move];W[ih]C[1ms];B[hi]C[5ms]\n;W[ii]C[3ms])\n\n\
        (;FF[4]GM[4]RU[0]SZ[20]RE[0]\n;B[kk];W[ll])\n";

    #[test]
    fn reads_rule_size_moves_and_result() {
        let games = read_games(RECORD).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].setting.rule, Rule::Renju);
        assert_eq!(games[0].size, 15);
        assert_eq!(games[0].moves, vec![(7, 7), (8, 7), (7, 8), (8, 8)]);
        assert_eq!(games[0].winner, Some(Color::White));
        assert_eq!(games[1].setting.rule, Rule::Freestyle);
        assert_eq!(games[1].moves, vec![(10, 10), (11, 11)]);
        assert_eq!(games[1].winner, None);
    }

    #[test]
    fn broken_records_are_refused_with_the_game_named() {
        let error = |text: &str| format!("{:#}", read_games(text).unwrap_err());
        assert!(error("(;GM[4]SZ[15];B[h])").contains("bad move 'h'"));
        assert!(error("(;GM[4]SZ[15];B[hh])(;GM[4];B[hh])").starts_with("game 2: no board size"));
        assert!(error("(;GM[4]RU[5]SZ[15])").contains("unknown rule"));
        assert!(error("(;GM[4]SZ[15];B[hh]").contains("not a readable SGF"));
    }
}
