//! The tree below the root: principal-variation search with the table, pruning,
//! reductions and extensions, and the quiescence at its leaves.

use super::common::*;
use super::ordering::{self, Situation};
use super::params::*;
use super::tt::{Bound, Hit};
use super::vcf::{Budget, Vcf};
use super::worker::{MoveLists, Search};
use crate::board::pattern::Threat;
use crate::board::{Color, Pos};

impl Search<'_> {
    /// Principal-variation search, fail-soft, from the side to move's view; `depth` is in
    /// units of [`ONE_PLY`].
    pub(super) fn pvs(&mut self, depth: i32, alpha: i32, beta: i32, ply: usize) -> i32 {
        // Each ply reuses its own move list instead of allocating one per node.
        let mut lists = std::mem::take(&mut self.move_lists[ply]);
        let score = self.pvs_node(&mut lists, depth, alpha, beta, ply);
        self.move_lists[ply] = lists;
        score
    }

    pub(super) fn pvs_node(
        &mut self,
        lists: &mut MoveLists,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        let MoveLists { moves, scored } = lists;
        self.nodes += 1;
        self.pv[ply].clear();
        self.poll();
        if self.stopped {
            return 0;
        }
        // Mate distance pruning: no line from here wins sooner than the next move, nor
        // loses sooner than the opponent's next; a window beyond both is already decided.
        let alpha = alpha.max(lost_after_next_move(ply));
        let beta = beta.min(win_next_move(ply));
        if alpha >= beta {
            return alpha;
        }
        let threatened = ordering::threatened(&self.board);
        // A quiet leaf needs no move list: nothing forces a reply, so the quiescence
        // search decides.
        if depth <= 0 && ply < MAX_PLY - 2 && !threatened {
            return self.quiesce(ply, alpha, beta);
        }
        // A null window only tests a bound: it may be cut short, pruned and reduced.
        let null_window = beta - alpha == 1;
        let key = self.board.hash();
        // A search that leaves a move out is not the node's own: the table neither
        // answers it nor keeps its result.
        let excluded = self.excluded[ply];
        let hit = if excluded.is_some() {
            None
        } else {
            self.tt.probe(key, ply)
        };
        if let Some(hit) = hit
            && hit.depth >= depth
            && null_window
        {
            let cutoff = match hit.bound {
                Bound::Exact => true,
                Bound::Lower => hit.score >= beta,
                Bound::Upper => hit.score <= alpha,
            };
            if cutoff {
                return hit.score;
            }
        }
        // Step 1. Static score (none when a threat forces the moves).
        let static_eval = self.static_eval(threatened, alpha, beta);
        self.static_evals[ply] = static_eval;
        // Step 2. Futility pruning and razoring, decided before the move list is built,
        // which a pruned node never needs.
        if null_window
            && depth > 0
            && !is_mate(beta)
            && excluded.is_none()
            && let Some(static_eval) = static_eval
            && let Some(score) = self.prune_shallow(static_eval, depth, alpha, beta, ply)
        {
            return score;
        }
        let situation = ordering::generate(&mut self.board, moves);
        match situation {
            Situation::Win(_) => return win_next_move(ply),
            Situation::Lost => return lost_after_next_move(ply),
            _ if moves.is_empty() => return 0,
            _ => {}
        }
        let mut holding = situation.holding(moves.len());
        if let Some(excluded) = excluded {
            ordering::take_out(moves, excluded, &mut holding);
            // The left-out move was the only one: it is singular.
            if moves.is_empty() {
                return alpha;
            }
        }
        if ply >= MAX_PLY - 2 {
            return self.evaluate();
        }
        // Step 3. Forced-reply extension: a single holding reply costs no depth.
        let forced = holding == 1;
        if depth <= 0 && !forced {
            return self.quiesce(ply, alpha, beta);
        }
        let color = self.board.to_move();
        let me = color.index();
        // The moves after one that raised alpha keep this depth.
        let child_depth = if forced { depth } else { depth - ONE_PLY };
        // Step 4. Fail-high reduction: far above beta, a null-window node most likely
        // fails high whatever it plays, so its moves that make no four go a ply
        // shallower.
        let likely_fail_high = null_window
            && static_eval.is_some_and(|score| score >= beta + per_depth(FAIL_HIGH_MARGIN, depth));
        let count = moves.len();
        // A node with one holding move is extended already: it has no choice to test.
        let choices = holding;
        // The table's move goes first, before the others are scored: it often cuts off
        // alone, and scoring every candidate costs more than searching it.
        // Taken out of `moves`, keeping the holding moves in front, if it is one of them.
        let hash_move = hit
            .and_then(|h| h.best)
            .filter(|&m| ordering::take_out(moves, m, &mut holding));
        // Step 5. Move-count pruning: quiet positions search only their most promising
        // moves, fewer the shallower a null-window node is; forced ones their holding
        // moves (and the table's).
        let breadth = match situation {
            Situation::Open if null_window && self.improving(ply) => quiet_breadth(depth),
            Situation::Open if null_window => quiet_breadth(depth).div_ceil(2),
            Situation::Open => MAX_QUIET_BREADTH,
            _ => holding + usize::from(hash_move.is_some()),
        }
        .min(count);
        let mut extended = None;
        if let (Some(hit), Some(hash_move)) = (hit, hash_move)
            && self.singular_candidate(&hit, depth, choices, ply)
        {
            let singular_beta = hit.score - per_depth(SINGULAR_MARGIN, depth);
            self.excluded[ply] = Some(hash_move);
            let others = self.pvs(
                plies(whole_plies(depth) / 2),
                singular_beta - 1,
                singular_beta,
                ply,
            );
            self.excluded[ply] = None;
            if self.stopped {
                return 0;
            }
            if others < singular_beta {
                extended = Some(hash_move);
            } else if singular_beta >= beta {
                // Even without the table's move the node fails high.
                return singular_beta;
            }
        }
        let mut scored_yet = false;
        let (original_alpha, mut alpha) = (alpha, alpha);
        let mut best = -INFINITY;
        let mut best_move = None;
        for i in 0..count {
            // Past the breadth only while every move so far loses.
            if i >= breadth && best > -MATE_BOUND {
                break;
            }
            let pos = match hash_move {
                Some(hash_move) if i == 0 => hash_move,
                _ => {
                    if !scored_yet {
                        let history = &self.history[me];
                        let killers = &self.killers[ply];
                        ordering::score(&self.board, moves, holding, killers, history, scored);
                        scored_yet = true;
                    }
                    ordering::pick(scored, i - usize::from(hash_move.is_some()))
                }
            };
            let threat = self.board.threat(pos, color);
            let reduction =
                if situation == Situation::Open && i >= LMR_FIRST_MOVE && threat < Threat::Flex3 {
                    late_move_reduction(depth, i)
                } else {
                    0
                };
            let move_depth = if extended == Some(pos) {
                child_depth + ONE_PLY
            } else if likely_fail_high && !threat.makes_four() {
                child_depth - ONE_PLY
            } else {
                child_depth
            };
            self.play(pos);
            let score = if i == 0 {
                -self.pvs(move_depth, -beta, -alpha, ply + 1)
            } else {
                let reduced = move_depth - reduction;
                let mut probe = -self.pvs(reduced, -alpha - 1, -alpha, ply + 1);
                if reduced < move_depth && probe > alpha && !self.stopped {
                    probe = -self.pvs(move_depth, -alpha - 1, -alpha, ply + 1);
                }
                if probe > alpha && probe < beta && !self.stopped {
                    -self.pvs(move_depth, -beta, -alpha, ply + 1)
                } else {
                    probe
                }
            };
            self.undo();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(pos);
                if score > alpha {
                    alpha = score;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(pos);
                    head[ply].extend_from_slice(&tail[0]);
                    if alpha >= beta {
                        self.reward(pos, depth, ply);
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if excluded.is_none() {
            self.tt
                .store(key, ply, depth.max(0), best, bound, best_move);
        }
        best
    }

    /// Whether the table's move at this node is worth testing for singularity: the
    /// node is deep enough, has a choice among `choices` moves, and its entry is exact or
    /// a lower bound, deep enough to trust, short of a mate; and extensions have not yet
    /// doubled the iteration's depth.
    pub(super) fn singular_candidate(
        &self,
        hit: &Hit,
        depth: i32,
        choices: usize,
        ply: usize,
    ) -> bool {
        depth >= plies(SINGULAR_DEPTH)
            && choices > 1
            && hit.bound != Bound::Upper
            && hit.depth >= depth - plies(SINGULAR_ENTRY_SLACK)
            && !is_mate(hit.score)
            && (ply as i32) < 2 * self.root_depth
    }

    /// A quiet null-window node near the leaves whose static score is far from the
    /// window: far above beta with no opponent attack brewing, that score stands
    /// (futility pruning); far below alpha with no attack of our own, only the leaf's
    /// threat search could save it (razoring). The static score, not the table's: see
    /// `docs/experiments.md`.
    pub(super) fn prune_shallow(
        &mut self,
        score: i32,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> Option<i32> {
        if depth > plies(FUTILITY_DEPTH) {
            return None;
        }
        let me = self.board.to_move();
        if score - per_depth(FUTILITY_MARGIN, depth) >= beta && !self.attack_brewing(me.opponent())
        {
            return Some(score);
        }
        if depth <= plies(RAZOR_DEPTH)
            && score + per_depth(RAZOR_MARGIN, depth) < alpha
            && !self.attack_brewing(me)
        {
            return Some(self.quiesce(ply, alpha, beta));
        }
        None
    }

    /// Whether the static score of the node at `ply` rose since the side to move last
    /// moved; true when either score is unknown. A node that is not improving is less
    /// likely to need its later moves.
    pub(super) fn improving(&self, ply: usize) -> bool {
        match (self.static_evals[ply], ply.checked_sub(2)) {
            (Some(now), Some(before)) => self.static_evals[before].is_none_or(|b| now > b),
            _ => true,
        }
    }

    /// Whether `color` has a point making an open four, a double four, a four-three or
    /// a double three: a static score does not see where those lead.
    pub(super) fn attack_brewing(&self, color: Color) -> bool {
        [
            Threat::Flex4,
            Threat::Block4Plus,
            Threat::Block4Flex3,
            Threat::Flex3x2,
        ]
        .iter()
        .any(|&t| self.board.threat_count(color, t) > 0)
    }

    /// A cutoff move becomes a killer and earns history.
    pub(super) fn reward(&mut self, pos: Pos, depth: i32, ply: usize) {
        let killers = &mut self.killers[ply];
        if killers[0] != Some(pos) {
            killers[1] = killers[0];
            killers[0] = Some(pos);
        }
        let me = self.board.to_move().index();
        let entry = &mut self.history[me][pos.index()];
        let reward = whole_plies(depth).pow(2);
        *entry = (*entry + reward).min(1 << 18);
    }

    /// The leaf: an unstoppable four or a short VCF wins; otherwise the static score.
    /// No fours are played here besides the VCF's: it already finds what matters. A
    /// four-three point's weight assumes it wins, yet here it counts only when the VCF
    /// found none from it (a counter-four answers it, or a foul spoils Black's three).
    /// `alpha..beta` is the window its score will be compared with.
    pub(super) fn quiesce(&mut self, ply: usize, alpha: i32, beta: i32) -> i32 {
        let me = self.board.to_move();
        if ordering::has_winning_four(&mut self.board, me).is_some() {
            return win_next_move(ply + 2);
        }
        let has_fours = self.board.four_points(me).iter().next().is_some();
        if has_fours
            && self.board.threat_count(me.opponent(), Threat::Flex4) + self.four_threes(me) > 0
        {
            let never = || false;
            let mut vcf = Vcf::new(self.vcf_cache, Budget::new(LEAF_VCF_NODES, &never));
            let win = vcf.find(&mut self.board, LEAF_VCF_FOURS);
            self.nodes += vcf.budget.nodes();
            if let Some(win) = win {
                return MATE - (ply + win.plies) as i32;
            }
        }
        // A double three with no opponent four to interpose almost always wins (Black
        // has none under renju, see `Threat::classify`).
        let double_three = self.board.threat_count(me, Threat::Flex3x2) > 0;
        if double_three && self.board.four_points(me.opponent()).is_empty() {
            let bonus = DOUBLE_THREE_BONUS;
            return self.leaf_score(alpha - bonus, beta - bonus) + bonus;
        }
        self.leaf_score(alpha, beta)
    }

    /// Four-three points of `color`, from which a VCF is likely. A four beside a lesser
    /// line (`Block4Plus`) is common on a crowded board and rarely leads to one: leaf
    /// VCFs started for it spent their whole budget in vain.
    pub(super) fn four_threes(&self, color: Color) -> u16 {
        self.board.threat_count(color, Threat::Block4Flex3)
    }
}
