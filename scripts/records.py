"""Games as c-gomoku-cli writes them to SGF, and the engines' MESSAGE lines as it writes
them to messages.txt, for the scripts that read matches back."""
import re
import sys


def read_text(path):
    """The text of the file at `path`; a file that cannot be read ends the script with
    one line that names it, not a traceback."""
    try:
        with open(path, errors="replace") as file:
            return file.read()
    except OSError as error:
        sys.exit(f"error: cannot read {path}: {error.strerror or error}")


def records(sgf_text):
    """Each game record of an SGF collection with Black's name."""
    for record in sgf_text.split("(;")[1:]:
        black = re.search(r"PB\[(.*?)\]", record)
        if black:
            yield black.group(1), record


def read_games(sgf_text):
    """Each finished game: number, rule, size, Black's name, winner ("B", "W" or None
    for a draw), and the moves (x, y) from the empty board."""
    for black, record in records(sgf_text):
        result = re.search(r"RE\[(.*?)\]", record)
        if not result:
            continue
        winner = result.group(1)[:1]
        yield (
            int(re.search(r"GN\[(\d+)\]", record).group(1)),
            int(re.search(r"RU\[(\d+)\]", record).group(1)),
            int(re.search(r"SZ\[(\d+)\]", record).group(1)),
            black,
            winner if winner in ("B", "W") else None,
            [(ord(a) - 97, ord(b) - 97) for a, b in re.findall(r";[BW]\[(\w)(\w)\]", record)],
        )


def messages_by_game(messages_text):
    """Game number -> the MESSAGE lines of that game as (move number, engine, text), in
    the order the engines printed them."""
    games = {}
    for block in messages_text.split("Game ID: ")[1:]:
        number = int(block.split("\n", 1)[0])
        games[number] = [(int(move), engine, text) for move, engine, text in re.findall(r"^(\d+)\) (\S+): (.*)$", block, re.M)]
    return games
