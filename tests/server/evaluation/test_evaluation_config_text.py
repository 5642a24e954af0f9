"""Where the cursor is in evalschema.toml (evaluation/config_text.py)."""

from __future__ import annotations

from evalschema_server.evaluation.config_text import KeyAt, key_at

TOML = '''\
# suites
[[suite]]
name = "a"
gold = "a.jsonl"

[suite.thresholds]
"line_items[].amount" = 0.9
total=0.8

[[suite]]
name = "b"
'''


def at(needle: str, delta: int = 0) -> int:
    return TOML.index(needle) + delta


def test_the_key_its_table_and_its_suite() -> None:
    assert key_at(TOML, at("gold", 2)) == KeyAt("suite", "gold", at("gold"), at("gold") + 4, 0)
    assert key_at(TOML, at("gold")) == KeyAt("suite", "gold", at("gold"), at("gold") + 4, 0)
    assert key_at(TOML, at("gold") + 4) is not None, "the key's right edge"
    quoted = key_at(TOML, at('"line_items', 3))
    assert quoted == KeyAt("suite.thresholds", "line_items[].amount", at('"line_items'),
                           at('"line_items') + len('"line_items[].amount"'), 0)
    assert key_at(TOML, at("total")) == KeyAt("suite.thresholds", "total", at("total"),
                                              at("total") + 5, 0)
    assert key_at(TOML, at('name = "b"')) == KeyAt("suite", "name", at('name = "b"'),
                                                   at('name = "b"') + 4, 1)


def test_headers_values_comments_and_nothing() -> None:
    header = key_at(TOML, at("[[suite]]", 3))
    assert header == KeyAt("suite", "", at("[[suite]]") + 2, at("[[suite]]") + 7, 0)
    thresholds = key_at(TOML, at("[suite.thresholds]", 4))
    assert thresholds is not None and (thresholds.table, thresholds.key) == (
        "suite.thresholds", "")
    assert key_at(TOML, at('"a.jsonl"', 2)) is None, "a value"
    assert key_at(TOML, at("# suites", 2)) is None, "a comment"
    assert key_at(TOML, len(TOML) + 5) is None
    assert key_at("", 0) is None
    pyproject = '[tool.evalschema]\n[[tool.evalschema.suite]]\nschema = "s"'
    key = pyproject.rindex("schema")
    assert key_at(pyproject, key + 1) == KeyAt("tool.evalschema.suite", "schema", key,
                                               key + 6, 0), "pyproject.toml's tables"
    assert key_at("[[suite]]\nname =", len("[[suite]]\nname =")) is None, "past the key"
    assert key_at("[[suite]]\nname", len("[[suite]]\nname")) is None, "not a key yet: no ="
