#!/usr/bin/env python3
"""Counts the positions of a suite whose win an engine proves: each position is searched
from a cleared hash (YXHASHCLEAR) for the same time or, for Lianzhu, the same number of
nodes, and counts when the engine's last score is a proven win for the side to move
(Lianzhu: beyond +900000; Rapfi: "Eval +M<n>").

A suite is what scripts/proof_gap.py writes: one position a line, rule, board size, then
the moves from the empty board as x,y, the side to move winning. A change to the search
that proves more of them in the same nodes reads threats further; whether it plays
better is for games to say.

Example:
  scripts/proof_suite.py target/release/pbrain-lianzhu scripts/suites/renju_proofs.txt --nodes 300000
Prints the count and one mark a position (1 proven, 0 not), so that two builds can be
compared position by position. Standard library only.
"""
import argparse

from judge import Judge


def read_suite(path):
    """(rule, size, moves) for each line of a suite file."""
    with open(path) as file:
        for line in file:
            parts = line.split()
            if len(parts) < 2:
                continue
            moves = [tuple(map(int, move.split(","))) for move in parts[2:]]
            yield int(parts[0]), int(parts[1]), moves


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("engine", help="command of the engine to measure")
    parser.add_argument("suite", help="positions, as scripts/proof_gap.py writes them")
    parser.add_argument("--ms", type=int, default=300, help="time per position")
    parser.add_argument("--nodes", type=int, help="nodes per position instead (INFO max_node); "
                        "the time limit is then 100 s")
    args = parser.parse_args()
    settings = [f"INFO max_node {args.nodes}"] if args.nodes else []
    engine = Judge(args.engine, 100_000 if args.nodes else args.ms, settings)
    marks = []
    for rule, size, moves in read_suite(args.suite):
        engine.send("YXHASHCLEAR")
        engine.think(size, rule, moves)
        marks.append("1" if engine.proven == "+" else "0")
    engine.close()
    print(f"{marks.count('1')}/{len(marks)} proven")
    print("".join(marks))


if __name__ == "__main__":
    main()
