#!/usr/bin/env python3
"""Writes the openings that both colours win in the engine's own self-play, for SPRTs.

A pair of games on one opening (each build Black once) tells two builds apart only if
the opening leaves the game open: one that a colour always wins ends the pair one win
each, whatever the builds. A search's score is a poor guide to that (renju openings
judged even at 0.3 s/turn were won by White two games in three), so this asks the games:
`pbrain-lianzhu selfplay --openings CANDIDATES --games K*N` plays each of the N
candidates K times (the first plies vary), and an opening is kept when the colour that
won it least still won at least MIN_SHARE of its decided games. Openings are written in
the order of CANDIDATES, in the same notation (offsets from the centre, Black first).
Standard library only.

usage: contested_openings.py --draw N [--stones 3] [--radius 3] [--seed 1] > candidates.txt
       contested_openings.py CANDIDATES SELFPLAY [--min-share 0.25] > openings.txt

`scripts/openings/renju_15x15_contested.txt` was made by
    contested_openings.py --draw 500 --seed 4601 > candidates.txt
    pbrain-lianzhu selfplay --rule 4 --size 15 --openings candidates.txt --games 2000 \
        --nodes 30000 --threads 2 --seed 4601 --out selfplay.txt
    contested_openings.py candidates.txt selfplay.txt
and `scripts/openings/freestyle_15x15_contested.txt` (155 of 400) by
    contested_openings.py --draw 400 --seed 4701 > candidates.txt
    pbrain-lianzhu selfplay --classical --rule 0 --size 15 --openings candidates.txt \
        --games 1600 --nodes 20000 --threads 1 --seed 4701 --out selfplay.txt
    contested_openings.py candidates.txt selfplay.txt
"""
import argparse
import itertools
import random
import sys

from make_openings import random_openings
from sharp_openings import offsets


def games(selfplay_text):
    """(opening offsets, result 'B', 'W' or 'D') for each game of a selfplay file."""
    for line in selfplay_text.splitlines():
        fields = line.split()
        if not fields:
            continue
        size, result, stones = int(fields[1]), fields[2], int(fields[3])
        half = size // 2
        moves = [tuple(int(n) for n in field.split(":")[0].split(",")) for field in fields[4 : 4 + stones]]
        yield tuple((x - half, y - half) for x, y in moves), result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("candidates", nargs="?")
    parser.add_argument("selfplay", nargs="?")
    parser.add_argument("--min-share", type=float, default=0.25)
    parser.add_argument("--draw", type=int, help="write this many random candidates instead")
    parser.add_argument("--stones", type=int, default=3)
    parser.add_argument("--radius", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.draw:
        for opening in itertools.islice(random_openings(random.Random(args.seed), args.stones, args.radius), args.draw):
            print(", ".join(f"{x},{y}" for x, y in opening))
        return
    if not (args.candidates and args.selfplay):
        parser.error("give CANDIDATES and SELFPLAY, or --draw N")
    with open(args.candidates) as file:
        lines = [line.strip() for line in file if line.strip()]
    tally = {offsets(line): {"B": 0, "W": 0, "D": 0} for line in lines}
    with open(args.selfplay) as file:
        for opening, result in games(file.read()):
            if opening not in tally:
                sys.exit(f"error: a game opens with {opening}, not one of the candidates")
            tally[opening][result] += 1
    kept = 0
    for line in lines:
        counts = tally[offsets(line)]
        decided = counts["B"] + counts["W"]
        if decided and min(counts["B"], counts["W"]) >= args.min_share * decided:
            print(line)
            kept += 1
    played = sum(1 for counts in tally.values() if sum(counts.values()))
    print(f"kept {kept} of {played} openings played", file=sys.stderr)


if __name__ == "__main__":
    main()
