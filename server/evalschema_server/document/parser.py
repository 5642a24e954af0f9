"""The tolerant JSON / JSONC parser: ``parse`` and ``parse_lines`` build a :class:`JsonDocument`.

The parser never gives up: after an error it skips to the next token that can
continue (a missing comma is reported and the next property parsed; a broken
value leaves the property with ``value_node=None``), so completion, hover and
diagnostics work on half-typed text.

Speed matters because this runs on every keystroke. The parser is a single
iterative pass (an explicit stack, so 10,000 nested ``[`` cannot overflow the C
stack) over the compiled regular expressions of ``scanner``, each consuming a
whole token and the whitespace after it; the common ``"key": scalar,`` shape of a
schema line is consumed by one regex match.

Why this module is over 500 lines: ``_parse_window`` is one flat loop of about
450 lines (the ``"key": scalar,`` fast path, the inline tokenizer and the
grammar's state machine), sharing a dozen local variables. Cutting it into
functions per token kind or per state would add a call per token on the editor's
hot path (``bench/server_parser.py`` measures it); everything that runs only for
rare tokens already lives out of line in ``scanner``.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable
from operator import attrgetter
from typing import Any

from .lines import LineIndex
from .scanner import (
    BARE_WORD,
    BLOCK_COMMENT,
    COLON_AHEAD,
    KEY_SCALAR,
    LINE_COMMENT,
    LITERAL,
    LOOSE_NUMBER,
    NUMBER,
    STRAY,
    STRICT_NUMBER,
    STRING,
    WHITESPACE,
    loose_number,
    parse_int,
    scan_slow_string,
)
from .tree import NO_CHILDREN, Comment, JsonDocument, Node, SyntaxIssue, add_issue

__all__ = ["parse", "parse_lines"]

# Token kinds: value-starting tokens first so `tok <= _T_LBRACKET` tests "is a value".
_T_STRING, _T_SCALAR, _T_LBRACE, _T_LBRACKET = 0, 1, 2, 3
_T_RBRACE, _T_RBRACKET, _T_COMMA, _T_COLON, _T_UNKNOWN = 4, 5, 6, 7, 8

# Parser states. Objects are 2..6, arrays 7..9.
_TOP, _TOP_DONE = 0, 1
_OBJ_KEY, _OBJ_KEY_COMMA, _OBJ_COLON, _OBJ_VALUE, _OBJ_NEXT = 2, 3, 4, 5, 6
_ARR_VALUE, _ARR_VALUE_COMMA, _ARR_NEXT = 7, 8, 9

_FrameT = tuple[Node | None, list[Node], int, Node | None, dict[str, Node | None]]


def parse(text: str, *, comments: bool = True, trailing_commas: bool = True) -> JsonDocument:
    """Parse ``text`` into a :class:`JsonDocument`; never raises.

    ``comments``: ``//`` and ``/* */`` are allowed (JSONC); when False each one is a
    ``comment-not-allowed`` issue (comments are recorded either way).
    ``trailing_commas``: when False, ``[1,]`` / ``{"a": 1,}`` give ``trailing-comma``.
    """
    paused = gc.isenabled()
    if paused:
        gc.disable()  # see _parse_window: collections during tree building cost 2-3x the parse
    try:
        return _parse_window(text, 0, len(text), comments, trailing_commas, LineIndex(text))
    finally:
        if paused:
            gc.enable()


def parse_lines(
    text: str, *, comments: bool = True, trailing_commas: bool = True
) -> list[tuple[int, JsonDocument | None]]:
    """JSONL: one document per non-blank line as ``(line number, document)``.

    Offsets are relative to the whole text and every document shares one
    ``LineIndex``, so node ranges map straight to editor positions.
    """
    lines = LineIndex(text)
    out: list[tuple[int, JsonDocument | None]] = []
    starts = lines.line_starts
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        for line, start in enumerate(starts):
            end = lines.line_end(line)
            if start == end or not text[start:end].strip():
                continue
            out.append((line, _parse_window(text, start, end, comments, trailing_commas, lines)))
    finally:
        if paused:
            gc.enable()
    return out


def _parse_window(
    text: str, start: int, end: int, comments: bool, trailing_commas: bool, lines: LineIndex
) -> JsonDocument:
    """Parse ``text[start:end]`` (offsets stay relative to ``text``) in one flat loop.

    Callers pause the cyclic GC around this: the tree is tens of thousands of
    objects allocated in a burst, and CPython would otherwise run several full
    collections over the growing heap while it is built (measured: ~110 ms
    instead of ~40 ms per edit of a 20,000-line schema, amortised). The objects
    are collected normally afterwards.
    """
    issues: list[SyntaxIssue] = []
    comment_list: list[Comment] = []
    root: Node | None = None
    stack: list[_FrameT] = []
    node: Node | None = None  # the open container
    kids: list[Node] = []  # node.children
    state = _TOP
    prop: Node | None = None  # the property awaiting a colon / value (None: discard value)
    seen: dict[str, Node | None] = {}  # keys of the open object -> first property
    comma_at = -1
    n_obj = n_arr = 0
    junk_reported = False

    ws: Callable[[str, int, int], re.Match[str]] = WHITESPACE.match  # type: ignore[assignment]
    kv = KEY_SCALAR.match
    str_m = STRING.match
    num_m = NUMBER.match
    lit_m = LITERAL.match
    new = Node
    leaf = NO_CHILDREN  # the children list every leaf shares

    pos = ws(text, start, end).end()
    while pos < end:
        ch = text[pos]

        # ---- hot path: a whole `"key": scalar,` in one match -------------------
        if ch == '"' and _OBJ_KEY <= state <= _OBJ_KEY_COMMA:
            m = kv(text, pos, end)
            if m is not None:
                g = m.groups()
                k: str = g[0]
                kend = pos + len(k) + 2
                key = new("string", pos, kend - pos, None, leaf, None, None, -1, k)
                p = new("property", pos, kend - pos, node, leaf, key, None, -1, None)
                key.parent = p
                kids.append(p)
                if k in seen:
                    _duplicate(issues, seen, k, key)
                else:
                    seen[k] = p
                if g[1] is None:
                    prop = p
                    state = _OBJ_COLON
                    pos = m.end()
                    continue
                colon = m.start(2)
                p.colon_offset = colon
                sv = g[2]
                if sv is not None:
                    vs = m.start(3) - 1
                    ve = vs + len(sv) + 2
                    v = new("string", vs, ve - vs, p, leaf, None, None, -1, sv)
                elif g[3] is not None:
                    vs = m.start(4)
                    ip: str = g[3]
                    frac: str = g[4]
                    if frac:
                        ve = vs + len(ip) + len(frac)
                        v = new("number", vs, ve - vs, p, leaf, None, None, -1, float(ip + frac))
                    else:
                        ve = vs + len(ip)
                        v = new(
                            "number",
                            vs,
                            ve - vs,
                            p,
                            leaf,
                            None,
                            None,
                            -1,
                            int(ip) if len(ip) < 4000 else parse_int(ip),
                        )
                elif g[5] is not None:
                    lit: str = g[5]
                    vs = m.start(6)
                    ve = vs + len(lit)
                    if lit == "null":
                        v = new("null", vs, 4, p, leaf, None, None, -1, None)
                    else:
                        v = new("boolean", vs, ve - vs, p, leaf, None, None, -1, lit == "true")
                else:
                    p.length = colon + 1 - pos
                    prop = p
                    state = _OBJ_VALUE
                    pos = m.end()
                    continue
                p.value_node = v
                p.length = ve - pos
                if g[6] is not None:
                    state = _OBJ_KEY_COMMA
                    comma_at = m.start(7)
                else:
                    state = _OBJ_NEXT
                pos = m.end()
                continue

        # ---- tokenize one token ---------------------------------------------
        snode: Node | None = None
        if ch == '"':
            m = str_m(text, pos, end)
            if m is not None:
                sv = m.group(1)
                tend = pos + len(sv) + 2
                npos = m.end()
            else:
                tend, sv = scan_slow_string(text, pos, end, issues)
                npos = ws(text, tend, end).end()
            snode = new("string", pos, tend - pos, None, leaf, None, None, -1, sv)
            tok = _T_STRING
        elif ch == "{":
            tok = _T_LBRACE
            tend = pos + 1
            npos = ws(text, tend, end).end()
        elif ch == "}":
            tok = _T_RBRACE
            tend = pos + 1
            npos = ws(text, tend, end).end()
        elif ch == ",":
            tok = _T_COMMA
            tend = pos + 1
            npos = ws(text, tend, end).end()
        elif ch == "[":
            tok = _T_LBRACKET
            tend = pos + 1
            npos = ws(text, tend, end).end()
        elif ch == "]":
            tok = _T_RBRACKET
            tend = pos + 1
            npos = ws(text, tend, end).end()
        elif ch == ":":
            tok = _T_COLON
            tend = pos + 1
            npos = ws(text, tend, end).end()
        else:
            tok = _T_UNKNOWN
            m = None
            if ch in "-0123456789":
                m = num_m(text, pos, end)
                if m is not None:
                    ip = m.group(1)
                    frac = m.group(2)
                    tend = pos + len(ip) + len(frac)
                    npos = m.end()
                    value: Any = (
                        float(ip + frac) if frac else int(ip) if len(ip) < 4000 else parse_int(ip)
                    )
                    snode = new("number", pos, tend - pos, None, leaf, None, None, -1, value)
                    tok = _T_SCALAR
            elif ch == "t" or ch == "f" or ch == "n":
                m = lit_m(text, pos, end)
                if m is not None:
                    lit = m.group(1)
                    tend = pos + len(lit)
                    npos = m.end()
                    if lit == "null":
                        snode = new("null", pos, 4, None, leaf, None, None, -1, None)
                    else:
                        snode = new(
                            "boolean", pos, tend - pos, None, leaf, None, None, -1, lit == "true"
                        )
                    tok = _T_SCALAR
            elif ch == "/" and pos + 1 < end and text[pos + 1] in "/*":
                if text[pos + 1] == "/":
                    cm = LINE_COMMENT.match(text, pos, end)
                    cend = cm.end() if cm is not None else end
                    comment_list.append(Comment(pos, cend - pos, False))
                else:
                    cm = BLOCK_COMMENT.match(text, pos, end)
                    if cm is None:
                        cend = end
                        add_issue(issues, "unterminated-comment", pos, cend - pos)
                    else:
                        cend = cm.end()
                    comment_list.append(Comment(pos, cend - pos, True))
                if not comments:
                    add_issue(issues, "comment-not-allowed", pos, cend - pos)
                pos = ws(text, cend, end).end()
                continue
            if tok == _T_UNKNOWN:
                sm = STRAY.match(text, pos, end)
                if sm is not None:
                    add_issue(
                        issues,
                        "invalid-character",
                        pos,
                        sm.end() - pos,
                        "Invalid character (not JSON whitespace)",
                    )
                    pos = ws(text, sm.end(), end).end()
                    continue
                lm = LOOSE_NUMBER.match(text, pos, end) if ch in "+-.0123456789" else None
                if lm is not None:
                    s = lm.group()
                    tend = lm.end()
                    if STRICT_NUMBER.fullmatch(s) is None:
                        add_issue(issues, "invalid-number", pos, tend - pos)
                        value = loose_number(s)
                    else:
                        value = float(s) if ("." in s or "e" in s or "E" in s) else parse_int(s)
                    snode = new("number", pos, tend - pos, None, leaf, None, None, -1, value)
                    tok = _T_SCALAR
                else:
                    um = BARE_WORD.match(text, pos, end)
                    tend = um.end() if um is not None else pos + 1
                npos = ws(text, tend, end).end()

        # ---- grammar ----------------------------------------------------------
        if tok <= _T_LBRACKET:  # a value starts here
            attach = 0  # 0 discard, 1 array item, 2 property value, 3 root
            if state >= _ARR_VALUE:
                if state == _ARR_NEXT:
                    add_issue(issues, "missing-comma", pos, tend - pos)
                attach = 1
                state = _ARR_NEXT
            elif state == _OBJ_VALUE:
                attach = 2 if prop is not None else 0
                state = _OBJ_NEXT
            elif state in (_OBJ_KEY, _OBJ_KEY_COMMA, _OBJ_NEXT):
                if snode is not None and tok == _T_STRING:
                    if state == _OBJ_NEXT:
                        add_issue(issues, "missing-comma", pos, tend - pos)
                    prop = _new_property(snode, node, kids, seen, issues)
                    state = _OBJ_COLON
                    pos = npos
                    continue
                add_issue(issues, "property-expected", pos, tend - pos)
                state = _OBJ_NEXT
                if snode is not None:
                    cm = COLON_AHEAD.match(text, npos, end)
                    if cm is not None:  # `{1: 2}`: skip the colon and discard the value too
                        pos = ws(text, cm.end(), end).end()
                        prop = None
                        state = _OBJ_VALUE
                        continue
            elif state == _OBJ_COLON:
                if tok == _T_STRING and snode is not None and COLON_AHEAD.match(text, npos, end):
                    # `"a" "b": 1`: the string is the next key; `a` lost its colon and value.
                    add_issue(issues, "missing-colon", pos, tend - pos)
                    prop = _new_property(snode, node, kids, seen, issues)
                    pos = npos
                    continue
                add_issue(issues, "missing-colon", pos, tend - pos)
                attach = 2 if prop is not None else 0
                state = _OBJ_NEXT
            elif state == _TOP:
                attach = 3
                state = _TOP_DONE
            else:  # _TOP_DONE
                add_issue(issues, "end-of-file-expected", pos, tend - pos)
                break

            if snode is not None:
                if attach == 1:
                    snode.parent = node
                    kids.append(snode)
                elif attach == 2 and prop is not None:
                    snode.parent = prop
                    prop.value_node = snode
                    prop.length = tend - prop.offset
                elif attach == 3:
                    root = snode
                pos = npos
                continue

            # open a container
            if tok == _T_LBRACE:
                c = new("object", pos, 1, None, [], None, None, -1, None)
            else:
                c = new("array", pos, 1, None, [], None, None, -1, None)
            if attach == 1:
                c.parent = node
                kids.append(c)
            elif attach == 2 and prop is not None:
                c.parent = prop
                prop.value_node = c
            elif attach == 3:
                root = c
            stack.append((node, kids, state, prop, seen))
            node = c
            kids = c.children
            prop = None
            if tok == _T_LBRACE:
                state = _OBJ_KEY
                seen = {}
                n_obj += 1
            else:
                state = _ARR_VALUE
                n_arr += 1
            pos = npos
            continue

        if tok in (_T_RBRACE, _T_RBRACKET):
            closes_obj = tok == _T_RBRACE
            if node is None:
                if state == _TOP_DONE:
                    add_issue(issues, "end-of-file-expected", pos, tend - pos)
                    break
                if not junk_reported:
                    add_issue(issues, "value-expected", pos, tend - pos)
                    junk_reported = True
                pos = npos
                continue
            in_obj = state < _ARR_VALUE
            if in_obj == closes_obj:
                if state == _OBJ_COLON:
                    add_issue(issues, "missing-colon", pos, tend - pos)
                elif state == _OBJ_VALUE:
                    add_issue(issues, "value-expected", pos, tend - pos)
                elif state in (_ARR_VALUE_COMMA, _OBJ_KEY_COMMA) and not trailing_commas:
                    add_issue(issues, "trailing-comma", comma_at, 1)
                close_at = tend
                pos = npos
            elif (n_obj if closes_obj else n_arr) > 0:
                # `{"a": [1, 2}`: close the inner container here, let the outer one take it.
                if state == _OBJ_COLON:
                    add_issue(issues, "missing-colon", pos, tend - pos)
                elif state == _OBJ_VALUE:
                    add_issue(issues, "value-expected", pos, tend - pos)
                assert node is not None
                add_issue(
                    issues,
                    "missing-close-bracket" if closes_obj else "missing-close-brace",
                    node.offset,
                    1,
                )
                close_at = pos
                while close_at > node.offset + 1 and text[close_at - 1] in " \t\n\r":
                    close_at -= 1
                # pos unchanged: the closing token is read again by the parent
            else:  # a stray closer: report it once and skip it
                if state == _OBJ_VALUE:
                    add_issue(issues, "value-expected", pos, tend - pos)
                    state = _OBJ_NEXT
                elif state == _OBJ_COLON:
                    add_issue(issues, "missing-colon", pos, tend - pos)
                    state = _OBJ_NEXT
                else:
                    add_issue(issues, "unexpected-token", pos, tend - pos)
                pos = npos
                continue
            # pop the container
            closed = node
            closed.length = close_at - closed.offset
            if closed.kind == "object":
                n_obj -= 1
            else:
                n_arr -= 1
            node, kids, state, prop, seen = stack.pop()
            if prop is not None and prop.value_node is closed:
                prop.length = close_at - prop.offset
            continue

        if tok == _T_COMMA:
            if state in (_OBJ_NEXT, _ARR_NEXT):
                state = _OBJ_KEY_COMMA if state == _OBJ_NEXT else _ARR_VALUE_COMMA
            elif state in (_OBJ_KEY, _OBJ_KEY_COMMA):
                add_issue(issues, "property-expected", pos, 1)
                state = _OBJ_KEY_COMMA
            elif state == _OBJ_COLON:
                add_issue(issues, "missing-colon", pos, 1)
                state = _OBJ_KEY_COMMA
            elif state == _OBJ_VALUE:
                add_issue(issues, "value-expected", pos, 1)
                state = _OBJ_KEY_COMMA
            elif state in (_ARR_VALUE, _ARR_VALUE_COMMA):
                add_issue(issues, "value-expected", pos, 1)
                state = _ARR_VALUE_COMMA
            elif state == _TOP:
                if not junk_reported:
                    add_issue(issues, "value-expected", pos, 1)
                    junk_reported = True
            else:
                add_issue(issues, "end-of-file-expected", pos, 1)
                break
            comma_at = pos
            pos = npos
            continue

        if tok == _T_COLON:
            if state == _OBJ_COLON:
                assert prop is not None
                prop.colon_offset = pos
                prop.length = pos + 1 - prop.offset
                state = _OBJ_VALUE
            elif state in (_OBJ_KEY, _OBJ_KEY_COMMA):
                add_issue(issues, "property-expected", pos, 1)
                prop = None  # discard the value that follows
                state = _OBJ_VALUE
            elif state == _OBJ_NEXT:
                add_issue(issues, "unexpected-token", pos, 1)
                prop = None
                state = _OBJ_VALUE
            elif state == _TOP:
                if not junk_reported:
                    add_issue(issues, "value-expected", pos, 1)
                    junk_reported = True
            elif state == _TOP_DONE:
                add_issue(issues, "end-of-file-expected", pos, 1)
                break
            else:
                add_issue(issues, "unexpected-token", pos, 1)
            pos = npos
            continue

        # _T_UNKNOWN: a bare word such as `True`, `None`, `NaN`, `tru`, or a lone `/`
        if state in (_OBJ_KEY, _OBJ_KEY_COMMA, _OBJ_NEXT):
            if state == _OBJ_NEXT:
                add_issue(issues, "missing-comma", pos, tend - pos)
            word = text[pos:tend]
            add_issue(issues, "unquoted-key", pos, tend - pos)
            knode = new("string", pos, tend - pos, None, leaf, None, None, -1, word)
            prop = _new_property(knode, node, kids, seen, issues)
            state = _OBJ_COLON
        elif state == _OBJ_COLON:
            add_issue(issues, "missing-colon", pos, tend - pos)
            state = _OBJ_NEXT
        elif state in (_OBJ_VALUE, _ARR_VALUE, _ARR_VALUE_COMMA):
            add_issue(issues, "value-expected", pos, tend - pos)
            state = _OBJ_NEXT if state == _OBJ_VALUE else _ARR_NEXT
        elif state == _ARR_NEXT:
            add_issue(issues, "unexpected-token", pos, tend - pos)
        elif state == _TOP:
            if not junk_reported:
                add_issue(issues, "value-expected", pos, tend - pos)
                junk_reported = True
        else:
            add_issue(issues, "end-of-file-expected", pos, tend - pos)
            break
        pos = npos
    else:
        # ---- end of text ----------------------------------------------------
        if state == _OBJ_COLON:
            add_issue(issues, "missing-colon", end, 0)
        elif state == _OBJ_VALUE:
            add_issue(issues, "value-expected", end, 0)
            if prop is not None:
                prop.length = end - prop.offset  # the cursor at EOF is in this value
        while node is not None:
            add_issue(
                issues,
                "missing-close-brace" if node.kind == "object" else "missing-close-bracket",
                node.offset,
                1,
            )
            closed = node
            closed.length = end - closed.offset
            node, kids, state, prop, seen = stack.pop()
            if prop is not None and prop.value_node is closed:
                prop.length = end - prop.offset

    if len(issues) > 1:
        issues.sort(key=attrgetter("offset"))
    return JsonDocument(text, root, issues, lines, comment_list, start, end)


def _new_property(
    key: Node,
    obj: Node | None,
    kids: list[Node],
    seen: dict[str, Node | None],
    issues: list[SyntaxIssue],
) -> Node:
    """A property node for ``key`` (a string node), appended to the open object."""
    p = Node("property", key.offset, key.length, obj, NO_CHILDREN, key, None, -1, None)
    key.parent = p
    kids.append(p)
    k = key.value
    if k in seen:
        _duplicate(issues, seen, k, key)
    else:
        seen[k] = p
    return p


def _duplicate(issues: list[SyntaxIssue], seen: dict[str, Node | None], k: str, key: Node) -> None:
    """Report a repeated key; the first occurrence is reported once too (as VS Code does)."""
    add_issue(issues, "duplicate-key", key.offset, key.length)
    first = seen[k]
    if first is not None and first.key_node is not None:
        add_issue(issues, "duplicate-key", first.key_node.offset, first.key_node.length)
        seen[k] = None
