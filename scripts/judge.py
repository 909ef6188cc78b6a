"""A Gomocup engine used as a judge by the review, labelling and opening scripts: it
scores positions (its "Eval" MESSAGE lines as Rapfi prints them, or "ev" as Lianzhu
does) and names its move."""
import queue
import re
import subprocess
import threading

# A proven win or loss ("Eval +M5", "Eval -M4") counts as this many of Rapfi's units,
# about four logits at its scale. Leaving such positions out of the labels dropped most
# positions where the side to move has a four-three: a fit on them cut that threat's
# weight from 4 173 to 943, and the engine lost 34 of 44 games to Rapfi.
MATE_SCORE = 400
SCORE = re.compile(r"\b(?:Eval|ev) ([-+]?)(M?)(\d+)")


def is_move(line):
    """Whether an answer line is a move ("x,y")."""
    return re.match(r"^\d+,\d+$", line) is not None


def score_of(line):
    """The score an "Eval" or "ev" MESSAGE line gives (a mate as +-MATE_SCORE), or None."""
    found = SCORE.search(line)
    if not found:
        return None
    sign, mate, value = found.groups()
    magnitude = MATE_SCORE if mate else int(value)
    return -magnitude if sign == "-" else magnitude


# Lianzhu's proven results score beyond this (its MATE is 1 000 000 less the plies).
LIANZHU_MATE_BOUND = 900_000


def proven_sign(line):
    """'+' or '-' when an "Eval" or "ev" MESSAGE line reports a proven win or loss for its
    sender, else None."""
    found = SCORE.search(line)
    if not found:
        return None
    sign, mate, value = found.groups()
    if not mate and int(value) <= LIANZHU_MATE_BOUND:
        return None
    return sign or "+"


class Judge:
    def __init__(self, command, turn_ms, settings=()):
        """`settings`: further INFO lines ("INFO max_node 300000"), sent again whenever
        the judge is restarted."""
        self.command, self.turn_ms, self.settings = command, turn_ms, list(settings)
        self.start()

    def start(self):
        self.process = subprocess.Popen(
            [self.command], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        self.lines = queue.Queue()
        self.rule = None
        self.score_line = None
        threading.Thread(target=self.read, args=(self.process, self.lines), daemon=True).start()
        self.send(f"INFO timeout_turn {self.turn_ms}")
        for line in self.settings:
            self.send(line)

    @property
    def proven(self):
        """`proven_sign` of the last answer's score line: "+", "-" or None."""
        return proven_sign(self.score_line) if self.score_line else None

    @staticmethod
    def read(process, lines):
        for line in process.stdout:
            lines.put(line.strip())
        lines.put(None)

    def send(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def next_line(self, timeout):
        """The judge's next line, or None when it stayed silent `timeout` seconds: it is
        then taken for stuck and restarted."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.process.kill()
            self.start()
            return None
        if line is None:
            raise RuntimeError("the judge exited")
        return line

    def answer(self):
        """The judge's last score and its answer line (a move, OK or an error). A judge
        silent for much longer than its turn is taken for stuck: it is restarted and
        the answer is "TIMEOUT". `self.score_line` keeps the line of the last score."""
        score = None
        self.score_line = None
        while True:
            line = self.next_line(max(5.0, self.turn_ms / 50))
            if line is None:
                return None, "TIMEOUT"
            reported = score_of(line)
            if reported is not None:
                score = reported
                self.score_line = line
            elif is_move(line) or line == "OK" or line.startswith("ERROR"):
                return score, line

    def think(self, size, rule, moves):
        """The judge's score (see `score_of`) and move for the side to move after
        `moves`. Rapfi at 100 ms now and then answered ERROR; asked again, it answers."""
        score, answer = self.ask(size, rule, moves)
        if answer.startswith("ERROR") or answer == "TIMEOUT":
            score, answer = self.ask(size, rule, moves)
        return score, answer

    def ask(self, size, rule, moves):
        """Each position starts a new game: a judge that is sent BOARD after BOARD can
        fall out of step."""
        if not self.set_up(size, rule, moves, "BOARD"):
            return None, "TIMEOUT"
        return self.answer()

    def set_up(self, size, rule, moves, block):
        """Starts a new game and sends `moves` in a BOARD or YXBOARD `block`; False when
        the judge did not take START in time (it is then restarted)."""
        # Rapfi, just after it answers, can misread a line sent to it (it took
        # "INFO rule 0" for a command "RULE"), so the rule goes only when it changes.
        if rule != self.rule:
            self.send(f"INFO rule {rule}")
            self.rule = rule
        self.send(f"START {size}")
        if self.answer()[1] == "TIMEOUT":
            return False
        self.send(block)
        to_move_is_black = len(moves) % 2 == 0
        for i, (x, y) in enumerate(moves):
            own = 1 if (i % 2 == 0) == to_move_is_black else 2
            self.send(f"{x},{y},{own}")
        self.send("DONE")
        return True

    def balance_two(self, size, rule, moves):
        """The two stones (the side to move's, then the reply) that the judge says leave
        the position after `moves` closest to even (Yixin-Board's YXBALANCETWO 0), or
        None when it gives none."""
        if not self.set_up(size, rule, moves, "YXBOARD"):
            return None
        self.send("YXBALANCETWO 0")
        pair = re.compile(r"^(\d+),(\d+) (\d+),(\d+)$")
        while True:
            line = self.next_line(max(60.0, self.turn_ms / 20))
            if line is None:
                return None
            found = pair.match(line)
            if found:
                x1, y1, x2, y2 = map(int, found.groups())
                return [(x1, y1), (x2, y2)]
            if line.startswith("ERROR") or line.startswith("UNKNOWN"):
                return None

    def close(self):
        self.send("END")
        self.process.wait(timeout=10)
