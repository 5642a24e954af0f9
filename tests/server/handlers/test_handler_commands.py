"""The commands' argument picking (handlers/commands.py): the one object argument, however the
client wraps it, and which suites it names: by name, by a file of theirs, else all of them.
The commands themselves, end-to-end: evaluation/test_evaluation_editor_e2e.py."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from evalschema_server.guard import ClientError
from evalschema_server.handlers.commands import _arg, _pick

A = SimpleNamespace(key="a", name="shop")
B = SimpleNamespace(key="b", name="books")


def _server(tmp_path: Path) -> Any:
    """The little of the server ``_pick`` reads: suite ``b`` uses ``books.gold.jsonl``."""
    books = (tmp_path / "books.gold.jsonl").resolve()

    def suite(name: str) -> Any:
        return next((s for s in (A, B) if name in (s.key, s.name)), None)

    return SimpleNamespace(evaluation=SimpleNamespace(
        discovery=SimpleNamespace(suites=[A, B], suite=suite),
        suites_for=lambda path: [B] if path == books else []))


@pytest.mark.parametrize(("args", "want"), [
    ((), {}),
    (({"suite": "a"},), {"suite": "a"}),
    (([{"suite": "a"}],), {"suite": "a"}),  # wrapped once more by some clients
    (([],), {}),
    (("a",), {}),
    ((None, {"suite": "a"}), {}),  # only the first argument counts
])
def test_the_one_object_argument(args: tuple[Any, ...], want: dict[str, Any]) -> None:
    assert _arg(args) == want


def test_suites_by_name_by_file_else_all(tmp_path: Path) -> None:
    ls = _server(tmp_path)
    books = (tmp_path / "books.gold.jsonl").as_uri()
    assert _pick(ls, {"suite": "books"}) == [B]
    assert _pick(ls, {"suite": "a", "uri": books}) == [A]  # the name wins
    assert _pick(ls, {"uri": books}) == [B]
    assert _pick(ls, {"suite": "", "uri": books}) == [B]  # an empty name names nothing
    assert _pick(ls, {"suite": ""}) == [A, B]
    assert _pick(ls, {}) == [A, B]
    assert _pick(ls, {"uri": "untitled:1"}) == [A, B]  # not a file: no suite named


def test_a_name_or_file_of_no_suite_is_refused(tmp_path: Path) -> None:
    ls = _server(tmp_path)
    with pytest.raises(ClientError, match=r"^no suite named 'nope'; known: a, b$"):
        _pick(ls, {"suite": "nope"})
    with pytest.raises(ClientError, match=r"^other\.jsonl belongs to no suite"):
        _pick(ls, {"uri": (tmp_path / "other.jsonl").as_uri()})
