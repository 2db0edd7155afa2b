"""The one exception every command turns into a one-line message and exit code 2."""


class ReadError(Exception):
    """The package cannot be read; the message is one line naming file, line and field."""

    def __init__(self, file, message, line=None, field=None):
        where = str(file) + (f":{line}" if line else "") + (f" field '{field}'" if field else "")
        super().__init__(" ".join(f"{where}: {message}".split("\n")).encode("utf-8", "backslashreplace").decode())
