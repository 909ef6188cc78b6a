#!/usr/bin/env python3
"""Plays Lianzhu against another Gomocup engine (or another Lianzhu build) through
c-gomoku-cli, both colours of every opening, and reports W-L-D, score, Elo and failures.

c-gomoku-cli is found on PATH or through $C_GOMOKU_CLI. It is not part of this
repository; build it from https://github.com/nkg114mc/c-gomoku-cli (cd src && make;
GCC 12 needs -fpermissive -include cstring added to CXXFLAGS in its Makefile).

Examples:
  scripts/match.py --opponent /path/to/pbrain-pisq --rule 0 --size 20 --tc 0/1 --games 100
  scripts/match.py --engine new/pbrain-lianzhu --opponent old/pbrain-lianzhu --sprt 0 10

With --sprt ELO0 ELO1 the match is a sequential probability ratio test (alpha = beta =
0.05) on game pairs (pairs.py) that stops as soon as it is decided; that is how
strength changes are accepted.
Standard library only. Games (SGF), engine messages and the runner's log are kept in
--out (default: matches/<date-time>/).
"""
import argparse
import math
import os
import pty
import re
import shutil
import signal
import subprocess
import sys
import time

from pairs import Pairs, elo
from records import read_games, records

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OPENINGS = {
    (0, 20): "freestyle_20x20.txt",
    (0, 15): "freestyle_15x15.txt",
    (1, 15): "freestyle_15x15.txt",
    (1, 20): "freestyle_20x20.txt",
    (4, 15): "renju_15x15.txt",
}


def find_runner():
    runner = os.environ.get("C_GOMOKU_CLI") or shutil.which("c-gomoku-cli")
    if not runner:
        sys.exit(
            "c-gomoku-cli not found: put it on PATH or set C_GOMOKU_CLI.\n"
            "Get it from https://github.com/nkg114mc/c-gomoku-cli and build it with "
            "'cd src && make' (GCC 12 needs '-fpermissive -include cstring' added to "
            "CXXFLAGS in its Makefile)."
        )
    return runner


def summary(wins, losses, draws):
    """Score, and the Elo difference with its 95 % error bar as text, from the first
    engine's side. When the interval reaches a 0 % or 100 % score, Elo has no finite
    bound there and only the other bound is given."""
    games = wins + losses + draws
    score = (wins + draws / 2) / games
    variance = (wins * (1 - score) ** 2 + losses * score**2 + draws * (0.5 - score) ** 2) / games
    margin = 1.96 * math.sqrt(variance / games)
    low, high = score - margin, score + margin
    if score in (0, 1):
        return score, f"{'+' if score else '-'}inf (every game {'won' if score else 'lost'})"
    if low <= 0 and high >= 1:
        return score, f"{elo(score):+.0f} (interval unbounded)"
    if high >= 1:
        return score, f"{elo(score):+.0f} (95 %: above {elo(low):+.0f})"
    if low <= 0:
        return score, f"{elo(score):+.0f} (95 %: below {elo(high):+.0f})"
    return score, f"{elo(score):+.0f} +/- {(elo(high) - elo(low)) / 2:.0f}"


def threads(count):
    return [f"thread={count}"] if count else []


def options(pairs):
    """c-gomoku-cli sends `option.KEY=VALUE` as `INFO KEY VALUE` before each game."""
    return [f"option.{pair}" for pair in pairs or []]


# What c-gomoku-cli prints when an engine fails, with the engine's name. It writes a
# game lost at START (an ERROR or no OK) into the SGF as a time forfeit of the side to
# move, whichever engine failed, so time losses and crashes are counted from these lines.
RUNNER_FAILURES = [
    ("time", re.compile(r"engine (\S+) timeout (?:at \d+ moves after opening|before answering START)")),
    ("crash", re.compile(r"engine (\S+) crashed (?:at \d+ moves after opening|before answering START)")),
    ("start", re.compile(r"engine (\S+) output error:")),
    ("illegal", re.compile(r"engine (\S+) output illegal move")),
]


def count_failures(runner_log, sgf_text, engine_name):
    """Failures of `engine_name` ("lianzhu") and of its opponent: time losses, crashes,
    ERROR answers to START and illegal moves as the runner reported them, and forbidden
    moves (always Black's) from the games."""
    failures = {}

    def add(side, kind):
        failures[(side, kind)] = failures.get((side, kind), 0) + 1

    for line in runner_log.splitlines():
        for kind, pattern in RUNNER_FAILURES:
            for name in pattern.findall(line):
                add("lianzhu" if name == engine_name else "opponent", kind)
    for black, game in records(sgf_text):
        reason = re.search(r"TE\[(.*?)\]", game)
        if reason and "forbidden" in reason.group(1):
            add("lianzhu" if black == engine_name else "opponent", "forbidden")
    return failures


def by_colour(sgf_text, engine_name):
    """W-L-D of `engine_name` as Black and as White: renju and small boards favour one
    colour, so the two halves of a match tell apart what the total hides."""
    results = {"B": [0, 0, 0], "W": [0, 0, 0]}
    for _, _, _, black, winner, _ in read_games(sgf_text):
        colour = "B" if black == engine_name else "W"
        outcome = 2 if winner is None else (0 if winner == colour else 1)
        results[colour][outcome] += 1
    return results


def answer_times(sgf_text, engine_name):
    """Milliseconds each side took per move, as the runner timed them (the comment of
    every move after the opening), keyed "lianzhu" and "opponent"."""
    times = {"lianzhu": [], "opponent": []}
    for black, record in records(sgf_text):
        for colour, ms in re.findall(r";([BW])\[\w+\]C\[(\d+)ms\]", record):
            ours = (colour == "B") == (black == engine_name)
            times["lianzhu" if ours else "opponent"].append(int(ms))
    return times


def describe_answer_times(times, turn_ms):
    """The longest answer, the 99th percentile and how many answers took longer than the
    turn limit: the margin an engine keeps shows here before it costs a game."""
    if not times:
        return "no timed answers"
    ordered = sorted(times)
    percentile = ordered[min(len(ordered) - 1, len(ordered) * 99 // 100)]
    over = sum(1 for ms in ordered if turn_ms and ms > turn_ms)
    return f"longest answer {ordered[-1]} ms, 99 % within {percentile} ms, {over} of {len(ordered)} over the turn limit"


def start_runner(command):
    """Starts the runner with its output (stdout and stderr) on a pseudo-terminal, and
    returns the process and its output lines. On a terminal the C library writes a line
    at a time, so each game is reported as it ends, and failure reports never land
    inside another line; on a pipe it holds 4 kB, some 25 games. (The usual c-gomoku-cli
    build is static, which `stdbuf` cannot reach.)"""
    controller, terminal = pty.openpty()
    # A session of its own, so that stopping the runner stops its engines too.
    process = subprocess.Popen(command, stdout=terminal, stderr=terminal, start_new_session=True)
    os.close(terminal)

    def lines():
        with open(controller, errors="replace") as output:
            try:
                yield from output
            except OSError:  # the terminal's other end closed: the runner is done
                return

    return process, lines()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", default=os.path.join(ROOT, "target/release/pbrain-lianzhu"))
    parser.add_argument("--opponent", required=True, help="command of the other engine")
    parser.add_argument("--rule", type=int, default=0, choices=[0, 1, 4])
    parser.add_argument("--size", type=int, default=20)
    parser.add_argument("--tc", default="0/1", help="c-gomoku-cli time control: match/turn seconds")
    parser.add_argument("--games", type=int, default=20, help="games in all (each opening twice)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--engine-threads", type=int, help="INFO thread_num for --engine")
    parser.add_argument("--opponent-threads", type=int, help="INFO thread_num for --opponent")
    parser.add_argument("--engine-option", action="append", metavar="KEY=VALUE",
                        help="INFO KEY VALUE for --engine before each game (e.g. evalfile=net.lznt); repeatable")
    parser.add_argument("--opponent-option", action="append", metavar="KEY=VALUE",
                        help="INFO KEY VALUE for --opponent before each game; repeatable")
    parser.add_argument("--openings", help="offset openings file (default: scripts/openings/ by rule and size)")
    parser.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"))
    parser.add_argument("--out", help="folder for games and logs")
    args = parser.parse_args()

    runner = find_runner()
    out = args.out or os.path.join(ROOT, "matches", time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(out, exist_ok=True)
    openings = args.openings or os.path.join(ROOT, "scripts", "openings", DEFAULT_OPENINGS.get((args.rule, args.size), ""))
    command = [
        runner,
        "-each", f"tc={args.tc}",
        "-engine", "name=lianzhu", f"cmd={os.path.abspath(args.engine)}", *threads(args.engine_threads),
        *options(args.engine_option),
        "-engine", "name=opponent", f"cmd={os.path.abspath(args.opponent)}", *threads(args.opponent_threads),
        *options(args.opponent_option),
        "-rule", str(args.rule), "-boardsize", str(args.size),
        "-games", str(args.games), "-repeat", "-concurrency", str(args.concurrency),
        "-drawafter", str(args.size * args.size),
        "-sgf", os.path.join(out, "games.sgf"), "-msg", os.path.join(out, "messages.txt"),
    ]
    if os.path.isfile(openings):
        command += ["-openings", f"file={openings}", "type=offset", "order=sequential"]
    else:
        print(f"no openings file {openings}: games start from the empty board", file=sys.stderr)
    live_pairs = Pairs()
    # Stopped by a signal (Ctrl-C, kill), the match still ends its runner and engines
    # and sums up the games so far.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    with open(os.path.join(out, "runner.log"), "w") as log:
        process, output = start_runner(command)
        last = None
        try:
            for line in output:
                log.write(line)
                log.flush()
                if line.startswith("Score of"):
                    last = line
                    print(line.rstrip(), flush=True)
                if args.sprt and live_pairs.add_finished_line(line, "lianzhu"):
                    elo0, elo1 = args.sprt
                    print(f"SPRT ({elo0:g}, {elo1:g}) on pairs: LLR {live_pairs.llr(elo0, elo1):+.2f}", flush=True)
                    verdict = live_pairs.decision(elo0, elo1)
                    if verdict:
                        print(f"{verdict} accepted", flush=True)
                        break
        except KeyboardInterrupt:
            print("stopped before the end", flush=True)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
            process.wait()
    if not last:
        sys.exit(f"no game finished; see {out}/runner.log")
    wins, losses, draws = map(int, re.search(r": (\d+) - (\d+) - (\d+)", last).groups())
    score, difference = summary(wins, losses, draws)
    print(f"\nlianzhu vs {os.path.basename(args.opponent)}: rule {args.rule}, {args.size}x{args.size}, tc {args.tc}")
    print(f"W-L-D {wins}-{losses}-{draws}  score {100 * score:.1f} %  Elo {difference}")
    with open(os.path.join(out, "runner.log")) as log, open(os.path.join(out, "games.sgf")) as sgf:
        sgf_text = sgf.read()
        failures = count_failures(log.read(), sgf_text, "lianzhu")
    finished_pairs = Pairs()
    finished_pairs.add_sgf(sgf_text, "lianzhu")
    print(finished_pairs.describe())
    colours = by_colour(sgf_text, "lianzhu")
    print("as Black {}-{}-{}, as White {}-{}-{}".format(*colours["B"], *colours["W"]))
    for side in ["lianzhu", "opponent"]:
        kinds = {kind: failures.get((side, kind), 0) for kind in ["time", "crash", "start", "illegal", "forbidden"]}
        print(
            f"{side} losses by time {kinds['time']}, crash {kinds['crash']}, error at START {kinds['start']}, "
            f"illegal move {kinds['illegal']}, forbidden move {kinds['forbidden']}"
        )
    turn_ms = round(1000 * float(args.tc.split("/")[-1]))
    for side, times in answer_times(sgf_text, "lianzhu").items():
        print(f"{side} {describe_answer_times(times, turn_ms)}")
    print(f"games and logs: {out}")


if __name__ == "__main__":
    main()
