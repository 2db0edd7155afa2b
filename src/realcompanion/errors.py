"""The one exception every command turns into a one-line message and exit code 2."""

LONGEST = 400  # characters of a message; a longer one keeps its start and its end (where jsonschema says what is wrong)


def visible(value) -> str:
    """`value` as text on one line: each unprintable character as its escape (`\\n`, `\\x1b`, `\\u2028`), so that
    a value from a release cannot draw a line of its own, nor send escape sequences to the terminal."""
    text = str(value)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def visible_lines(text: str) -> str:
    """`text` of several lines (a citation, a plan) with its line breaks kept and every other unprintable character
    escaped as `visible` escapes it: a title in CITATION.cff, or a file's name under data/, printed an escape sequence
    that cleared the terminal or retitled its window."""
    return "\n".join(map(visible, text.split("\n")))


def clipped(value, columns: int, mark: str = "") -> str:
    """`value` as `visible` shows it, cut to `columns` terminal columns (a Chinese character takes two), `mark`
    ending a cut one. Escaped first, so each escape counts the columns it shows: cut first, a run of zero-width
    joiners or direction marks counted no column, was never cut, and its escapes ran the line to any length."""
    from rich.cells import cell_len, set_cell_size

    text = visible(value)
    return text if cell_len(text) <= columns else set_cell_size(text, columns - cell_len(mark)) + mark


class ReadError(Exception):
    """The package cannot be read; the message is one line naming file, line and field, every unprintable
    character of it escaped (`visible`) and at most LONGEST characters."""

    def __init__(self, file, message, line=None, field=None):
        where = str(file) + (f":{line}" if line else "") + (f" field '{field}'" if field else "")
        text = visible(" ".join(f"{where}: {message}".split("\n")))  # a library's message of several lines: one
        if len(text) > LONGEST:
            text = f"{text[:LONGEST // 2]} ... {text[-LONGEST // 2:]}"
        super().__init__(text)

    def __reduce__(self):  # the line as made, rebuilt as it is: the error of a forked process (`checked.apart`)
        return _as_made, (type(self), str(self))


def _as_made(kind: type, text: str) -> ReadError:
    exc = kind.__new__(kind)
    Exception.__init__(exc, text)
    return exc
