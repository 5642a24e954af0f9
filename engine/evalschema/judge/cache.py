"""The judge's verdicts kept between runs, so a re-run asks nothing it asked before.

One SQLite file holds one row per verdict: a SHA-256 key and the score, nothing else (no
value, no URL, no key), so the file can sit on shared storage. The key hashes what decides
a verdict: the endpoint, model, temperature, prompt and prompt version (``identity``) with
the gold and extracted values (``verdict_key``). Several processes and threads may use the
file at once: WAL (or a rollback journal on network storage, ``CacheSettings.shared``), a
busy timeout, and each write one transaction. A cache that cannot be opened, read or written
is a located warning (``judge-cache-unusable``) and the run goes on asking the judge.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sqlite3
import threading
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evalschema.errors import Problem, ProblemWarning, Severity
from evalschema.judge.settings import CacheSettings

#: The layout of the file (``PRAGMA user_version``); another version is left alone.
FORMAT = 1
#: Milliseconds a process waits for another's write before the cache counts as locked.
BUSY_MS = 10_000
#: Keys per SELECT (SQLite's limit on parameters is 999 in old builds).
_BATCH = 500


def default_path(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/evalschema/judge/verdicts.sqlite3`` (default ``~/.cache/...``)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "evalschema" / "judge" / "verdicts.sqlite3"


def verdict_key(identity: str, gold: Any, extracted: Any) -> str:
    """The key of one verdict: a hash of the judge's identity and the two values."""
    text = json.dumps([identity, gold, extracted], ensure_ascii=False, sort_keys=True,
                      separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class VerdictCache:
    """One process's connection to a verdict file, shared by its threads."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn
        self._lock = threading.Lock()
        #: Set once a write failed: reads go on, writes stop (one warning).
        self._read_only = False

    def get_many(self, keys: Sequence[str]) -> dict[str, float]:
        """The known verdicts among ``keys``; a failed read is a warning and none."""
        found: dict[str, float] = {}
        unique = list(dict.fromkeys(keys))
        try:
            with self._lock:
                for i in range(0, len(unique), _BATCH):
                    part = unique[i:i + _BATCH]
                    rows = self._conn.execute(
                        f"SELECT key, score FROM verdicts WHERE key IN "
                        f"({','.join('?' * len(part))})", part).fetchall()
                    found.update((k, float(s)) for k, s in rows
                                 if isinstance(s, int | float) and 0.0 <= s <= 1.0)
        except sqlite3.Error as exc:
            _warn(self.path, "read", exc)
            return {}
        return found

    def put_many(self, verdicts: Mapping[str, float]) -> None:
        """Store ``verdicts`` in one transaction (all or none); a failure is a warning."""
        rows = [(k, s) for k, s in verdicts.items() if math.isfinite(s) and 0.0 <= s <= 1.0]
        if not rows or self._read_only:
            return
        try:
            with self._lock:
                try:
                    self._conn.execute("BEGIN IMMEDIATE")
                    self._conn.executemany(
                        "INSERT OR REPLACE INTO verdicts (key, score) VALUES (?, ?)", rows)
                    self._conn.execute("COMMIT")
                except BaseException:
                    if self._conn.in_transaction:
                        self._conn.execute("ROLLBACK")
                    raise
        except sqlite3.Error as exc:
            self._read_only = True
            _warn(self.path, "written", exc)


def _connect(path: Path, shared: bool) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=BUSY_MS / 1000, isolation_level=None,
                           check_same_thread=False)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, FORMAT):
            raise sqlite3.DatabaseError(f"it has layout {version}, this evalschema reads "
                                        f"{FORMAT} (a newer evalschema made it?)")
        if shared:
            conn.execute("PRAGMA journal_mode = DELETE")
        else:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, "
                     "score REAL NOT NULL) WITHOUT ROWID")
        if version == 0:
            conn.execute(f"PRAGMA user_version = {FORMAT}")
    except BaseException:
        conn.close()
        raise
    return conn


_lock = threading.Lock()
#: Per process: the open cache of each file, or None for a file found unusable.
_open: dict[tuple[str, bool], VerdictCache | None] = {}
#: Warnings given in this process, so each shows once.
_warned: set[tuple[str, str]] = set()
#: Connections a forked child inherited: kept unclosed (closing one could undo the parent's
#: locks or checkpoint its file), never used.
_inherited: list[Any] = []


def open_cache(settings: CacheSettings) -> VerdictCache | None:
    """The process's cache for ``settings`` (opened once), or None when it is off or
    unusable (then a warning says why, once)."""
    if not settings.enabled:
        return None
    path = Path(settings.path).expanduser() if settings.path else default_path()
    key = (str(path), settings.shared)
    with _lock:
        if key in _open:
            return _open[key]
        try:
            cache: VerdictCache | None = VerdictCache(path, _connect(path, settings.shared))
        except (sqlite3.Error, OSError) as exc:
            cache = None
            _warn(path, "opened", exc)
        _open[key] = cache
        return cache


def _warn(path: Path, what: str, exc: BaseException) -> None:
    if (str(path), what) in _warned:
        return
    _warned.add((str(path), what))
    reason = str(exc) or type(exc).__name__
    warnings.warn(ProblemWarning(Problem(
        "judge-cache-unusable", f"the judge's verdict cache could not be {what} ({reason}); "
        "the run goes on without it, asking the judge", severity=Severity.WARNING,
        source=str(path), suggestion="delete the file if it is damaged, or choose another "
        "with --judge-cache PATH or [cache] path in judges.toml (--no-judge-cache: none)")),
        stacklevel=3)


def forget() -> None:
    """Close every cache of the process and forget the warnings given (tests)."""
    with _lock:
        for cache in _open.values():
            if cache is not None:
                cache._conn.close()
        _open.clear()
        _warned.clear()


def _after_fork() -> None:
    """A forked child opens its own connections; a file found unusable stays so."""
    global _lock
    for key, cache in list(_open.items()):
        if cache is not None:
            _inherited.append(cache)
            del _open[key]
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
