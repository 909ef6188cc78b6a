#!/usr/bin/env python3
"""Measures Lianzhu against the reference ladder (pisq < AIWine < Rapfi) with one command: every
opponent given, under each rule it plays, at each time control, through match.py
(balanced openings, both colours), then prints the ladder as a Markdown table.

The opponents are not part of this repository; build them from public source:
  pisq   the Piskvork reference brain (plastovicka/Piskvork, source/pbrain: Windows
         code, which scripts/build_pisq.sh builds for Linux)
  wine   AIWine (jinjiebang/AIWine: g++ -O2 -o pbrain-wine src/*.cpp)
  rapfi  Rapfi (dhbloo/rapfi, built with CMake; with no network files beside it, it
         plays with its classical evaluation)
  rapfi-model
         the same Rapfi with its trained classical model, the strongest that runs on a
         CPU here: a copy of the binary in a folder of its own, with
         classical/model220723.bin from dhbloo/rapfi-networks beside it and a
         config.toml made from Rapfi's config-example/config.toml without its NNUE
         evaluator section, its binary_file naming that model
AIWine ignores INFO rule, so it is measured in freestyle only.

Example:
  scripts/ladder.py --pisq ~/ext/pbrain-pisq --wine ~/ext/pbrain-wine \
      --rapfi ~/ext/pbrain-rapfi --tc 0/1 --tc 120/5 --games 60
Time controls are c-gomoku-cli's match/turn seconds: 0/1 is 1 s/turn, 120/5 the
Gomocup fastgame (5 s/turn, 120 s/match). Standard library only.
"""
import argparse
import os
import subprocess
import sys

from match import by_colour, summary
from pairs import Pairs

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (rule, size) pairs each opponent is measured in.
FREESTYLE = (0, 20)
RENJU = (4, 15)
RULES = {
    "pisq": [FREESTYLE, RENJU],
    "wine": [FREESTYLE],
    "rapfi": [FREESTYLE, RENJU],
    "rapfi-model": [FREESTYLE, RENJU],
}
RULE_NAMES = {FREESTYLE: "freestyle 20x20", RENJU: "renju 15x15"}


def describe_tc(tc):
    match_s, turn_s = tc.split("/")
    turn = f"{float(turn_s):g} s/turn"
    return turn if float(match_s) == 0 else f"{turn}, {float(match_s):g} s/match"


def run_match(args, name, path, rule, size, tc):
    """Plays one match through match.py; Lianzhu's W-L-D, score and Elo by game pairs
    from its games, or None when none was played."""
    out = os.path.join(args.out, f"{name}-rule{rule}-{tc.replace('/', '_')}")
    command = [
        sys.executable, os.path.join(HERE, "match.py"),
        "--engine", args.engine, "--opponent", path,
        "--rule", str(rule), "--size", str(size), "--tc", tc,
        "--games", str(args.games), "--concurrency", str(args.concurrency), "--out", out,
    ]
    print(f"== {name}, {RULE_NAMES[(rule, size)]}, {describe_tc(tc)}", flush=True)
    finished = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    # The match's summary, without its running score after every game.
    print("\n".join(line for line in finished.stdout.splitlines() if not line.startswith("Score of")), flush=True)
    sgf = os.path.join(out, "games.sgf")
    if not os.path.isfile(sgf):
        return None
    with open(sgf) as games:
        sgf_text = games.read()
    colours = by_colour(sgf_text, "lianzhu")
    wins, losses, draws = (colours["B"][i] + colours["W"][i] for i in range(3))
    if wins + losses + draws == 0:
        return None
    pairs = Pairs()
    pairs.add_sgf(sgf_text, "lianzhu")
    return wins, losses, draws, 100 * summary(wins, losses, draws)[0], pairs.describe()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", default=os.path.join(ROOT, "target/release/pbrain-lianzhu"))
    for name in RULES:
        parser.add_argument(f"--{name}", help=f"command of {name}; left out of the ladder when not given")
    parser.add_argument("--tc", action="append", help="match/turn seconds (repeatable; default 0/1)")
    parser.add_argument("--games", type=int, default=120, help="games per match (each opening twice)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--out", default=os.path.join(ROOT, "matches", "ladder"))
    args = parser.parse_args()
    commands = {name: getattr(args, name.replace("-", "_")) for name in RULES}
    opponents = [(name, command) for name, command in commands.items() if command]
    if not opponents:
        parser.error("give at least one of " + ", ".join(f"--{name}" for name in RULES))
    rows = []
    for tc in args.tc or ["0/1"]:
        for name, path in opponents:
            for rule, size in RULES[name]:
                result = run_match(args, name, path, rule, size, tc)
                rows.append((name, RULE_NAMES[(rule, size)], describe_tc(tc), result))
    print("| opponent | rule | time control | W-L-D | score | by game pairs |")
    print("|---|---|---|---|---|---|")
    for name, rule, tc, result in rows:
        if result is None:
            print(f"| {name} | {rule} | {tc} | no result | | |")
            continue
        wins, losses, draws, score, pairs = result
        print(f"| {name} | {rule} | {tc} | {wins}-{losses}-{draws} | {score:.1f} % | {pairs} |")


if __name__ == "__main__":
    main()
