#!/usr/bin/env python3
"""Game pairs and the pentanomial SPRT.

c-gomoku-cli's -repeat plays every opening twice, the engines swapping colours: games
2k-1 and 2k form a pair. Where one colour wins most games of an opening (renju, small
boards), the two results of a pair are strongly anti-correlated, so counting games as
independent (the runner's own SPRT) overstates the variance: most pairs end one win
each and say nothing about strength. Counting pairs by their five possible totals
(0, 1/2, 1, 3/2, 2 points: the pentanomial) measures the variance that is really there.

As a command, summarises finished SGF files (several runs of the same two builds may be
pooled):
  scripts/pairs.py matches/X/games.sgf [matches/Y/games.sgf ...] [--sprt 0 10]
Standard library only.
"""
import argparse
import math
import re

from records import read_games, read_text

# alpha = beta = 0.05
LLR_BOUND = math.log((1 - 0.05) / 0.05)

# A finished game as the runner reports it: number, Black, result.
FINISHED = re.compile(r"Finished game (\d+) \((\S+) vs \S+\): (1-0|0-1|1/2-1/2)")


def expected_score(elo):
    return 1 / (1 + 10 ** (-elo / 400))


def elo(score):
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1) + 0.0  # + 0.0: no "-0"


class Pairs:
    """Pairs of games counted by the engine's points in them (index 0 to 4, half points)."""

    def __init__(self):
        self.halves = {}  # open pair -> the engine's half points in its first game
        self.counts = [0] * 5

    def add(self, game_number, halves):
        """Adds a finished game by its number (from 1) and the engine's half points in
        it (0, 1 or 2). Whether it completed a pair with the game of the same opening."""
        pair = (game_number + 1) // 2
        if pair in self.halves:
            self.counts[self.halves.pop(pair) + halves] += 1
            return True
        self.halves[pair] = halves
        return False

    def add_finished_line(self, line, engine_name):
        """Adds the game of a runner's "Finished game" line, if it is one. Whether it
        completed a pair."""
        found = FINISHED.search(line)
        if not found:
            return False
        number, black, result = found.groups()
        black_halves = {"1-0": 2, "0-1": 0, "1/2-1/2": 1}[result]
        return self.add(int(number), black_halves if black == engine_name else 2 - black_halves)

    def add_sgf(self, sgf_text, engine_name, run=0):
        """Adds the finished games of an SGF collection. Game numbers restart in every
        run: `run` keeps the pairs of different runs apart."""
        for number, _, _, black, winner, _ in read_games(sgf_text):
            ours = "B" if black == engine_name else "W"
            halves = 1 if winner is None else (2 if winner == ours else 0)
            self.add(number + 2 * 10**9 * run, halves)

    def mean_and_variance(self):
        """The mean score per game of a pair (0 to 1) and its variance over pairs."""
        total = sum(self.counts)
        mean = sum(n * k / 4 for k, n in enumerate(self.counts)) / total
        variance = sum(n * (k / 4 - mean) ** 2 for k, n in enumerate(self.counts)) / total
        return mean, variance

    def llr(self, elo0, elo1):
        """The log-likelihood ratio of Elo difference elo1 against elo0, in the normal
        approximation (the generalised SPRT that Fishtest uses for pentanomial counts);
        0 while every pair has ended the same."""
        if sum(self.counts) == 0:
            return 0.0
        mean, variance = self.mean_and_variance()
        if variance == 0:
            return 0.0
        s0, s1 = expected_score(elo0), expected_score(elo1)
        return sum(self.counts) * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)

    def decision(self, elo0, elo1):
        """"H1" or "H0" once the test is decided, else None."""
        llr = self.llr(elo0, elo1)
        if llr >= LLR_BOUND:
            return "H1"
        if llr <= -LLR_BOUND:
            return "H0"
        return None

    def describe(self):
        """The counts, the score and the Elo difference with its 95 % interval."""
        total = sum(self.counts)
        if total == 0:
            return "no complete pair"
        mean, variance = self.mean_and_variance()
        margin = 1.96 * math.sqrt(variance / total)
        counts = " ".join(str(n) for n in self.counts)
        return (
            f"{total} pairs by points 0-0.5-1-1.5-2: {counts}; score {100 * mean:.1f} %, "
            f"Elo {elo(mean):+.1f} (95 %: {elo(mean - margin):+.1f} to {elo(mean + margin):+.1f})"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sgf", nargs="+", help="games as c-gomoku-cli writes them (-repeat)")
    parser.add_argument("--name", default="lianzhu", help="the engine's name in the SGF")
    parser.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"))
    args = parser.parse_args()
    pairs = Pairs()
    for run, path in enumerate(args.sgf):
        pairs.add_sgf(read_text(path), args.name, run)
    print(pairs.describe())
    if args.sprt:
        elo0, elo1 = args.sprt
        verdict = pairs.decision(elo0, elo1) or "undecided"
        print(f"SPRT ({elo0:g}, {elo1:g}): LLR {pairs.llr(elo0, elo1):+.2f} (bounds +-{LLR_BOUND:.2f}), {verdict}")


if __name__ == "__main__":
    main()
