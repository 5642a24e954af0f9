"""``x-eval-confidence``: where a field's confidence sits in an extracted record.

Two forms (docs/schemas.md):

- a **key** (no leading ``/``): a key of the object holding the field, ``{key}`` standing
  for the field's name: ``"{key}_confidence"`` reads ``total_confidence`` beside ``total``;
- a **pointer** (leading ``/``): an RFC 6901 pointer from the extracted record's root,
  ``{path}`` standing for the segments of the value's own pointer: ``"/confidence/{path}"``
  reads ``/confidence/line_items/2/amount`` for ``/line_items/2/amount``.

Written on an object, an array or the root, the value is a template inherited by every
leaf below, so it must hold its placeholder; ``false`` turns confidence off below.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from evalschema.pointer import escape, split

KEY = "{key}"
PATH = "{path}"
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


@dataclass(frozen=True, slots=True)
class ConfidenceAt:
    """Where one leaf's confidence sits: a sibling key (``key``), or a pointer template
    (``pointer``, holding ``{path}`` or not)."""

    key: str | None = None
    pointer: str | None = None
    #: Where the ``x-eval-confidence`` in force is written in the schema (errors point there).
    where: str = field(default="", compare=False)
    #: Written on the leaf itself, not inherited from a template above it.
    own: bool = field(default=False, compare=False)

    def locate(self, extracted_pointer: str) -> str:
        """The pointer of the confidence of the value at ``extracted_pointer``."""
        if self.key is not None:
            return extracted_pointer[:extracted_pointer.rfind("/")] + "/" + escape(self.key)
        assert self.pointer is not None
        return self.pointer.replace(PATH, extracted_pointer[1:])

    @property
    def fixed_prefix(self) -> list[str]:
        """The segments of a pointer form before ``{path}``: where its parallel object (or
        its one value) sits."""
        assert self.pointer is not None
        head = self.pointer.split(PATH, 1)[0].rstrip("/")
        return split(head)


def parse(value: object, *, template: bool, repeated: bool = False) -> str | None:
    """Why ``value`` is not a valid ``x-eval-confidence`` (None when it is). ``template``:
    written on an object, array or the root, so its placeholder is required; ``repeated``:
    on a leaf inside array items or map values, so a pointer needs ``{path}``."""
    if value is False:
        return None
    if not isinstance(value, str) or not value:
        return ("x-eval-confidence must be a key (\"{key}_confidence\"), a JSON Pointer "
                "(\"/confidence/{path}\") or false")
    pointer = value.startswith("/")
    allowed = PATH if pointer else KEY
    for found in _PLACEHOLDER.findall(value):
        if found != allowed:
            return (f"x-eval-confidence: unknown placeholder {found} in "
                    f"{'a pointer' if pointer else 'a key'} (it takes {allowed} only)")
    rest = _PLACEHOLDER.sub("", value)
    if "{" in rest or "}" in rest:
        return "x-eval-confidence: an unmatched brace (placeholders are {key} or {path})"
    if pointer:
        if value.count(PATH) > 1:
            return "x-eval-confidence: {path} may appear once"
        at = value.find(PATH)
        if at >= 0 and (value[at - 1] != "/" or value[at + len(PATH):][:1] not in ("", "/")):
            return "x-eval-confidence: {path} must stand for whole segments (\"/confidence/{path}\")"
        if re.search(r"~(?![01])", value.replace(PATH, "")):
            return "x-eval-confidence: '~' in a JSON Pointer must be '~0' or '~1'"
    if template and allowed not in value:
        return (f"x-eval-confidence on an object, array or the root applies to every field "
                f"below it, so it must hold {allowed} (else they would share one confidence)")
    if repeated and pointer and PATH not in value:
        return ("x-eval-confidence: a field inside array items or map values needs {path} in "
                "its pointer (else every element would share one confidence)")
    return None


def resolve_at(value: str, name: str | None, where: str, *, own: bool = False
               ) -> ConfidenceAt | None:
    """The location of a leaf named ``name`` (None for array items and map values) from
    a valid value written at ``where`` (on the leaf itself: ``own``); None when a key form
    cannot reach it (a leaf with no name)."""
    if value.startswith("/"):
        return ConfidenceAt(pointer=value, where=where, own=own)
    if name is None:
        return None
    return ConfidenceAt(key=value.replace(KEY, name), where=where, own=own)
