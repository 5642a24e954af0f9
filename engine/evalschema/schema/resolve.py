"""Turn a real JSON Schema into a resolved tree the scorer can walk.

``$ref`` (local, relative files, via ``referencing``) is inlined, ``allOf`` merged,
``anyOf``/``oneOf`` of object shapes or nullable unions folded into one node, and
cycles reported. Each resolved node remembers where in the source it came from,
so problems point at text the user wrote.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urlsplit

import referencing
import referencing.exceptions
import referencing.jsonschema
from referencing import Resource

from evalschema import limits
from evalschema.errors import Problem, SchemaError
from evalschema.io.jsonc import blank_jsonc
from evalschema.io.regularfile import FileTooLarge, NotRegularFile, read_regular
from evalschema.pointer import join as ptr_join
from evalschema.schema.node import declared_type_list

_COMBINERS = ("allOf", "anyOf", "oneOf")
#: In a resolved node: the alternatives of an ``anyOf``/``oneOf`` of several JSON types
#: whose branches carry ``x-eval-*`` keys or fields of their own (``_structured``), as ``[(label, branch schema), ...]`` (label
#: ``"anyOf/1"``). ``schema.tree`` builds one node per branch and the scorer picks one by
#: the value's JSON type. Not an ``x-eval-`` key, so no user key can collide with it.
BRANCHES = "$evalschema:branches"
#: Keys of a union that reach its branches (the branch's own win).
_TO_BRANCHES = ("x-eval-transform", "x-eval-threshold")
_DEFAULT_SPEC = referencing.jsonschema.DRAFT202012


@dataclass
class Resolution:
    """A resolved schema plus, for every resolved dict, the pointer it came from."""

    schema: Any
    origins: dict[int, str] = field(default_factory=dict)
    #: Per node: x-eval-* key -> pointer of the object it was written in (after merges).
    key_origins: dict[int, dict[str, str]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    #: The schema left in place of a ``$ref`` that failed (its siblings) -> the index of
    #: its problem, so the field built from it can own the problem (``tree.parse_partial``).
    failed: dict[int, int] = field(default_factory=dict)
    #: Every dict keyed above, kept alive: the tables are keyed by ``id``, and a freed
    #: intermediate's id, reused by a new dict, would hand it stale key origins.
    alive: list[Any] = field(default_factory=list, repr=False)

    def origin(self, node: Any) -> str:
        return self.origins.get(id(node), "")

    def key_origin(self, node: Any, key: str) -> str:
        base = self.key_origins.get(id(node), {}).get(key)
        return ptr_join(base if base is not None else self.origin(node), key)


class RefRefused(Exception):
    """A ``$ref`` names a file evalschema will not read (docs/security.md): outside the
    schema's folder, not a regular file, too large, or unreadable."""

    def __init__(self, code: str, message: str, suggestion: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.suggestion = suggestion


def read_confined(path: Path, root: Path | None, max_bytes: int) -> bytes:
    """The bytes of ``path`` if it is a regular file inside ``root`` (symlinks resolved
    first, so a link cannot lead out) of at most ``max_bytes``; else ``RefRefused``.

    A schema is untrusted: ``$ref`` must not read ``/dev/stdin`` or a FIFO (a hang),
    ``/dev/zero`` (memory), ``/proc`` or the user's files elsewhere (a leak into reports).
    """
    inside = "keep referenced schemas in the schema's folder or below it"
    if root is None:
        raise RefRefused("ref-outside-root", "a schema that is not a file cannot $ref files",
                         "pass the schema's path (base_uri) or inline the definition")
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        raise referencing.exceptions.NoSuchResource(str(path)) from None  # ref-unresolvable
    if not real.is_relative_to(root):
        raise RefRefused("ref-outside-root", f"{path} is outside the schema's folder {root}",
                         inside)
    try:
        data = read_regular(real, max_bytes)
    except NotRegularFile:
        raise RefRefused("ref-not-a-file", f"{path} is not a regular file", inside) from None
    except FileTooLarge as exc:
        raise RefRefused("ref-too-large", f"{path} has {exc.strerror}", "split the schema, "
                         "or raise EVALSCHEMA_REF_MAX_BYTES") from None
    except OSError as exc:
        raise RefRefused("ref-unreadable", f"cannot read {path}: {exc.strerror or exc}",
                         "check the file's permissions") from None
    return data


def _file_retriever(base_dir: Path | None) -> Callable[[str], Resource[Any]]:
    root = base_dir.resolve() if base_dir is not None else None
    max_bytes = int(limits.value("ref_max_bytes"))

    def retrieve(uri: str) -> Resource[Any]:
        if uri.startswith("file://"):
            path = Path(unquote(urlsplit(uri).path))
        elif base_dir is not None and "://" not in uri:
            path = base_dir / uri
        else:
            raise referencing.exceptions.NoSuchResource(uri)
        data = read_confined(path, root, max_bytes)
        try:
            contents = json.loads(blank_jsonc(data.decode("utf-8-sig")))  # as the schema
        except (ValueError, RecursionError) as exc:
            raise RefRefused("ref-invalid-json", f"{path} is not valid JSON: "
                             f"{getattr(exc, 'msg', exc)}", "fix the referenced file") from None
        return Resource.from_contents(contents, default_specification=_DEFAULT_SPEC)

    return retrieve


def _refused(exc: BaseException) -> RefRefused | None:
    """The ``RefRefused`` behind a referencing error, if that is what it was."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, RefRefused):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


class _Resolver:
    def __init__(self, root: Any, base_uri: str | None) -> None:
        base_dir: Path | None = None
        uri = ""
        if base_uri:
            p = Path(base_uri)
            base_dir = p.parent if p.suffix else p
            uri = p.resolve().as_uri() if p.suffix else ""
        resource = Resource.from_contents(root, default_specification=_DEFAULT_SPEC) \
            if isinstance(root, dict) else Resource.opaque(root)
        registry: referencing.Registry[Any] = referencing.Registry(
            retrieve=_file_retriever(base_dir)  # type: ignore[call-arg]
        ).with_resource(uri, resource)
        self.resolver = registry.resolver(base_uri=uri)
        self.out = Resolution(None)
        self.root_uri = uri

    def problem(self, code: str, message: str, pointer: str, suggestion: str | None = None,
                target: str = "value") -> None:
        self.out.problems.append(Problem(code, message, pointer, suggestion, target=target))

    def walk(self, node: Any, pointer: str, resolver: referencing._core.Resolver[Any],
             stack: tuple[str, ...], doc_local: bool) -> Any:
        if isinstance(node, list):
            return [self.walk(v, ptr_join(pointer, str(i)), resolver, stack, doc_local)
                    for i, v in enumerate(node)]
        if not isinstance(node, dict):
            return node
        if "$ref" in node and isinstance(node["$ref"], str):
            return self._ref(node, pointer, resolver, stack, doc_local)
        out: dict[str, Any] = {}
        keys: dict[str, str] = {}
        for key, value in node.items():
            if key in ("$defs", "definitions"):
                continue
            child_ptr = ptr_join(pointer, key)
            if key in ("properties", "patternProperties", "$defs") and isinstance(value, dict):
                out[key] = {k: self.walk(v, ptr_join(child_ptr, k), resolver, stack, doc_local)
                            for k, v in value.items()}
            elif key in ("items", "additionalProperties", "not", "contains", "if", "then",
                         "else", *_COMBINERS, "prefixItems"):
                out[key] = self.walk(value, child_ptr, resolver, stack, doc_local)
            else:
                out[key] = value
            if key.startswith("x-eval-"):
                keys[key] = pointer
        self.out.origins[id(out)] = pointer
        self.out.alive.append(out)
        if keys:
            self.out.key_origins[id(out)] = keys
        return self._combine(out, pointer)

    def _ref(self, node: dict[str, Any], pointer: str, resolver: Any,
             stack: tuple[str, ...], doc_local: bool) -> Any:
        ref = node["$ref"]
        try:
            resolved = resolver.lookup(ref)
        except referencing.exceptions.Unresolvable as exc:
            refused = _refused(exc)
            if refused is not None:
                self.problem(refused.code, f"$ref {ref!r}: {refused.message}",
                             ptr_join(pointer, "$ref"), refused.suggestion)
            else:
                self.problem("ref-unresolvable",
                             f"cannot resolve $ref {ref!r}: {type(exc).__name__}",
                             ptr_join(pointer, "$ref"),
                             "check the pointer after '#' and that the file exists")
            return self._in_place_of(node)
        target_uri = str(getattr(resolved.resolver, "_base_uri", ""))
        absolute = urldefrag(ref)[0] or self.root_uri
        key = f"{absolute or target_uri}#{urldefrag(ref)[1]}"
        if key in stack:
            self.problem("ref-cycle", f"$ref {ref!r} refers back to itself through "
                         f"{' -> '.join(s.split('#', 1)[1] or '#' for s in stack[-3:])}",
                         ptr_join(pointer, "$ref"),
                         "a recursive schema cannot be scored; cut the cycle or add x-eval-skip")
            return self._in_place_of(node)
        local = doc_local and not urldefrag(ref)[0]
        frag = unquote(urldefrag(ref)[1])
        target_ptr = frag if local and frag.startswith("/") else pointer
        target = self.walk(resolved.contents, target_ptr, resolved.resolver, (*stack, key), local)
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if not siblings:
            if isinstance(target, dict):
                # The field is where it is used; its x-eval keys stay where they are written.
                self.out.origins[id(target)] = pointer
                self.out.alive.append(target)
            return target
        site = self.walk(siblings, pointer, resolver, stack, doc_local)
        return self._merge(target, site, pointer) if isinstance(target, dict) else site

    def _in_place_of(self, node: dict[str, Any]) -> dict[str, Any]:
        """What stands for a ``$ref`` that failed (just reported): its siblings, owning
        the problem (``Resolution.failed``)."""
        out = {k: v for k, v in node.items() if k != "$ref"}
        self.out.failed[id(out)] = len(self.out.problems) - 1
        self.out.alive.append(out)
        return out

    def _merge(self, base: dict[str, Any], over: dict[str, Any], pointer: str) -> dict[str, Any]:
        """Merge two schema objects (allOf, $ref siblings): properties union, later keys win."""
        out = dict(base)
        keys = dict(self.out.key_origins.get(id(base), {}))
        for k, v in over.items():
            if k == "properties" and isinstance(v, dict) and isinstance(out.get(k), dict):
                props = dict(out[k])
                for name, sub in v.items():
                    if isinstance(props.get(name), dict) and isinstance(sub, dict):
                        props[name] = self._merge(props[name], sub, self.out.origin(sub))
                    else:
                        props[name] = sub
                out[k] = props
            elif k == "required" and isinstance(v, list) and isinstance(out.get(k), list):
                out[k] = list(dict.fromkeys([*out[k], *v]))
            elif k == "type" and "type" in out and out["type"] != v:
                out[k] = _intersect_types(out["type"], v)
            else:
                out[k] = v
        keys.update(self.out.key_origins.get(id(over), {}))
        self.out.origins[id(out)] = pointer
        self.out.alive.append(out)
        if keys:
            self.out.key_origins[id(out)] = keys
        return out

    def _combine(self, node: dict[str, Any], pointer: str) -> dict[str, Any]:
        if not any(k in node for k in _COMBINERS):
            return node
        out = {k: v for k, v in node.items() if k not in _COMBINERS}
        self.out.origins[id(out)] = pointer
        self.out.alive.append(out)
        if id(node) in self.out.key_origins:
            self.out.key_origins[id(out)] = self.out.key_origins[id(node)]
        subs = node.get("allOf") if isinstance(node.get("allOf"), list) else []
        if subs:
            merged: dict[str, Any] = {}
            for sub in subs:
                if isinstance(sub, dict):
                    merged = self._merge(merged, sub, pointer)
            out = self._merge(merged, out, pointer)
        for combiner in ("anyOf", "oneOf"):
            alts = node.get(combiner)
            if isinstance(alts, list):
                out = self._union(out, [(f"{combiner}/{i}", a) for i, a in enumerate(alts)
                                        if isinstance(a, dict)], pointer)
        return out

    def _union(self, node: dict[str, Any], labelled: list[tuple[str, dict[str, Any]]],
               pointer: str) -> dict[str, Any]:
        """Fold alternatives into one node: nullable unions, object shapes, arrays' items,
        branches by JSON type when they carry x-eval-* keys, else a multi-type leaf."""
        alts = [a for _, a in labelled]
        nullable = any(declared_type_list(a) == ["null"] for a in alts)
        rest = [a for a in alts if declared_type_list(a) != ["null"]]
        if not rest:
            merged: dict[str, Any] = {"type": "null"}
        elif len(rest) == 1:
            merged = self._merge({}, rest[0], self.out.origin(rest[0]))  # keeps key origins
        elif all(declared_type_list(a) == ["object"] for a in rest):
            merged = {"type": "object"}
            for alt in rest:
                merged = self._merge(merged, alt, pointer)
        elif all(declared_type_list(a) == ["array"] for a in rest):
            items = [(f"{label}/items", a["items"]) for label, a in labelled
                     if isinstance(a.get("items"), dict)]
            merged = {"type": "array"}
            if items:
                merged["items"] = self._union({}, items, pointer)
        else:
            types = list(dict.fromkeys(t for a in rest for t in (declared_type_list(a) or ["any"])))
            merged = {"type": [t for t in types if t != "any"]} if "any" not in types else {}
            if "x-eval-compare" not in node and any(_annotated(a) or _structured(a)
                                                    for a in rest):
                merged[BRANCHES] = [(label, self._branch(node, a)) for label, a in labelled
                                    if declared_type_list(a) != ["null"]]
        out = self._merge(merged, node, pointer)
        if nullable:
            t = out.get("type")
            if isinstance(t, str) and t != "null":
                out["type"] = [t, "null"]
            elif isinstance(t, list) and "null" not in t:
                out["type"] = [*t, "null"]
        return out


    def _branch(self, union: dict[str, Any], alt: dict[str, Any]) -> dict[str, Any]:
        """A branch with the union's own keys that reach branches (``_TO_BRANCHES``) beneath
        its own, each remembering where it was written."""
        shared = {k: union[k] for k in _TO_BRANCHES if k in union}
        if not shared:
            return alt
        where = self.out.key_origins.get(id(union), {})
        self.out.alive.append(shared)
        self.out.key_origins[id(shared)] = {k: where.get(k, self.out.origin(union))
                                            for k in shared}
        return self._merge(shared, alt, self.out.origin(alt))


def _structured(schema: dict[str, Any]) -> bool:
    """Whether an alternative has fields of its own to judge: properties, a map
    (additionalProperties/patternProperties schemas) or array items."""
    return bool((isinstance(schema.get("properties"), dict) and schema["properties"])
                or isinstance(schema.get("additionalProperties"), dict)
                or (isinstance(schema.get("patternProperties"), dict)
                and schema["patternProperties"]) or isinstance(schema.get("items"), dict))


def _annotated(schema: Any) -> bool:
    """Whether an x-eval-* key stands anywhere in ``schema`` (a resolved alternative)."""
    if isinstance(schema, dict):
        return any((isinstance(k, str) and k.startswith("x-eval-")) or _annotated(v)
                   for k, v in schema.items() if k != "const" and k != "enum")
    if isinstance(schema, list):
        return any(_annotated(v) for v in schema)
    return False


def _intersect_types(a: Any, b: Any) -> Any:
    la = [a] if isinstance(a, str) else list(a) if isinstance(a, list) else []
    lb = [b] if isinstance(b, str) else list(b) if isinstance(b, list) else []
    both = [t for t in la if t in lb] or lb
    return both[0] if len(both) == 1 else both


def resolve(schema: Any, *, base_uri: str | None = None) -> Resolution:
    """Resolve ``schema`` and collect problems instead of raising (for editors)."""
    r = _Resolver(schema, base_uri)
    r.out.schema = r.walk(schema, "", r.resolver, (), True)
    return r.out


def resolve_schema_references(schema: Any, *, base_uri: str | None = None) -> Any:
    """Inline ``$ref``, merge ``allOf``, fold ``anyOf``/``oneOf``; raise SchemaError on problems."""
    res = resolve(schema, base_uri=base_uri)
    if res.problems:
        raise SchemaError(res.problems, "the schema's references cannot be resolved")
    return res.schema
