#!/usr/bin/env python3
"""Labels positions from finished games with a stronger engine's score, for
`pbrain-lianzhu tune --labels`: a judge's score is a far less noisy target than the
game's result.

The judge is not part of this repository; build Rapfi from https://github.com/dhbloo/rapfi.
Standard library only.

Example:
  scripts/label_positions.py --judge /path/to/pbrain-rapfi --ms 100 \\
      --out labels.txt matches/*/games.sgf
With --from-messages NAME, no judge runs: the scores are those the engine NAME printed
while it played the games (the match's messages.txt beside games.sgf, as
scripts/match.py keeps it), e.g. Rapfi's in a Rapfi self-play match.
The judge keeps its hash from one position to the next, so positions are asked in game
order: at 100 ms a position that gives scores close to those Rapfi prints in play,
where a cold 50 ms search gave scores that did not predict the results at all.
Each output line: rule, board size, the judge's score for the side to move (its units),
the game's result for the side to move (1, 0 or 0.5), then the moves from the empty
board as x,y. A position the judge scores as a mate gets +-MATE_SCORE.
"""
import argparse
import os

from judge import Judge, score_of
from records import messages_by_game, read_games, read_text


def printed_scores(messages_text, name):
    """Game number -> {stones on the board: score} from the MESSAGE lines of `name`."""
    scores = {}
    for game, lines in messages_by_game(messages_text).items():
        printed = ((move - 1, score_of(text)) for move, engine, text in lines if engine == name)
        scores[game] = {stones: score for stones, score in printed if score is not None}
    return scores


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sgf", nargs="+", help="games as c-gomoku-cli writes them")
    parser.add_argument("--judge", help="command of the judging engine")
    parser.add_argument("--from-messages", metavar="NAME", help="take the scores NAME printed in play")
    parser.add_argument("--ms", type=int, default=100, help="judge's time per position")
    parser.add_argument("--every", type=int, default=1, help="label one position in this many")
    parser.add_argument("--skip", type=int, default=6, help="leave out this many first moves")
    parser.add_argument("--rule", type=int, help="only games under this rule")
    parser.add_argument("--size", type=int, help="only games on this board size")
    parser.add_argument("--limit", type=int, default=10**9, help="at most this many positions")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if (args.judge is None) == (args.from_messages is None):
        parser.error("give either --judge or --from-messages")
    judge = Judge(args.judge, args.ms) if args.judge else None
    labelled = 0
    with open(args.out, "a") as out:
        for path in args.sgf:
            if labelled >= args.limit:
                break
            text = read_text(path)
            if judge is None:
                messages = read_text(os.path.join(os.path.dirname(path), "messages.txt"))
                printed = printed_scores(messages, args.from_messages)
            for number, rule, size, _, winner, moves in read_games(text):
                if (args.rule is not None and rule != args.rule) or (args.size is not None and size != args.size):
                    continue
                # The last move made five: the position before it is already decided.
                for n in range(args.skip, len(moves) - 1, args.every):
                    if judge:
                        score, _ = judge.think(size, rule, moves[:n])
                    else:
                        score = printed.get(number, {}).get(n)
                    if score is None:
                        continue
                    to_move = "B" if n % 2 == 0 else "W"
                    result = 0.5 if winner is None else float(winner == to_move)
                    line = " ".join(f"{x},{y}" for x, y in moves[:n])
                    out.write(f"{rule} {size} {score} {result:g} {line}\n")
                    labelled += 1
                    if labelled >= args.limit:
                        break
                out.flush()
                if labelled >= args.limit:
                    break
    if judge:
        judge.close()


if __name__ == "__main__":
    main()
