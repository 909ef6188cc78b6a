#!/usr/bin/env python3
"""Writes balanced openings in Gomocup offset notation (x,y offsets from the centre).

Random openings of STONES stones within RADIUS of the centre are drawn from a fixed
seed; each is kept only if ENGINE, thinking MS milliseconds on it, scores it within
MARGIN of even. ENGINE is Lianzhu or, as a sharper judge, Rapfi (its scores have their own
units: about 100 is a clear edge at 1 s).
Standard library only.

usage: make_openings.py ENGINE SIZE RULE COUNT [--stones 3] [--radius 3] [--ms 200]
                        [--margin 150] [--seed 1] > openings.txt
"""
import argparse
import random
import re
import subprocess
import sys

# Lianzhu reports "MESSAGE depth D ev S ...", Rapfi "MESSAGE ... | Eval S | ...".
SCORE = re.compile(r"^MESSAGE .*\b(?:ev|Eval) (-?\d+)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("engine")
    parser.add_argument("size", type=int)
    parser.add_argument("rule", type=int)
    parser.add_argument("count", type=int)
    parser.add_argument("--stones", type=int, default=3)
    parser.add_argument("--radius", type=int, default=3)
    parser.add_argument("--ms", type=int, default=200)
    parser.add_argument("--margin", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    engine = subprocess.Popen([args.engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(line):
        engine.stdin.write(line + "\n")
        engine.stdin.flush()

    def answer():
        """Returns (last search score, answer line)."""
        score = None
        while True:
            line = engine.stdout.readline()
            if not line:
                raise SystemExit("engine exited")
            line = line.strip()
            reported = SCORE.search(line)
            if reported:
                score = int(reported.group(1))
            elif not line.startswith("MESSAGE"):
                return score, line

    send(f"INFO rule {args.rule}")
    send(f"INFO timeout_turn {args.ms}")
    send(f"START {args.size}")
    answer()
    half = args.size // 2
    kept, seen = [], set()
    while len(kept) < args.count:
        offsets = []
        while len(offsets) < args.stones:
            point = (rng.randint(-args.radius, args.radius), rng.randint(-args.radius, args.radius))
            if point not in offsets:
                offsets.append(point)
        key = tuple(offsets)
        if key in seen:
            continue
        seen.add(key)
        send("BOARD")
        for i, (dx, dy) in enumerate(offsets):
            own = 1 if (len(offsets) - i) % 2 == 0 else 2
            send(f"{dx + half},{dy + half},{own}")
        send("DONE")
        score, _ = answer()
        print(f"{key}: {score}", file=sys.stderr)
        if score is not None and abs(score) <= args.margin:
            kept.append(", ".join(f"{dx},{dy}" for dx, dy in offsets))
            print(kept[-1], flush=True)
    send("END")


if __name__ == "__main__":
    main()
