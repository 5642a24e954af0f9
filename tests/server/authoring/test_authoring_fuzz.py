"""Never crash: the feature functions over random text, random edits of real schemas and
truncations at every offset. No exception escapes and every span lies inside the document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalschema import default_registry
from evalschema_server.authoring import actions, completion, hover, symbols, tokens
from evalschema_server.authoring.analysis import analyze

ROOT = Path(__file__).resolve().parents[3]
BENCH = ROOT / "tests" / "data" / "extract-bench"
SCHEMAS = sorted(BENCH.glob("*/*/*-schema.json"))

SAMPLE = json.dumps({
    "type": "object", "x-eval-id": "id",
    "properties": {
        "id": {"type": "string"},
        "n": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}},
        "xs": {"type": "array", "x-eval-align": {"match_by": "key_field", "key": "k"},
               "items": {"type": "object", "properties": {"k": {"type": "string",
                                                                "x-eval-transform": ["strip"]}}}},
    },
}, indent=1)


def exercise(text: str, offsets: list[int]) -> None:
    analysis = analyze(text, default_registry)
    n = len(text)
    for loc in analysis.located:
        assert 0 <= loc.start <= loc.end <= n, loc
    for sym in symbols.outline(analysis):
        assert 0 <= sym.start <= sym.end <= n
    for off, length, _ in tokens.semantic_tokens(analysis):
        assert 0 <= off <= off + length <= n
    for e in actions.annotate_edits(analysis):
        assert 0 <= e.start <= e.end <= n
    for offset in offsets:
        for item in completion.complete(analysis, offset, default_registry, True):
            assert 0 <= item.start <= item.end <= n
        found = hover.hover(analysis, offset, default_registry)
        if found is not None:
            assert 0 <= found[1] <= found[2] <= n
        target = symbols.definition(analysis, offset)
        if target is not None:
            assert 0 <= target[0] <= target[1] <= n
    for loc in analysis.located[:5]:
        data = {**loc.problem.data, "code": loc.problem.code, "pointer": loc.problem.pointer}
        for fix in actions.quick_fixes(analysis, 0, loc.start, loc.end, data, default_registry):
            for e in fix.edits:
                assert 0 <= e.start <= e.end <= n


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list('{}[]:,"\\ x-eval-compare012.etruflsn\n\r\u2028😀')),
               max_size=120), st.lists(st.integers(0, 130), max_size=6))
def test_random_text(text: str, offsets: list[int]) -> None:
    exercise(text, [min(o, len(text)) for o in offsets])


@settings(max_examples=150, deadline=None)
@given(st.integers(0, len(SAMPLE)), st.integers(0, 30), st.text(max_size=8))
def test_random_edits_of_a_schema(at: int, cut: int, insert: str) -> None:
    text = SAMPLE[:at] + insert + SAMPLE[at + cut:]
    exercise(text, [at, min(len(text), at + len(insert)), 0, len(text)])


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_truncations_of_real_schemas(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    stride = max(1, len(text) // 150)
    for cut in range(0, len(text) + 1, stride):
        exercise(text[:cut], [cut, cut // 2])


def test_every_offset_of_a_small_schema() -> None:
    exercise(SAMPLE, list(range(len(SAMPLE) + 1)))
