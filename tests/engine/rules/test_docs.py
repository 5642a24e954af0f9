"""The committed reference docs are exactly what the registry generates."""

from __future__ import annotations

from pathlib import Path

from evalschema.rules.docs import reference_markdown

ROOT = Path(__file__).resolve().parents[3]


def test_reference_docs_are_current() -> None:
    committed = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    assert committed == reference_markdown(), (
        "docs/reference.md is stale: run `python -m evalschema.rules.docs > docs/reference.md`")


def test_every_builtin_is_documented() -> None:
    text = reference_markdown()
    for name in ("numeric", "levenshtein", "semantic", "round_digits", "hungarian", "x-eval-null"):
        assert f"### `{name}`" in text


def test_nested_parameters_are_documented_under_theirs() -> None:
    text = reference_markdown()
    assert "  - `tolerance`: " in text
    assert "    - `rel`: `{\"type\": \"number\", \"minimum\": 0}`: largest" in text
