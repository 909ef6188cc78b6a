#!/usr/bin/env python3
"""When each engine first saw how a game would end: for every decided game of a match
(games.sgf and messages.txt as scripts/match.py leaves them), the move at which each side
first reported a proven win or loss in its MESSAGE lines. Lianzhu reports a score beyond
+-900000; Rapfi an "Eval +M<n>" or "Eval -M<n>".

Per decided game it prints the game number, its length, the winner, and for each
engine the first move at which it announced the result. The summary gives, for the games
Lianzhu lost and for those it won, how many moves before Lianzhu the other engine saw
the result (median), over the games where both announced it.

It also lists every announcement the game's result contradicts: a win announced by the
side that then lost or drew, a loss by the side that then won or drew. A contradicted
win is a flaw in that engine's proof (a defence it left out, a threat it misread); a
contradicted loss is one too, unless the opponent simply missed its win.

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
    contradicted = 0
    for number, _, _, black, winner, moves in games:
        first = seen.get(number, {})
        for (engine, sign), move in sorted(first.items(), key=lambda item: item[1]):
            won = winner is not None and (winner == "B") == (black == engine)
            lost = winner is not None and not won
            if (sign == "+" and not won) or (sign == "-" and not lost):
                contradicted += 1
                result = "drawn" if winner is None else ("won" if won else "lost")
                print(f"game {number}: {engine} announced a {'win' if sign == '+' else 'loss'} "
                      f"at move {move} and {result}")
        if winner is None:
            continue
        lianzhu_won = (winner == "B") == (black == args.name)
        other = next((e for e, _ in first if e != args.name), "opponent")
        ours = first.get((args.name, "+" if lianzhu_won else "-"))
        theirs = first.get((other, "-" if lianzhu_won else "+"))
        if not args.quiet:
            print(f"game {number}: {len(moves)} moves, {'lianzhu' if lianzhu_won else other} won; "
                  f"{args.name} saw it at {ours}, {other} at {theirs}")
        if ours and theirs:
            leads[lianzhu_won].append(ours - theirs)
    print(f"announcements the result contradicts: {contradicted}")
    for lianzhu_won, label in [(False, "lost"), (True, "won")]:
        lead = leads[lianzhu_won]
        if lead:
            print(f"games Lianzhu {label}: {len(lead)}; the other engine saw the result "
                  f"{statistics.median(lead):+g} moves before Lianzhu (median), "
                  f"{sum(d > 0 for d in lead)} earlier, {sum(d < 0 for d in lead)} later")


if __name__ == "__main__":
    main()
