"""The ``semantic`` batch comparator: an LLM judge behind an OpenAI-compatible API.

Free-text fields (a purpose, a summary) are right in many wordings; an LLM judge
scores meaning. One chat-completions request per record and field asks for all
of that record's pairs at once; answers are cached on disk by content hash so a
re-run costs nothing; any failure becomes ``batch_error``, never a crash.

Where the request goes and which key it carries come only from the user's settings
(``evalschema.judge.settings``): a schema names a profile at most. How it is sent
(deadline, retries, breaker, no redirects) is ``evalschema.judge.client``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evalschema.io.atomicwrite import write_text
from evalschema.io.lenient import LenientParseError, parse_lenient
from evalschema.judge.client import JudgeError, client_for, redact
from evalschema.judge.settings import (
    DEFAULT_PROFILE,
    ENDPOINT_KEYS,
    HOW_TO_CONFIGURE,
    current_judges,
)
from evalschema.rules.registry import BatchCompare, ComparatorDef, ParamIssue

DEFAULT_PROMPT = (
    "You judge whether extracted values mean the same as the gold values. For each "
    "numbered pair, give a score from 0 (different meaning) to 1 (same meaning; wording, "
    "case and formatting do not matter). Answer with JSON only: {\"scores\": [s1, s2, ...]} "
    "with exactly one number per pair, in order."
)

__all__ = ["DEFAULT_PROMPT", "SEMANTIC", "cache_dir"]


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "evalschema" / "judge"


def _scores_from(answer: Any, n: int, secrets: Sequence[str]) -> list[float | None]:
    try:
        content = answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise JudgeError("judge answer has no choices[0].message.content") from None
    try:
        parsed = parse_lenient(content if isinstance(content, str) else json.dumps(content)).value
    except LenientParseError:
        # redacted before the cut (and the quoting), so neither can split a key
        raise JudgeError(f"judge answer holds no JSON: "
                         f"{redact(str(content), secrets)[:80]!r}") from None
    scores = parsed.get("scores") if isinstance(parsed, dict) else None
    if not isinstance(scores, list) or len(scores) != n:
        raise JudgeError(f"judge gave {len(scores) if isinstance(scores, list) else 'no'} "
                         f"score(s) for {n} field(s)")
    out: list[float | None] = []
    for s in scores:
        ok = isinstance(s, int | float) and not isinstance(s, bool) and s == s
        out.append(max(0.0, min(1.0, float(s))) if ok else None)
    return out


def _vet(params: Mapping[str, Any]) -> list[ParamIssue]:
    """Endpoints and key names in a schema are refused; a profile must exist."""
    issues = [ParamIssue("judge-endpoint-in-schema", f"{key!r} in a schema would choose where "
                         "your data and API key are sent; a schema may only name a judge "
                         "profile", key, HOW_TO_CONFIGURE)
              for key in params if key in ENDPOINT_KEYS]
    name = params.get("judge", DEFAULT_PROFILE)
    if isinstance(name, str):
        known = current_judges().names
        if name not in known:
            issues.append(ParamIssue(
                "unknown-judge-profile", f"no judge profile {name!r} in your settings", "judge",
                f"known profiles: {', '.join(known)}; define [profiles.{name}] in "
                "~/.config/evalschema/judges.toml or evalschema.judge.profiles in your "
                "editor's user settings", target="value"))
    return issues


def _semantic(params: Mapping[str, Any]) -> BatchCompare:
    settings = current_judges()
    profile = settings.profile(str(params.get("judge", DEFAULT_PROFILE)))
    if profile is None:  # _vet reported it; binding anyway must not reach a network
        raise ValueError(f"no judge profile {params.get('judge')!r}")
    limits = settings.limits
    model = str(params.get("model") or profile.model)
    prompt = str(params.get("prompt") or DEFAULT_PROMPT)
    timeout = min(float(params.get("timeout", limits.timeout)), limits.max_timeout)
    use_cache = bool(params.get("cache", True))
    url = profile.url

    def judge(pairs: Sequence[tuple[Any, Any]]) -> Sequence[float | None]:
        if settings.disabled:
            raise JudgeError(settings.disabled)
        listing = "\n".join(
            f"{i}. gold: {json.dumps(g, ensure_ascii=False)} | extracted: "
            f"{json.dumps(e, ensure_ascii=False)}" for i, (g, e) in enumerate(pairs, 1))
        body = {"model": model, "temperature": 0, "messages": [
            {"role": "system", "content": prompt}, {"role": "user", "content": listing}]}
        key = hashlib.sha256(json.dumps([url, body], sort_keys=True).encode()).hexdigest()
        path = cache_dir() / f"{key}.json"
        if use_cache and path.is_file():
            try:
                cached = json.loads(path.read_text("utf-8"))
                return [None if s is None else float(s) for s in cached]
            except (OSError, ValueError, TypeError):
                pass
        answer = client_for(limits).post(url, body, api_key=profile.api_key, timeout=timeout,
                             secrets=profile.secrets)
        scores = _scores_from(answer, len(pairs), profile.secrets)
        if use_cache:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_text(path, json.dumps(scores))
            except OSError:
                pass  # a cache that cannot be written only costs a re-ask
        return scores

    return judge


SEMANTIC = ComparatorDef(
    "semantic",
    "An LLM judge scores whether the extracted value means the same as gold (0..1), for "
    "free text with many right wordings. All of a record's pairs for a field go in one "
    "request to an OpenAI-compatible chat-completions endpoint.\n\n"
    "The endpoint and the API key come only from your own settings, never from the "
    "schema: the `default` profile from EVALSCHEMA_JUDGE_BASE_URL (or OPENAI_BASE_URL), "
    "EVALSCHEMA_JUDGE_API_KEY (or OPENAI_API_KEY) and EVALSCHEMA_JUDGE_MODEL, the "
    "`--judge-*` flags, or the editor's user settings; other profiles from "
    "`[profiles.NAME]` in ~/.config/evalschema/judges.toml. `judge` names the profile "
    "(default `default`); `base_url` or `api_key_env` in a schema is an error "
    "(judge-endpoint-in-schema). `model` overrides the profile's model; `prompt` the "
    "instructions; `timeout` (seconds, default 60) bounds the whole request, retries "
    "included.\n\n"
    "Answers are cached under ~/.cache/evalschema/judge (`cache: false` to disable). "
    "`threshold` (default 1.0) sets the score that counts as a match. A judge that fails "
    "(unreachable, HTTP error after bounded retries, a redirect, no answer in time, an "
    "unusable answer, an open circuit breaker) gives batch_error with the reason; the "
    "key is redacted from every reason.",
    params={"type": "object", "properties": {
        "judge": {"type": "string", "minLength": 1},
        "model": {"type": "string"}, "prompt": {"type": "string"},
        "threshold": {"type": "number", "minimum": 0, "maximum": 1},
        "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 600},
        "cache": {"type": "boolean"},
    }, "additionalProperties": False},
    batch_factory=_semantic, threshold_param="threshold", builtin=True, vet=_vet,
)
