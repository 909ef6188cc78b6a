#!/usr/bin/env python3
"""Where Lianzhu's move ordering ranks the moves an engine played: for every move the
named player made in a match (games.sgf as scripts/match.py leaves it) after the three
opening stones, `pbrain-lianzhu analyze --order` lists the moves a search node would try
and the script finds the one played among them.

It prints how many of those moves rank first, among the first 4, 8 and 16 (the widest
breadth the search tries below the root in an open position), how many fall outside
the list (a move the search never tries, e.g. not answering a threat), and with --show
each move ranked beyond 16 with its position, to feed back to `analyze --order`.

Examples:
  scripts/rank_played.py --player opponent matches/s23-rapfi-r15/games.sgf
  scripts/rank_played.py --player lianzhu --show matches/x/games.sgf
Standard library only.
"""
import argparse
import json
import os
import subprocess
import sys

from records import read_games, read_text

RANK_LIMITS = [1, 4, 8, 16]
OPENING_STONES = 3


def pos_notation(move):
    x, y = move
    return f"{chr(97 + x)}{y + 1}"


def orders(engine, rule, size, positions):
    """For each position (a list of moves), the situation and the moves a search node
    would try there, best first: one `analyze --order` run for all of them."""
    command = [engine, "analyze", "--order", "--json", "--rule", str(rule), "--size", str(size)]
    lines = "".join("".join(pos_notation(m) for m in moves) + "\n" for moves in positions)
    out = subprocess.run(command, input=lines, capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        answer = json.loads(line)
        yield answer["situation"], [tuple(map(int, m["move"].split(","))) for m in answer["moves"]]


def choices(games, player):
    """(game number, moves before, move played) for each move of `player` after the
    opening stones, grouped by (rule, size)."""
    grouped = {}
    for number, rule, size, black, _, moves in games:
        first = 0 if black == player else 1
        for ply in range(OPENING_STONES + (first - OPENING_STONES) % 2, len(moves), 2):
            grouped.setdefault((rule, size), []).append((number, moves[:ply], moves[ply]))
    return grouped


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sgf", nargs="+", help="games.sgf files of finished matches")
    parser.add_argument("--player", required=True, help="the engine's name in the match")
    parser.add_argument("--engine", default=os.path.join(os.path.dirname(__file__), "..", "target", "release",
                                                           "pbrain-lianzhu"),
                        help="the pbrain-lianzhu whose ordering ranks the moves")
    parser.add_argument("--show", action="store_true", help="list the moves ranked beyond 16")
    args = parser.parse_args()
    games = []
    for path in args.sgf:
        games.extend(read_games(read_text(path)))
    within = [0] * len(RANK_LIMITS)
    total = outside = 0
    for (rule, size), group in choices(games, args.player).items():
        answers = orders(args.engine, rule, size, [before for _, before, _ in group])
        for (number, before, played), (situation, order) in zip(group, answers):
            if situation == "win" or len(order) < 2:
                continue
            total += 1
            if played not in order:
                outside += 1
                continue
            rank = order.index(played)
            for i, limit in enumerate(RANK_LIMITS):
                within[i] += rank < limit
            if args.show and rank >= RANK_LIMITS[-1]:
                position = "".join(pos_notation(m) for m in before)
                print(f"game {number} move {len(before) + 1}: {pos_notation(played)} ranks {rank + 1} "
                      f"of {len(order)} ({situation}): {position}")
    if not total:
        sys.exit(f"{args.player} made no move with a choice in these games")
    shares = ", ".join(f"{'first' if limit == 1 else f'among {limit}'} {count / total:.3f}"
                       for limit, count in zip(RANK_LIMITS, within))
    print(f"{args.player}: {total} moves with a choice; {shares}; not in the list {outside / total:.3f}")


if __name__ == "__main__":
    main()
