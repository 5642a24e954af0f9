"""The one exception the compat layer raises.

Where a peer system raises on some input (a ZeroDivisionError, a validation
error, an invalid parameter), we raise ``CompatInputError`` instead and name the
original behaviour in the message, so a caller handles one type and still learns
what the peer would have done.
"""

from __future__ import annotations


class CompatInputError(ValueError):
    """The input cannot be scored the way the peer system scores it.

    ``original`` names what the peer raises (e.g. ``"ZeroDivisionError"``) when
    the error reproduces a peer failure, and is ``None`` when the input is
    outside what this compat layer supports. ``record`` is the 0-based index of the
    record pair that raised, when one did (the CLI turns it into the file and line).
    """

    def __init__(self, message: str, *, original: str | None = None,
                 record: int | None = None) -> None:
        super().__init__(f"{message} [the original raises {original}]" if original else message)
        self.original = original
        self.record = record
