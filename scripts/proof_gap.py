#!/usr/bin/env python3
"""How much earlier a stronger engine (the judge, e.g. Rapfi) proves the winner's win
than Lianzhu does, on the same positions with the same time each: for every decided
game of an SGF collection, over the winner's turns after the opening, the earliest
position (stones on the board) from which the judge proves the win at every one of the
winner's later turns, then the earliest from which Lianzhu does. A gap means threats the
judge reads and Lianzhu does not. The loser's turns are left out, and so are the
winner's forced blocks: Lianzhu answers those without a search, so they prove nothing.

Each winner's position the judge proves and Lianzhu, searched for the same time, does
not is written to --suite, one a line: rule, board size, then the moves from the empty
board as x,y; the side to move wins. Such a suite measures a change to the threat search
without games.

Neither engine is part of this repository; build Rapfi from https://github.com/dhbloo/rapfi.
Standard library only.

Example:
  scripts/proof_gap.py --judge /path/to/pbrain-rapfi --lianzhu target/release/pbrain-lianzhu \\
      --ms 300 --games 100 --suite suite.txt matches/X/games.sgf
"""
import argparse
import re
import statistics

from judge import Judge
from records import read_games, read_text


def first_win_seen(engine, size, rule, moves, turns, forced=None):
    """The first of `turns` (numbers of stones on the board, in game order) from which
    `engine` proves the side to move's win at every later one of them; None when it
    does not prove the last one. The positions are asked in game order, as in
    play, so that the engine's hash holds what it read at the earlier ones; asked
    backwards, it would hold the proofs of the later ones. With `forced` (a set), the
    turns the engine answered without a search (Lianzhu's "depth 0": a forced block)
    are added to it and do not count."""
    earliest = None
    for stones in turns:
        engine.think(size, rule, moves[:stones])
        if forced is not None and re.search(r"\bdepth 0\b", engine.score_line or ""):
            forced.add(stones)
        elif engine.proven != "+":
            earliest = None
        elif earliest is None:
            earliest = stones
    return earliest


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sgf", help="games as c-gomoku-cli writes them")
    parser.add_argument("--judge", required=True, help="command of the judging engine")
    parser.add_argument("--lianzhu", required=True, help="command of the Lianzhu build to measure")
    parser.add_argument("--ms", type=int, default=300, help="time per position, for each engine")
    parser.add_argument("--games", type=int, default=100, help="at most this many decided games")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first this many decided games")
    parser.add_argument("--opening", type=int, default=3, help="stones of the opening, never asked")
    parser.add_argument("--suite", help="write the positions only the judge proves here")
    args = parser.parse_args()
    judge = Judge(args.judge, args.ms)
    lianzhu = Judge(args.lianzhu, args.ms)
    decided = [game for game in read_games(read_text(args.sgf)) if game[4] is not None]
    gaps, missed, judged = [], 0, 0
    suite = open(args.suite, "w") if args.suite else None
    for number, rule, size, _, _, moves in decided[args.skip : args.skip + args.games]:
        # The winner's last turn but one, where it plays its last four or its open
        # four: the last one, a five to make, needs no search.
        last = len(moves) - 3
        first = args.opening + (last - args.opening) % 2
        turns = list(range(first, last + 1, 2))
        forced = set()
        lianzhu_first = first_win_seen(lianzhu, size, rule, moves, turns, forced)
        turns = [stones for stones in turns if stones not in forced]
        judge_first = first_win_seen(judge, size, rule, moves, turns) if turns else None
        if judge_first is None:
            print(f"game {number}: {len(moves)} moves, the judge proves nothing", flush=True)
            continue
        # Past the end when Lianzhu proves none of the winner's turns.
        lianzhu_first = max(judge_first, last + 2 if lianzhu_first is None else lianzhu_first)
        judged += 1
        gaps.append(lianzhu_first - judge_first)
        for stones in (s for s in turns if judge_first <= s < lianzhu_first):
            missed += 1
            if suite:
                line = " ".join(f"{x},{y}" for x, y in moves[:stones])
                suite.write(f"{rule} {size} {line}\n")
        print(f"game {number}: {len(moves)} moves, judge proves from {judge_first} stones, "
              f"Lianzhu from {lianzhu_first}", flush=True)
    if suite:
        suite.close()
    judge.close()
    lianzhu.close()
    if gaps:
        print(f"{judged} games the judge proves before the last move; Lianzhu proves later in "
              f"{sum(1 for g in gaps if g > 0)}, by a median {statistics.median(gaps)} plies "
              f"(mean {statistics.mean(gaps):.1f}); {missed} positions only the judge proves")


if __name__ == "__main__":
    main()
