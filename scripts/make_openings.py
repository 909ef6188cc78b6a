#!/usr/bin/env python3
"""Writes balanced openings in Gomocup offset notation (x,y offsets from the centre).

Random openings of STONES stones within RADIUS of the centre are drawn from a fixed
seed; each is kept only if ENGINE, thinking MS milliseconds on it, scores it within
MARGIN of even. ENGINE is Lianzhu or, as a sharper judge, Rapfi (its scores have their own
units: about 100 is a clear edge at 1 s). Each opening is judged as a new game, through
scripts/judge.py, which waits for the engine to take START before it sends the position:
Rapfi, busy just after it answers, drops a BOARD sent at once, and every answer after
that would have been read for the wrong opening.

With --balance, each random opening has two stones fewer, and ENGINE (one that
answers Yixin-Board's YXBALANCETWO, as Lianzhu and Rapfi do) adds the two that leave it
closest to even; the result is then judged as above.
Standard library only.

usage: make_openings.py ENGINE SIZE RULE COUNT [--stones 3] [--radius 3] [--ms 200]
                        [--margin 150] [--seed 1] [--balance] > openings.txt
"""
import argparse
import random
import sys

from judge import Judge, is_move


def random_openings(rng, stones, radius):
    """Distinct random openings, each a list of offsets, Black's first."""
    seen = set()
    while True:
        offsets = []
        while len(offsets) < stones:
            point = (rng.randint(-radius, radius), rng.randint(-radius, radius))
            if point not in offsets:
                offsets.append(point)
        if tuple(offsets) not in seen:
            seen.add(tuple(offsets))
            yield offsets


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("engine")
    parser.add_argument("size", type=int)
    parser.add_argument("rule", type=int)
    parser.add_argument("count", type=int)
    parser.add_argument("--stones", type=int, default=3)
    parser.add_argument("--radius", type=int, default=3)
    parser.add_argument("--ms", type=int, default=200)
    parser.add_argument("--margin", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--balance", action="store_true", help="let ENGINE add the last two stones")
    args = parser.parse_args()
    judge = Judge(args.engine, args.ms)
    half = args.size // 2
    kept = 0
    drawn = args.stones - 2 if args.balance else args.stones
    if drawn < 1:
        sys.exit("error: --balance needs at least 3 stones")
    for offsets in random_openings(random.Random(args.seed), drawn, args.radius):
        if kept == args.count:
            break
        moves = [(dx + half, dy + half) for dx, dy in offsets]
        if args.balance:
            pair = judge.balance_two(args.size, args.rule, moves)
            if pair is None:
                continue
            moves += pair
            offsets = [(x - half, y - half) for x, y in moves]
        score, answer = judge.think(args.size, args.rule, moves)
        print(f"{tuple(offsets)}: {score} {answer}", file=sys.stderr)
        if score is not None and abs(score) <= args.margin and is_move(answer):
            kept += 1
            print(", ".join(f"{dx},{dy}" for dx, dy in offsets), flush=True)
    judge.close()


if __name__ == "__main__":
    main()
