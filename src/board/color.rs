//! The two colours of stones. Its own file because the board, its line patterns and
//! its rule all need it and none of them should need the others for it.

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Color {
    Black,
    White,
}

impl Color {
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}
