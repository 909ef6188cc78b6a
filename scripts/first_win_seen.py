#!/usr/bin/env python3
"""When each engine first saw how a game would end: for every decided game of a match
(games.sgf and messages.txt as scripts/match.py leaves them), the move at which each side
first reported a proven win or loss in its MESSAGE lines. Lianzhu reports a score beyond
+-900000; Rapfi an "Eval +M<n>" or "Eval -M<n>".

Per decided game it prints the game number, its length, the winner, and for each
engine the first move at which it announced the result. The summary gives, for the games
Lianzhu lost and for those it won, how many moves before Lianzhu the other engine saw
the result (median), over the games where both announced it.

Example:
  scripts/first_win_seen.py matches/s23-rapfi-r15-fast
Standard library only.
"""
import argparse
import os
import statistics

from judge import proven_sign
from records import messages_by_game, read_games, read_text

def announcements(messages_text):
    """Per game number: {(engine, sign): first move number} for proven results."""
    result = {}
    for number, lines in messages_by_game(messages_text).items():
        first = {}
        for move, engine, text in lines:
            sign = proven_sign(text)
            if sign:
                first.setdefault((engine, sign), move)
        result[number] = first
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("match", help="a match directory with games.sgf and messages.txt")
    parser.add_argument("--name", default="lianzhu", help="Lianzhu's name in the match")
    parser.add_argument("--quiet", action="store_true", help="print the summary only")
    args = parser.parse_args()
    games = list(read_games(read_text(os.path.join(args.match, "games.sgf"))))
    seen = announcements(read_text(os.path.join(args.match, "messages.txt")))
    leads = {True: [], False: []}
    for number, _, _, black, winner, moves in games:
        if winner is None:
            continue
        lianzhu_won = (winner == "B") == (black == args.name)
        first = seen.get(number, {})
        other = next((e for e, _ in first if e != args.name), "opponent")
        ours = first.get((args.name, "+" if lianzhu_won else "-"))
        theirs = first.get((other, "-" if lianzhu_won else "+"))
        if not args.quiet:
            print(f"game {number}: {len(moves)} moves, {'lianzhu' if lianzhu_won else other} won; "
                  f"{args.name} saw it at {ours}, {other} at {theirs}")
        if ours and theirs:
            leads[lianzhu_won].append(ours - theirs)
    for lianzhu_won, label in [(False, "lost"), (True, "won")]:
        lead = leads[lianzhu_won]
        if lead:
            print(f"games Lianzhu {label}: {len(lead)}; the other engine saw the result "
                  f"{statistics.median(lead):+g} moves before Lianzhu (median), "
                  f"{sum(d > 0 for d in lead)} earlier, {sum(d < 0 for d in lead)} later")


if __name__ == "__main__":
    main()
