"""The limits that keep hostile input from hanging or exhausting a run.

Schemas and model output are untrusted (docs/security.md), so each piece of work
whose cost a value can blow up has a ceiling. The ceilings are the user's to set,
never the workspace's: each is read from an environment variable (user-level, like
the judge's key), so a schema or a project file cannot raise them. ``current()``
reads them when a schema is bound or an array aligned, so a changed variable takes
effect on the next run.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    #: Seconds one ``regex`` match may take before the field is an ``error``.
    regex_timeout: float = 0.5
    #: After this many timeouts of one pattern in a process, its budget drops to
    #: ``regex_timeout / 50`` per match, so a file full of hostile values stays cheap.
    regex_timeouts_before_throttle: int = 5
    #: Characters of each value ``levenshtein`` compares exactly; past them every
    #: character counts as an edit (a lower bound of the similarity, with a reason).
    compare_max_chars: int = 10_000
    #: Largest (gold x extracted) pair matrix Hungarian alignment builds; a larger
    #: array is an ``error`` with a reason. 4,000,000 pairs (2,000 x 2,000) is about
    #: 32 MB per float matrix, ~0.14 GB at the peak of the vectorised path (~35 bytes a pair).
    hungarian_max_pairs: int = 4_000_000
    #: Largest file a ``$ref`` may load, in bytes.
    ref_max_bytes: int = 16 * 1024 * 1024
    #: Directory entries one configured glob may visit before it stops (and says so).
    glob_max_entries: int = 100_000
    #: Files one configured glob may match before it stops (and says so).
    glob_max_files: int = 10_000


DEFAULTS = Limits()

#: Environment variable -> field of ``Limits``.
ENV: dict[str, str] = {
    "EVALSCHEMA_REGEX_TIMEOUT": "regex_timeout",
    "EVALSCHEMA_COMPARE_MAX_CHARS": "compare_max_chars",
    "EVALSCHEMA_HUNGARIAN_MAX_PAIRS": "hungarian_max_pairs",
    "EVALSCHEMA_REF_MAX_BYTES": "ref_max_bytes",
    "EVALSCHEMA_GLOB_MAX_ENTRIES": "glob_max_entries",
    "EVALSCHEMA_GLOB_MAX_FILES": "glob_max_files",
}


def _read(var: str, default: float | int) -> float | int:
    raw = os.environ.get(var)
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw) if isinstance(default, float) else int(raw)
    except ValueError:
        return default  # a malformed setting keeps the safe default
    return value if value > 0 and math.isfinite(value) else default


def value(name: str) -> float | int:
    """One limit in force (``current()`` reads all of them)."""
    var = next(v for v, n in ENV.items() if n == name)
    return _read(var, getattr(DEFAULTS, name))


def current() -> Limits:
    """The limits in force: the defaults, each overridable by its environment variable."""
    values = {name: _read(var, getattr(DEFAULTS, name)) for var, name in ENV.items()}
    return Limits(**values)  # type: ignore[arg-type]
