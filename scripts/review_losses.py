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
"move number:played[judge's move]score".
"""
import argparse
import re
import subprocess


class Judge:
    def __init__(self, command, turn_ms):
        self.process = subprocess.Popen(
            [command], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        self.send(f"INFO timeout_turn {turn_ms}")

    def send(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def answer(self):
        """The judge's last score and its answer line (a move, OK or an error)."""
        score = None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the judge exited")
            line = line.strip()
            found = re.search(r"Eval (-?\d+)", line)
            if found:
                score = int(found.group(1))
            elif re.match(r"^\d+,\d+$", line) or line == "OK" or line.startswith("ERROR"):
                return score, line

    def think(self, size, rule, moves):
        """The judge's score and move for the side to move after `moves`. Each position
        starts a new game: a judge that is sent BOARD after BOARD can fall out of step."""
        self.send(f"INFO rule {rule}")
        self.send(f"START {size}")
        self.answer()
        self.send("BOARD")
        to_move_is_black = len(moves) % 2 == 0
        for i, (x, y) in enumerate(moves):
            own = 1 if (i % 2 == 0) == to_move_is_black else 2
            self.send(f"{x},{y},{own}")
        self.send("DONE")
        return self.answer()

    def close(self):
        self.send("END")
        self.process.wait(timeout=10)


def lost_games(sgf_text, engine_name):
    for record in sgf_text.split("(;")[1:]:
        black = re.search(r"PB\[(.*?)\]", record).group(1)
        result = re.search(r"RE\[(.*?)\]", record).group(1)
        size = int(re.search(r"SZ\[(\d+)\]", record).group(1))
        rule = int(re.search(r"RU\[(\d+)\]", record).group(1))
        lianzhu_black = black == engine_name
        if result[:1] not in ("B", "W") or (result[0] == "B") == lianzhu_black:
            continue
        moves = [(ord(a) - 97, ord(b) - 97) for a, b in re.findall(r";[BW]\[(\w)(\w)\]", record)]
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
    with open(args.sgf) as sgf:
        games = list(lost_games(sgf.read(), args.name))[: args.games]
    for lianzhu_black, size, rule, moves in games:
        marks = []
        for n in range(len(moves) - 1):
            if (n % 2 == 0) != lianzhu_black:
                continue
            score, choice = judge.think(size, rule, moves[:n])
            if choice.startswith("ERROR"):
                # Rapfi at 100 ms now and then answered ERROR; asked again, it answers.
                score, choice = judge.think(size, rule, moves[:n])
            played = f"{moves[n][0]},{moves[n][1]}"
            marks.append(f"{n + 1}:{played}[{choice}]{'' if score is None else score}")
        print(("B " if lianzhu_black else "W ") + " ".join(marks), flush=True)
    judge.close()


if __name__ == "__main__":
    main()
