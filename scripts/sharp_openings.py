#!/usr/bin/env python3
"""Writes the openings of a file that most often decide a game pair, for SPRTs.

Between two builds of about equal strength, a pair of games on one opening (each build
Black once) ends one win each unless the opening leaves the game open: an opening that
one colour always wins tells nothing about strength, yet costs as much to play. From
earlier self-play matches (SGF files, games 2k-1 and 2k on one opening), this counts per
opening the pairs that one build won twice, and keeps the COUNT openings where that
happened most often, in their order in the file. Shares are shrunk toward the overall
share by PRIOR pairs, so an opening seen in a few pairs is neither kept nor dropped on
luck alone. Matches against other engines are no guide: leave them out.
Standard library only.

usage: sharp_openings.py OPENINGS COUNT SGF [SGF ...] [--prior 4] > sharp.txt
"""
import argparse
import sys

from records import read_games, read_text


def offsets(line):
    """The opening's stones as (dx, dy) offsets from the centre."""
    numbers = [int(n) for n in line.replace(",", " ").split()]
    return tuple(zip(numbers[0::2], numbers[1::2]))


def pair_results(sgf_text):
    """(opening offsets, whether one engine won both games) for each complete pair."""
    games = {}
    for number, _, size, black, winner, moves in read_games(sgf_text):
        games[number] = (size, black, winner, moves)
    for number, (size, black, winner, moves) in games.items():
        if number % 2 == 0 or number + 1 not in games:
            continue
        _, other_black, other_winner, _ = games[number + 1]
        # The colours swap within a pair; a draw (None) decides nothing.
        first_won = {"B": black, "W": other_black}.get(winner)
        second_won = {"B": other_black, "W": black}.get(other_winner)
        yield moves, size, first_won is not None and first_won == second_won


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("openings")
    parser.add_argument("count", type=int)
    parser.add_argument("sgf", nargs="+")
    parser.add_argument("--prior", type=float, default=4)
    args = parser.parse_args()
    lines = [line for line in read_text(args.openings).splitlines() if line.strip()]
    stones = {offsets(line): line for line in lines}
    length = len(next(iter(stones)))
    pairs = {line: 0 for line in lines}
    decided = {line: 0 for line in lines}
    for path in args.sgf:
        for moves, size, one_won_both in pair_results(read_text(path)):
            key = tuple((x - size // 2, y - size // 2) for x, y in moves[:length])
            if key in stones:
                pairs[stones[key]] += 1
                decided[stones[key]] += one_won_both
    total = sum(pairs.values())
    if total == 0:
        sys.exit("no game pair of these openings in the SGF files")
    overall = sum(decided.values()) / total
    share = {line: (decided[line] + args.prior * overall) / (pairs[line] + args.prior) for line in lines}
    kept = set(sorted(lines, key=lambda line: -share[line])[: args.count])
    print(
        f"{total} pairs, {100 * overall:.1f} % decided; the {len(kept)} kept: "
        f"{100 * sum(decided[l] for l in kept) / max(1, sum(pairs[l] for l in kept)):.1f} %",
        file=sys.stderr,
    )
    for line in lines:
        if line in kept:
            print(line)


if __name__ == "__main__":
    main()
