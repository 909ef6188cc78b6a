//! The two-slot transposition table.
//!
//! Store policy, as in the seed engine's two-table design, with ages added:
//! 1. an empty first slot takes the entry;
//! 2. a first slot holding the same position is overwritten only by a deeper result,
//!    otherwise nothing is stored;
//! 3. else the second slot is treated the same way;
//! 4. else the slot with the smaller depth is overwritten, but only by a greater depth.
//!
//! An entry written by an earlier search (another generation) counts as empty in steps
//! 1, 3 and 4, so deep results from earlier moves of the game cannot crowd out the
//! current search. Because step 1 takes an empty first slot without looking at the
//! second, the same position can sit in both slots; a probe then trusts the deeper one.
//!
//! Layout: the two slots share one 32-byte bucket, two buckets to a cache line, so a
//! probe or a store touches one cache line. The seed keeps two tables with independent
//! indexes instead; that costs a second cache miss per probe for slightly better use
//! of the space. Measured (same memory, same policy, bench to depth 8): the two tables
//! saved 1.6 % of the nodes with a 64 KiB table and 0.5 % with 1 MiB, too little to
//! pay a second cache line on every probe.
//!
//! A position is found by its bucket (the low 32 key bits, by a multiply-shift) and
//! verified by a 32-bit lock (the high 32 bits): with 2^20 buckets or more, 52+ key
//! bits must agree, so a false match is negligible.
//!
//! Mate scores are stored relative to the node: the distance from the root is removed on
//! store and added back on probe.
//!
//! Search threads share one table without locks. A slot's first word is stored XORed
//! with its second word rotated by 32 bits, so a slot read while another thread writes
//! it (one word old, one new) decodes to a wrong lock and is a miss, not a trusted entry.

use super::common::MATE_BOUND;
use crate::board::Pos;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The score is exact.
    Exact,
    /// The true score is at least this (a fail-high).
    Lower,
    /// The true score is at most this (a fail-low).
    Upper,
}

/// What a probe finds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Hit {
    pub depth: i32,
    pub score: i32,
    pub bound: Bound,
    pub best: Option<Pos>,
}

/// One slot, unpacked. `meta` packs the generation (high 6 bits) and the bound (low 2
/// bits, 0 for an empty slot).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct Entry {
    lock: u32,
    score: i32,
    best: u16,
    depth: u16,
    meta: u8,
}

const NO_MOVE: u16 = u16::MAX;
const GENERATIONS: u8 = 64;

impl Entry {
    fn bound(self) -> Option<Bound> {
        match self.meta & 3 {
            1 => Some(Bound::Exact),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Upper),
            _ => None,
        }
    }

    fn generation(self) -> u8 {
        self.meta >> 2
    }

    /// Packed as two words: `lock << 32 | score`, and `depth << 32 | best << 16 | meta`.
    fn pack(self) -> [u64; 2] {
        [
            (self.lock as u64) << 32 | self.score as u32 as u64,
            (self.depth as u64) << 32 | (self.best as u64) << 16 | self.meta as u64,
        ]
    }

    fn unpack(words: [u64; 2]) -> Entry {
        Entry {
            lock: (words[0] >> 32) as u32,
            score: words[0] as u32 as i32,
            best: (words[1] >> 16) as u16,
            depth: (words[1] >> 32) as u16,
            meta: words[1] as u8,
        }
    }
}

/// Two slots of two words each: 32 bytes, two buckets to a cache line.
type Bucket = [AtomicU64; 4];

const _: () = assert!(std::mem::size_of::<Bucket>() == 32);

pub struct TranspositionTable {
    buckets: Box<[Bucket]>,
    generation: u8,
}

/// `count` empty buckets (at least one), or as many as the system grants when it refuses
/// that many (half, a quarter, …): a table too large for the machine must not end the
/// engine. Zeroed memory is an empty table, and the system hands it out lazily, so the
/// part of a table a game never reaches costs no memory.
fn zeroed_buckets(count: usize) -> Box<[Bucket]> {
    let mut count = count.max(1);
    loop {
        let layout = std::alloc::Layout::array::<Bucket>(count).ok();
        // SAFETY: the layout has a non-zero size; all-zero bytes are valid `AtomicU64`s;
        // the memory goes to a `Box` of exactly `count` buckets, which frees it with this
        // layout.
        let buckets = layout.map_or(std::ptr::null_mut(), |layout| unsafe {
            std::alloc::alloc_zeroed(layout) as *mut Bucket
        });
        if !buckets.is_null() {
            return unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(buckets, count)) };
        }
        if count == 1 {
            std::alloc::handle_alloc_error(std::alloc::Layout::new::<Bucket>());
        }
        log::warn!("no memory for a table of {count} buckets: trying half as many");
        count /= 2;
    }
}

impl TranspositionTable {
    /// A table of at most `bytes` bytes (at least one bucket).
    pub fn new(bytes: usize) -> TranspositionTable {
        TranspositionTable {
            buckets: zeroed_buckets(bytes / std::mem::size_of::<Bucket>()),
            generation: 0,
        }
    }

    pub fn size_bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Where the entries live; a clear moves them.
    #[cfg(test)]
    pub fn storage(&self) -> *const u8 {
        self.buckets.as_ptr().cast()
    }

    pub fn clear(&mut self) {
        self.buckets = zeroed_buckets(self.buckets.len());
    }

    /// How full the table is, in thousandths: the share of occupied slots among the
    /// first thousand buckets (or all, in a smaller table).
    pub fn usage_permill(&self) -> u32 {
        let sampled = self.buckets.len().min(1000);
        let used: usize = (0..sampled)
            .map(|i| self.slots(i).iter().filter(|e| e.bound().is_some()).count())
            .sum();
        (used * 1000 / (2 * sampled)) as u32
    }

    /// Starts a new search: entries stored before now count as empty for replacement.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) % GENERATIONS;
    }

    fn index(&self, key: u64) -> usize {
        (((key & 0xFFFF_FFFF) * self.buckets.len() as u64) >> 32) as usize
    }

    fn lock(key: u64) -> u32 {
        (key >> 32) as u32
    }

    fn slots(&self, index: usize) -> [Entry; 2] {
        let bucket = &self.buckets[index];
        let read = |slot: usize| {
            let checked = bucket[2 * slot].load(Ordering::Relaxed);
            let second = bucket[2 * slot + 1].load(Ordering::Relaxed);
            Entry::unpack([checked ^ second.rotate_left(32), second])
        };
        [read(0), read(1)]
    }

    fn write(&self, index: usize, slot: usize, entry: Entry) {
        let [first, second] = entry.pack();
        let bucket = &self.buckets[index];
        bucket[2 * slot].store(first ^ second.rotate_left(32), Ordering::Relaxed);
        bucket[2 * slot + 1].store(second, Ordering::Relaxed);
    }

    pub fn probe(&self, key: u64, ply: usize) -> Option<Hit> {
        let lock = Self::lock(key);
        let slots = self.slots(self.index(key));
        let entry = slots
            .iter()
            .filter(|e| e.bound().is_some() && e.lock == lock)
            .max_by_key(|e| e.depth)?;
        Some(Hit {
            depth: entry.depth as i32,
            score: score_from_tt(entry.score, ply),
            bound: entry.bound()?,
            best: (entry.best != NO_MOVE).then(|| Pos::from_index(entry.best as usize)),
        })
    }

    pub fn store(
        &self,
        key: u64,
        ply: usize,
        depth: i32,
        score: i32,
        bound: Bound,
        best: Option<Pos>,
    ) {
        let entry = Entry {
            lock: Self::lock(key),
            score: score_to_tt(score, ply),
            best: best.map_or(NO_MOVE, |p| p.index() as u16),
            depth: depth.clamp(0, u16::MAX as i32) as u16,
            meta: (self.generation << 2)
                | match bound {
                    Bound::Exact => 1,
                    Bound::Lower => 2,
                    Bound::Upper => 3,
                },
        };
        let generation = self.generation;
        let index = self.index(key);
        let slots = self.slots(index);
        let vacant = |e: &Entry| e.bound().is_none() || e.generation() != generation;
        for (i, slot) in slots.iter().enumerate() {
            if vacant(slot) {
                return self.write(index, i, entry);
            }
            if slot.lock == entry.lock {
                if entry.depth > slot.depth {
                    self.write(index, i, entry);
                }
                return;
            }
        }
        let shallower = if slots[0].depth <= slots[1].depth {
            0
        } else {
            1
        };
        if entry.depth > slots[shallower].depth {
            self.write(index, shallower, entry);
        }
    }
}

fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::common::{MATE, MAX_DEPTH, ONE_PLY};

    /// Keys that land in bucket 0 of a one-bucket table, told apart by their locks.
    fn key(lock: u32) -> u64 {
        (lock as u64) << 32 | 7
    }

    fn depth_of(tt: &TranspositionTable, lock: u32) -> Option<i32> {
        tt.probe(key(lock), 0).map(|h| h.depth)
    }

    fn store(tt: &TranspositionTable, lock: u32, depth: i32) {
        tt.store(key(lock), 0, depth, depth * 10, Bound::Exact, None);
    }

    #[test]
    fn empty_first_slot_takes_the_entry() {
        let tt = TranspositionTable::new(32);
        store(&tt, 1, 3);
        assert_eq!(depth_of(&tt, 1), Some(3));
        assert_eq!(tt.slots(0)[0].lock, 1);
    }

    #[test]
    fn depths_in_fractions_of_a_ply_are_kept_whole() {
        let tt = TranspositionTable::new(32);
        let deepest = MAX_DEPTH as i32 * ONE_PLY;
        store(&tt, 1, deepest - 1);
        assert_eq!(depth_of(&tt, 1), Some(deepest - 1));
        store(&tt, 1, deepest);
        assert_eq!(
            depth_of(&tt, 1),
            Some(deepest),
            "a finer depth is still deeper"
        );
    }

    #[test]
    fn same_position_is_overwritten_only_by_a_deeper_result() {
        let tt = TranspositionTable::new(32);
        store(&tt, 1, 5);
        store(&tt, 1, 4);
        assert_eq!(depth_of(&tt, 1), Some(5));
        store(&tt, 1, 5);
        assert_eq!(tt.probe(key(1), 0).unwrap().score, 50);
        store(&tt, 1, 6);
        assert_eq!(depth_of(&tt, 1), Some(6));
        assert_eq!(
            tt.slots(0)[1].bound(),
            None,
            "nothing went to the second slot"
        );
    }

    #[test]
    fn second_slot_is_used_the_same_way() {
        let tt = TranspositionTable::new(32);
        store(&tt, 1, 5);
        store(&tt, 2, 2);
        assert_eq!(tt.slots(0)[1].lock, 2);
        store(&tt, 2, 1);
        assert_eq!(depth_of(&tt, 2), Some(2));
        store(&tt, 2, 3);
        assert_eq!(depth_of(&tt, 2), Some(3));
        assert_eq!(depth_of(&tt, 1), Some(5));
    }

    #[test]
    fn full_bucket_replaces_the_shallower_slot_only_when_deeper() {
        let tt = TranspositionTable::new(32);
        store(&tt, 1, 5);
        store(&tt, 2, 3);
        store(&tt, 3, 3);
        assert_eq!(depth_of(&tt, 3), None, "equal depth does not replace");
        store(&tt, 3, 4);
        assert_eq!(depth_of(&tt, 3), Some(4));
        assert_eq!(depth_of(&tt, 2), None);
        assert_eq!(depth_of(&tt, 1), Some(5));
    }

    #[test]
    fn entries_of_an_earlier_search_count_as_empty() {
        let mut tt = TranspositionTable::new(32);
        store(&tt, 1, 9);
        store(&tt, 2, 8);
        tt.new_search();
        // Still found by a probe...
        assert_eq!(depth_of(&tt, 1), Some(9));
        // ...but a shallow new entry takes the first (stale) slot.
        store(&tt, 3, 1);
        assert_eq!(depth_of(&tt, 3), Some(1));
        assert_eq!(depth_of(&tt, 1), None);
        // And the same stale position is overwritten even by a shallower result.
        store(&tt, 2, 2);
        assert_eq!(depth_of(&tt, 2), Some(2));
    }

    #[test]
    fn mate_scores_keep_their_distance_from_the_node() {
        let tt = TranspositionTable::new(32);
        // A mate found 3 plies below a node at ply 4: MATE - 7 from the root.
        tt.store(key(1), 4, 6, MATE - 7, Bound::Exact, Some(Pos::new(3, 4)));
        let hit = tt.probe(key(1), 10).unwrap();
        assert_eq!(
            hit.score,
            MATE - 13,
            "the same mate in 3 from a node at ply 10"
        );
        assert_eq!(hit.best, Some(Pos::new(3, 4)));
        let tt = TranspositionTable::new(32);
        tt.store(key(2), 2, 6, -(MATE - 5), Bound::Upper, None);
        assert_eq!(tt.probe(key(2), 0).unwrap().score, -(MATE - 3));
        let tt = TranspositionTable::new(32);
        tt.store(key(3), 2, 6, 123, Bound::Lower, None);
        assert_eq!(tt.probe(key(3), 9).unwrap().score, 123);
    }

    #[test]
    fn entries_survive_packing() {
        let entry = Entry {
            lock: 0xDEAD_BEEF,
            score: -(MATE - 3),
            best: 777,
            depth: 60_000,
            meta: 0b1011_0110,
        };
        assert_eq!(Entry::unpack(entry.pack()), entry);
    }

    #[test]
    fn a_slot_torn_by_two_writers_is_a_miss() {
        let tt = TranspositionTable::new(32);
        tt.store(key(1), 0, 5, 50, Bound::Exact, Some(Pos::new(1, 1)));
        let other = TranspositionTable::new(32);
        other.store(key(2), 0, 3, -20, Bound::Lower, Some(Pos::new(2, 2)));
        // The first word of one write beside the second word of the other.
        let second = other.buckets[0][1].load(Ordering::Relaxed);
        tt.buckets[0][1].store(second, Ordering::Relaxed);
        assert_eq!(tt.probe(key(1), 0), None);
        assert_eq!(tt.probe(key(2), 0), None);
    }

    #[test]
    fn a_table_too_large_for_the_machine_is_made_smaller_not_fatal() {
        let tt = TranspositionTable::new(1 << 60);
        assert!(tt.size_bytes() > 0 && tt.size_bytes() < 1 << 60);
        store(&tt, 5, 3);
        assert_eq!(depth_of(&tt, 5), Some(3));
    }

    #[test]
    fn usage_counts_the_occupied_slots() {
        let tt = TranspositionTable::new(4 * 32);
        assert_eq!(tt.usage_permill(), 0);
        for bucket in 0..3 {
            // Four buckets: the low half of the key picks one, its top bits here.
            let key = (7 << 32) | (bucket << 30);
            tt.store(key, 0, ONE_PLY, 0, Bound::Exact, None);
        }
        assert_eq!(tt.usage_permill(), 3 * 1000 / 8);
    }

    #[test]
    fn clear_empties_the_table() {
        let mut tt = TranspositionTable::new(1 << 16);
        tt.store(12345, 0, 3, 1, Bound::Exact, None);
        assert!(tt.probe(12345, 0).is_some());
        tt.clear();
        assert!(tt.probe(12345, 0).is_none());
    }
}
