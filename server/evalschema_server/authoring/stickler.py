""""Convert Stickler keys to x-eval-*": a Stickler model (a JSON Schema with
``x-aws-stickler-*`` keys, or a model configuration) becomes a new eval schema next to it.

A new file, not an edit of the open one: Stickler still reads its schema, and a model
configuration is not a JSON Schema at all. The engine converts (``schema.stickler``); here
the converted schema gets its report as a comment header (eval schemas may hold comments,
so the file is ``NAME.eval.jsonc``) and a name no file has yet. Nothing is written: the
editor applies the edit, and only when the user picks the action.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from evalschema.safetext import json_text
from evalschema.schema.stickler import (
    COUNTS,
    MODEL_CONFIG,
    PREFIX,
    SticklerImport,
    has_stickler_keys,
    import_stickler,
    stickler_form,
)

TITLE = "Convert Stickler keys to x-eval-* (new file {name})"
#: Endings dropped from the Stickler file's name before ``.eval.jsonc`` is added.
_ENDINGS = (".json", ".jsonc", ".schema", ".config", ".stickler")


@dataclass(frozen=True)
class Conversion:
    """The new file: where it goes, its text, and the report it carries."""

    path: Path
    text: str
    result: SticklerImport

    @property
    def title(self) -> str:
        return TITLE.format(name=self.path.name)


def conversion(text: str, path: Path, taken: Callable[[Path], bool]) -> Conversion | None:
    """The conversion of a Stickler document at ``path``, or None when it is not one (a
    JSON Schema without Stickler keys is left alone: it is any JSON Schema). ``taken``
    says whether a file name is in use (on disk or open)."""
    if PREFIX not in text and '"fields"' not in text:
        return None  # the cheap test: most JSON files are not Stickler's
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    form = stickler_form(doc)
    if form is None or (form != MODEL_CONFIG and not has_stickler_keys(doc)):
        return None
    result = import_stickler(doc)
    return Conversion(target(path, taken), file_text(result, path.name), result)


def target(path: Path, taken: Callable[[Path], bool]) -> Path:
    """``invoice.schema.json`` → ``invoice.eval.jsonc`` beside it (``invoice-2.eval.jsonc``
    when that is taken)."""
    stem = path.name
    for ending in _ENDINGS:
        if stem.lower().endswith(ending) and len(stem) > len(ending):
            stem = stem[: -len(ending)]
    n = 1
    while True:
        candidate = path.with_name(f"{stem}{'' if n == 1 else f'-{n}'}.eval.jsonc")
        if candidate != path and not taken(candidate):
            return candidate
        n += 1


def _one_line(text: str) -> str:
    """Report text inside a ``//`` comment: one line whatever the input held."""
    return " ".join(text.split())


def file_text(result: SticklerImport, source: str) -> str:
    kind = "model configuration" if result.form == MODEL_CONFIG else "JSON Schema"
    head = [f"// Converted from {_one_line(source)} (a Stickler {kind}) by evalschema.",
            f"// Stickler's counts differ from evalschema's: {COUNTS}. What has no exact "
            "equivalent, by JSON Pointer into the source:"]
    for p in result.problems[1:]:  # the first is the note on counts, said above
        line = f"{p.pointer or '/'}: {p.severity} {p.code}: {p.message}"
        if p.suggestion:
            line += f" ({p.suggestion})"
        head.append("//   " + _one_line(line))
    if len(result.problems) == 1:
        head.append("//   nothing: every key converted exactly")
    return "\n".join(head) + "\n" + json_text(result.schema) + "\n"
