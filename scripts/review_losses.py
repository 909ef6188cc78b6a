#!/usr/bin/env python3
"""Shows where Lianzhu's lost games went wrong, as a stronger Gomocup engine (the judge,
e.g. Rapfi) sees them: for each of Lianzhu's moves in each lost game, the judge's score
of the position before the move (from Lianzhu's side, in the judge's units) and the
move the judge would have played. A slow slide of the score means positional losses; a
sudden drop marks a blunder.

The judge is not part of this repository; build Rapfi from https://github.com/dhbloo/rapfi
(it reads its score from Rapfi's "Eval" MESSAGE lines). Standard library only.

Example:
  scripts/review_losses.py --judge /path/to/pbrain-rapfi matches/X/games.sgf --games 4
Output, one line per lost game: the colour Lianzhu played, then for each of its moves
"move number:played[judge's move]score"; a proven win or loss scores +-MATE_SCORE
(judge.py).
"""
import argparse

from judge import Judge
from records import read_games, read_text


def lost_games(sgf_text, engine_name):
    for _, rule, size, black, winner, moves in read_games(sgf_text):
        lianzhu_black = black == engine_name
        if winner is not None and (winner == "B") != lianzhu_black:
            yield lianzhu_black, size, rule, moves


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sgf", help="games as c-gomoku-cli writes them")
    parser.add_argument("--judge", required=True, help="command of the judging engine")
    parser.add_argument("--name", default="lianzhu", help="Lianzhu's name in the SGF")
    parser.add_argument("--ms", type=int, default=300, help="judge's time per position")
    parser.add_argument("--games", type=int, default=1000, help="at most this many lost games")
    args = parser.parse_args()
    judge = Judge(args.judge, args.ms)
    games = list(lost_games(read_text(args.sgf), args.name))[: args.games]
    for lianzhu_black, size, rule, moves in games:
        marks = []
        for n in range(len(moves) - 1):
            if (n % 2 == 0) != lianzhu_black:
                continue
            score, choice = judge.think(size, rule, moves[:n])
            played = f"{moves[n][0]},{moves[n][1]}"
            marks.append(f"{n + 1}:{played}[{choice}]{'' if score is None else score}")
        print(("B " if lianzhu_black else "W ") + " ".join(marks), flush=True)
    judge.close()


if __name__ == "__main__":
    main()
