"""The ``semantic`` batch comparator: an LLM judge behind an OpenAI-compatible API.

Free-text fields (a purpose, a summary) are right in many wordings; an LLM judge
scores meaning. One chat-completions request per record and field asks for all
of that record's pairs at once; each pair's verdict is kept in the verdict cache
(``evalschema.judge.cache``) so a re-run asks nothing it asked before; any failure
becomes ``batch_error``, never a crash.

Where the request goes and which key it carries come only from the user's settings
(``evalschema.judge.settings``): a schema names a profile at most. How it is sent
(deadline, retries, breaker, no redirects) is ``evalschema.judge.client``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from evalschema.io.lenient import LenientParseError, parse_lenient
from evalschema.judge.cache import open_cache, verdict_key
from evalschema.judge.client import JudgeError, client_for, origin, redact
from evalschema.judge.settings import (
    DEFAULT_PROFILE,
    ENDPOINT_KEYS,
    HOW_TO_CONFIGURE,
    JudgeProfile,
    JudgeSettings,
    current_judges,
)
from evalschema.rules.registry import BatchCompare, ComparatorDef, ParamIssue

DEFAULT_PROMPT = (
    "You judge whether extracted values mean the same as the gold values. For each "
    "numbered pair, give a score from 0 (different meaning) to 1 (same meaning; wording, "
    "case and formatting do not matter). Answer with JSON only: {\"scores\": [s1, s2, ...]} "
    "with exactly one number per pair, in order."
)

#: How pairs are listed and answers read: part of every cached verdict's key, so a change
#: here (raise it) is never answered from verdicts given to the old wording.
PROMPT_VERSION = 1
TEMPERATURE = 0

__all__ = ["DEFAULT_PROMPT", "PROMPT_VERSION", "SEMANTIC", "SemanticJudge"]


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


@dataclass(frozen=True)
class SemanticJudge:
    """The ``semantic`` comparator bound to its parameters: asks the judge for the pairs
    whose verdict the cache lacks, in one request, and keeps the answers."""

    settings: JudgeSettings
    profile: JudgeProfile
    model: str
    prompt: str
    timeout: float
    use_cache: bool

    @property
    def concurrency(self) -> int:
        """Calls that may run at once (``scoring.batches.judge_window``): the client's limit."""
        return self.settings.limits.concurrency

    @cached_property
    def identity(self) -> str:
        """What decides a verdict besides the two values (``judge.cache.verdict_key``):
        never the key, and no user info or query of the URL."""
        parts = urlsplit(self.profile.url)
        where = urlunsplit((parts.scheme, origin(self.profile.url).split("://", 1)[1],
                            parts.path, "", ""))
        return json.dumps([PROMPT_VERSION, where, self.model, TEMPERATURE, self.prompt])

    def __call__(self, pairs: Sequence[tuple[Any, Any]]) -> Sequence[float | None]:
        if self.settings.disabled:
            raise JudgeError(self.settings.disabled)
        cache = open_cache(self.settings.cache) if self.use_cache else None
        if cache is None:
            return self._ask(pairs)
        keys = [verdict_key(self.identity, g, e) for g, e in pairs]
        known = cache.get_many(keys)
        scores: list[float | None] = [known.get(k) for k in keys]
        missing = [i for i, k in enumerate(keys) if k not in known]
        if missing:
            asked = self._ask([pairs[i] for i in missing])
            for i, s in zip(missing, asked, strict=True):
                scores[i] = s
            cache.put_many({keys[i]: s for i, s in zip(missing, asked, strict=True)
                            if s is not None})
        return scores

    def _ask(self, pairs: Sequence[tuple[Any, Any]]) -> list[float | None]:
        listing = "\n".join(
            f"{i}. gold: {json.dumps(g, ensure_ascii=False)} | extracted: "
            f"{json.dumps(e, ensure_ascii=False)}" for i, (g, e) in enumerate(pairs, 1))
        body = {"model": self.model, "temperature": TEMPERATURE, "messages": [
            {"role": "system", "content": self.prompt}, {"role": "user", "content": listing}]}
        profile = self.profile
        answer = client_for(self.settings.limits).post(
            profile.url, body, api_key=profile.api_key, timeout=self.timeout,
            secrets=profile.secrets)
        return _scores_from(answer, len(pairs), profile.secrets)


def _semantic(params: Mapping[str, Any]) -> BatchCompare:
    settings = current_judges()
    profile = settings.profile(str(params.get("judge", DEFAULT_PROFILE)))
    if profile is None:  # _vet reported it; binding anyway must not reach a network
        raise ValueError(f"no judge profile {params.get('judge')!r}")
    limits = settings.limits
    return SemanticJudge(settings, profile, str(params.get("model") or profile.model),
                         str(params.get("prompt") or DEFAULT_PROMPT),
                         min(float(params.get("timeout", limits.timeout)), limits.max_timeout),
                         bool(params.get("cache", True)))


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
    "Each pair's verdict is kept in the verdict cache (by default "
    "~/.cache/evalschema/judge/verdicts.sqlite3; --judge-cache, [cache] in judges.toml), "
    "so a re-run asks only for pairs it has not judged (`cache: false`: always ask). "
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
