//! The root: answers that need no search (a win at once, a forced or lost position,
//! a threat-search win), iterative deepening with aspiration windows, the root move
//! loop, and the check that the chosen move leaves the opponent no threat win.

use super::common::*;
use super::ordering::{self, Situation};
use super::params::*;
use super::smp::{Finished, elect};
use super::vcf::{self, Budget, Vcf};
use super::vct::Vct;
use super::worker::{Search, interruption};
use crate::board::Pos;
use crate::move_values;
use crate::rules;

pub(super) struct RootMove {
    pub(super) pos: Pos,
    pub(super) score: i32,
    pub(super) pv: Vec<Pos>,
}

impl Search<'_> {
    /// The main thread's search. `finish_helpers` stops the helper threads and returns
    /// their last finished iterations, once the main iterations are over.
    pub(super) fn run(
        &mut self,
        count: usize,
        reporter: &mut dyn Reporter,
        finish_helpers: &mut dyn FnMut() -> Vec<Finished>,
    ) -> (Vec<ScoredMove>, Option<Pos>) {
        let mut roots = match self.root_moves(count, reporter) {
            Ok(roots) => roots,
            Err(answer) => return (answer, None),
        };
        let (depth, score) = self.deepen(&mut roots, 1, count, reporter);
        let mut votes = finish_helpers();
        if depth > 0 {
            votes.push(Finished {
                pos: roots[0].pos,
                score,
                depth,
            });
        }
        if let Some(elected) = elect(&votes)
            && elected.pos != roots[0].pos
            && let Some(i) = roots.iter().position(|r| r.pos == elected.pos)
        {
            roots[..=i].rotate_right(1);
            roots[0].score = elected.score;
        }
        if count == 1 && !is_mate(roots[0].score) {
            self.avoid_opponent_vct(&mut roots);
        }
        // A move no iteration has scored (the search was stopped first) gets the static
        // score of the position.
        let unsearched = self.evaluate();
        let moves = roots
            .iter()
            .take(count.max(1))
            .map(|r| ScoredMove {
                pos: r.pos,
                score: if r.score == -INFINITY {
                    unsearched
                } else {
                    r.score
                },
            })
            .collect();
        (moves, roots[0].pv.get(1).copied())
    }

    /// A helper thread's search: iterative deepening from `first_depth`, reporting to no
    /// one, until stopped. Its last finished iteration, if any.
    pub(super) fn help(&mut self, first_depth: i32) -> Option<Finished> {
        let mut moves = Vec::new();
        let situation = self.root_situation(&mut moves);
        if !matches!(situation, Situation::Forced { .. } | Situation::Open) || moves.len() < 2 {
            return None;
        }
        let mut roots = self.ordered_roots(&moves, situation.holding(moves.len()));
        let (depth, score) = self.deepen(&mut roots, first_depth, 1, &mut Silent);
        (depth > 0).then(|| Finished {
            pos: roots[0].pos,
            score,
            depth,
        })
    }

    /// The root moves in their static order, or (`Err`) the answer when no search is
    /// needed: a forced or lost position, a single move, or a threat-search win.
    pub(super) fn root_moves(
        &mut self,
        count: usize,
        reporter: &mut dyn Reporter,
    ) -> Result<Vec<RootMove>, Vec<ScoredMove>> {
        let mut moves = Vec::new();
        let situation = self.root_situation(&mut moves);
        match situation {
            Situation::Win(pos) => {
                return Err(self.immediate(reporter, pos, MATE - 1));
            }
            // Lost anyway: block what can be blocked, or play anything legal.
            Situation::Lost => {
                let pos = self
                    .legal_block()
                    .or_else(|| move_values::best_static_move(&mut self.board).map(|m| m.0));
                return Err(match pos {
                    Some(pos) => self.immediate(reporter, pos, -(MATE - 2)),
                    None => Vec::new(),
                });
            }
            Situation::Forced { .. } | Situation::Open => {}
        }
        if moves.is_empty() {
            return Err(Vec::new());
        }
        if moves.len() == 1 && count == 1 {
            let score = self.evaluate();
            return Err(self.immediate(reporter, moves[0], score));
        }
        if count == 1
            && let Some(win) = self.root_vcf()
            && !self.limits.blocked.contains(&win.line[0])
        {
            let score = MATE - win.plies as i32;
            reporter.progress(&self.progress(1, score, win.line.clone()));
            return Err(vec![ScoredMove {
                pos: win.line[0],
                score,
            }]);
        }
        if count == 1
            && let Some(pos) = self.root_vct()
            && !self.limits.blocked.contains(&pos)
        {
            reporter.progress(&self.progress(1, VCT_WIN, vec![pos]));
            return Err(vec![ScoredMove {
                pos,
                score: VCT_WIN,
            }]);
        }
        Ok(self.ordered_roots(&moves, situation.holding(moves.len())))
    }

    /// [`ordering::generate`] at the root, less the moves the caller blocked: a blocked
    /// five point wins nothing, and when blocking leaves a position no move, every legal
    /// candidate that is not blocked is searched instead.
    fn root_situation(&mut self, moves: &mut Vec<Pos>) -> Situation {
        let situation = ordering::generate(&mut self.board, moves);
        let blocked = &self.limits.blocked;
        if blocked.is_empty() {
            return situation;
        }
        let me = self.board.to_move();
        if let Situation::Win(_) = situation {
            let fives = self.board.five_points(me);
            if let Some(win) = fives.iter().find(|p| !blocked.contains(p)) {
                return Situation::Win(win);
            }
        }
        let holding = ordering::retain(moves, situation.holding(moves.len()), |p| {
            !blocked.contains(&p)
        });
        if !moves.is_empty() {
            match situation {
                // With every holding move blocked, the others are all there is.
                Situation::Forced { .. } if holding == 0 => {
                    return Situation::Forced {
                        holding: moves.len(),
                    };
                }
                Situation::Forced { .. } => return Situation::Forced { holding },
                Situation::Open => return situation,
                _ => {}
            }
        }
        moves.clear();
        move_values::add_candidate_points(&self.board, moves);
        if moves.iter().all(|p| blocked.contains(p)) {
            moves.clear();
            moves.extend(self.board.empty_points());
        }
        let board = &mut self.board;
        moves.retain(|&p| !blocked.contains(&p) && rules::is_legal(board, p, me));
        Situation::Open
    }

    /// `moves` as root moves, the first `holding` (see [`Situation::Forced`]) in front.
    pub(super) fn ordered_roots(&self, moves: &[Pos], holding: usize) -> Vec<RootMove> {
        let mut order = moves.to_vec();
        let history = &self.history[self.board.to_move().index()];
        ordering::order(&self.board, &mut order, holding, history);
        order
            .into_iter()
            .map(|pos| RootMove {
                pos,
                score: -INFINITY,
                pv: vec![pos],
            })
            .collect()
    }

    /// Iterative deepening from `first_depth`, reporting each finished iteration; leaves
    /// `roots` best first. The last finished depth (0 if none) and its score.
    pub(super) fn deepen(
        &mut self,
        roots: &mut Vec<RootMove>,
        first_depth: i32,
        count: usize,
        reporter: &mut dyn Reporter,
    ) -> (i32, i32) {
        let max_depth = self
            .limits
            .max_depth
            .unwrap_or(MAX_DEPTH)
            .clamp(1, MAX_DEPTH) as i32;
        let (mut finished, mut best_score) = (0, 0);
        let mut widened = false;
        for depth in first_depth.min(max_depth)..=max_depth {
            let mut score = self.aspiration(roots, depth, best_score, count, reporter);
            // Every root move lost: the points the candidates leave out get their turn
            // before the loss is reported (see `ordering::far_points`).
            if score <= -MATE_BOUND && !self.stopped && !widened {
                widened = true;
                let mut far = Vec::new();
                ordering::far_points(&mut self.board, &mut far);
                far.retain(|p| !self.limits.blocked.contains(p));
                if !far.is_empty() {
                    roots.extend(far.into_iter().map(|pos| RootMove {
                        pos,
                        score: -INFINITY,
                        pv: vec![pos],
                    }));
                    score = self.aspiration(roots, depth, best_score, count, reporter);
                }
            }
            // A stopped iteration counts only at depth 1, and only once it has searched a
            // root move: before that it knows nothing, not a loss.
            if self.stopped && (depth > 1 || score == -INFINITY) {
                break;
            }
            (finished, best_score) = (depth, score);
            reporter.progress(&self.progress(depth as u32, score, roots[0].pv.clone()));
            if self.stopped || is_mate(score) || self.past_soft_deadline() {
                break;
            }
        }
        (finished, best_score)
    }

    /// One of the opponent's five points that the side to move may occupy.
    pub(super) fn legal_block(&mut self) -> Option<Pos> {
        let me = self.board.to_move();
        let fives: Vec<Pos> = self.board.five_points(me.opponent()).iter().collect();
        fives
            .into_iter()
            .find(|&p| crate::rules::is_legal(&mut self.board, p, me))
    }

    pub(super) fn immediate(
        &mut self,
        reporter: &mut dyn Reporter,
        pos: Pos,
        score: i32,
    ) -> Vec<ScoredMove> {
        reporter.progress(&self.progress(0, score, vec![pos]));
        vec![ScoredMove { pos, score }]
    }

    pub(super) fn root_vct(&mut self) -> Option<Pos> {
        let interrupted = interruption(self.limits.deadline, ROOT_VCT_TIME_PERCENT, self.stop);
        let mut vct = Vct::new(self.vcf_cache, Budget::new(ROOT_VCT_NODES, &interrupted));
        let first = vct.find(&mut self.board, ROOT_VCT_THREATS);
        self.nodes += vct.budget.nodes();
        first
    }

    /// Moves the first of the best few root moves after which the opponent has no win by
    /// threats to the front: the main search may not reach that far.
    ///
    /// When the soft budget is the whole turn (the turn alone limits, or the match clock
    /// has time to spare), the main search runs to the hard limit and leaves this check
    /// no time, so it keeps the first move; a share of the turn for it changed no move.
    pub(super) fn avoid_opponent_vct(&mut self, roots: &mut [RootMove]) {
        let interrupted = interruption(self.limits.deadline, CHECK_VCT_TIME_PERCENT, self.stop);
        for i in 0..roots.len().min(VCT_CHECKED_MOVES) {
            self.board.play(roots[i].pos);
            let budget = Budget::new(CHECK_VCT_NODES, &interrupted);
            let mut vct = Vct::new(self.vcf_cache, budget);
            let refuted = vct.find(&mut self.board, CHECK_VCT_THREATS).is_some();
            self.nodes += vct.budget.nodes();
            self.board.undo();
            if !refuted {
                roots[..=i].rotate_right(1);
                return;
            }
        }
    }

    pub(super) fn root_vcf(&mut self) -> Option<vcf::Win> {
        let interrupted = interruption(self.limits.deadline, 100, self.stop);
        let mut vcf = Vcf::new(self.vcf_cache, Budget::new(ROOT_VCF_NODES, &interrupted));
        let win = vcf.find(&mut self.board, ROOT_VCF_FOURS);
        self.nodes += vcf.budget.nodes();
        win
    }

    /// One iteration, first in a narrow window around the last score.
    pub(super) fn aspiration(
        &mut self,
        roots: &mut [RootMove],
        depth: i32,
        guess: i32,
        count: usize,
        reporter: &mut dyn Reporter,
    ) -> i32 {
        if depth >= 4 && count == 1 && !is_mate(guess) {
            let (alpha, beta) = (guess - ASPIRATION, guess + ASPIRATION);
            let score = self.root(roots, (depth, alpha, beta), count, reporter);
            if self.stopped || (score > alpha && score < beta) {
                return score;
            }
        }
        self.root(roots, (depth, -INFINITY, INFINITY), count, reporter)
    }

    /// Searches every root move; leaves `roots` sorted best first. With `count` above one
    /// every move gets a full window, so the first `count` scores are exact. If the
    /// search is stopped, the previous order stands, except that a move that has already
    /// proved better than the first goes in front.
    ///
    /// `reporter` hears each move as it is searched, and each new best or lost one.
    pub(super) fn root(
        &mut self,
        roots: &mut [RootMove],
        (depth, alpha, beta): (i32, i32, i32),
        count: usize,
        reporter: &mut dyn Reporter,
    ) -> i32 {
        let mut tell = |search: &Self, kind, pos| {
            reporter.root_event(&RootEvent {
                kind,
                pos,
                depth: depth as u32,
                elapsed: search.started.elapsed(),
            })
        };
        let previous: Vec<Pos> = roots.iter().map(|r| r.pos).collect();
        self.root_depth = depth;
        self.static_evals[0] =
            self.static_eval(ordering::threatened(&self.board), -INFINITY, INFINITY);
        let mut alpha = alpha;
        let mut best = -INFINITY;
        let mut new_best = None;
        for (i, root) in roots.iter_mut().enumerate() {
            let pos = root.pos;
            tell(self, RootEventKind::Searching, pos);
            self.play(pos);
            let score = if count > 1 {
                -self.pvs(plies(depth - 1), -INFINITY, INFINITY, 1)
            } else if i == 0 {
                -self.pvs(plies(depth - 1), -beta, -alpha, 1)
            } else {
                let probe = -self.pvs(plies(depth - 1), -alpha - 1, -alpha, 1);
                if probe > alpha && probe < beta && !self.stopped {
                    -self.pvs(plies(depth - 1), -beta, -alpha, 1)
                } else {
                    probe
                }
            };
            self.undo();
            if self.stopped {
                break;
            }
            tell(self, RootEventKind::Searched, pos);
            let raises = score > alpha;
            if score <= -MATE_BOUND {
                tell(self, RootEventKind::Lost, pos);
            } else if (raises && count == 1) || (count > 1 && score > best) {
                tell(self, RootEventKind::Best, pos);
            }
            let scored = raises || i == 0 || count > 1;
            root.score = if scored { score } else { -INFINITY };
            if scored {
                root.pv = std::iter::once(pos)
                    .chain(self.pv[1].iter().copied())
                    .collect();
            }
            best = best.max(score);
            if raises && count == 1 {
                if i > 0 {
                    new_best = Some(pos);
                }
                alpha = score;
                if alpha >= beta {
                    break;
                }
            }
        }
        if self.stopped {
            let front = new_best
                .into_iter()
                .chain(previous.into_iter().filter(|&p| Some(p) != new_best));
            let order: Vec<Pos> = front.collect();
            roots.sort_by_key(|r| order.iter().position(|&p| p == r.pos));
        } else {
            // Stable: moves that failed low keep their previous order.
            roots.sort_by_key(|r| std::cmp::Reverse(r.score));
        }
        best
    }
}
