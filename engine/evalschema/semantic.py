"""The ``semantic`` batch comparator: an LLM judge behind an OpenAI-compatible API.

Free-text fields (a purpose, a summary) are right in many wordings; an LLM judge
scores meaning. One chat-completions request per record and field asks for all
of that record's pairs at once; answers are cached on disk by content hash so a
re-run costs nothing; any failure becomes ``batch_error``, never a crash.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .lenient import LenientParseError, parse_lenient
from .registry import BatchCompare, ComparatorDef

DEFAULT_PROMPT = (
    "You judge whether extracted values mean the same as the gold values. For each "
    "numbered pair, give a score from 0 (different meaning) to 1 (same meaning; wording, "
    "case and formatting do not matter). Answer with JSON only: {\"scores\": [s1, s2, ...]} "
    "with exactly one number per pair, in order."
)


class JudgeError(RuntimeError):
    """The judge could not be reached or gave an unusable answer."""


def _setting(params: Mapping[str, Any], key: str, env: tuple[str, ...],
             default: str | None = None) -> str | None:
    value = params.get(key)
    if isinstance(value, str) and value:
        return value
    for name in env:
        if os.environ.get(name):
            return os.environ[name]
    return default


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "evalschema" / "judge"


def _post(url: str, body: dict[str, Any], api_key: str | None, timeout: float) -> Any:
    data = json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    req = urllib.request.Request(url, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.loads(resp.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        raise JudgeError(f"judge answered HTTP {exc.code}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise JudgeError(f"judge unreachable at {url}: {exc}") from None
    except ValueError:
        raise JudgeError("judge answer is not JSON") from None


def _scores_from(answer: Any, n: int) -> list[float | None]:
    try:
        content = answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise JudgeError("judge answer has no choices[0].message.content") from None
    try:
        parsed = parse_lenient(content if isinstance(content, str) else json.dumps(content)).value
    except LenientParseError:
        raise JudgeError(f"judge answer holds no JSON: {str(content)[:80]!r}") from None
    scores = parsed.get("scores") if isinstance(parsed, dict) else None
    if not isinstance(scores, list) or len(scores) != n:
        raise JudgeError(f"judge gave {len(scores) if isinstance(scores, list) else 'no'} "
                         f"score(s) for {n} field(s)")
    out: list[float | None] = []
    for s in scores:
        out.append(max(0.0, min(1.0, float(s))) if isinstance(s, int | float)
                   and not isinstance(s, bool) else None)
    return out


def _semantic(params: Mapping[str, Any]) -> BatchCompare:
    base_url = _setting(params, "base_url", ("EVALSCHEMA_JUDGE_BASE_URL", "OPENAI_BASE_URL"),
                        "https://api.openai.com/v1")
    model = _setting(params, "model", ("EVALSCHEMA_JUDGE_MODEL",), "gpt-4o-mini")
    key_env = str(params.get("api_key_env") or "")
    api_key = os.environ.get(key_env) if key_env else _setting(
        {}, "", ("EVALSCHEMA_JUDGE_API_KEY", "OPENAI_API_KEY"))
    prompt = str(params.get("prompt") or DEFAULT_PROMPT)
    timeout = float(params.get("timeout", 60))
    use_cache = bool(params.get("cache", True))
    url = f"{str(base_url).rstrip('/')}/chat/completions"

    def judge(pairs: Sequence[tuple[Any, Any]]) -> Sequence[float | None]:
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
        scores = _scores_from(_post(url, body, api_key, timeout), len(pairs))
        if use_cache:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(".tmp")
                tmp.write_text(json.dumps(scores), "utf-8")
                tmp.replace(path)
            except OSError:
                pass  # a cache that cannot be written only costs a re-ask
        return scores

    return judge


SEMANTIC = ComparatorDef(
    "semantic",
    "An LLM judge scores whether the extracted value means the same as gold (0..1), for "
    "free text with many right wordings. All of a record's pairs for a field go in one "
    "request to an OpenAI-compatible chat-completions endpoint: `base_url` and `model` "
    "from the parameters or EVALSCHEMA_JUDGE_BASE_URL / EVALSCHEMA_JUDGE_MODEL, the key from "
    "`api_key_env` or EVALSCHEMA_JUDGE_API_KEY / OPENAI_API_KEY. Answers are cached under "
    "~/.cache/evalschema/judge (`cache: false` to disable). `threshold` (default 1.0) sets "
    "the score that counts as a match; failures become batch_error.",
    params={"type": "object", "properties": {
        "model": {"type": "string"}, "base_url": {"type": "string"},
        "api_key_env": {"type": "string"}, "prompt": {"type": "string"},
        "threshold": {"type": "number", "minimum": 0, "maximum": 1},
        "timeout": {"type": "number", "exclusiveMinimum": 0}, "cache": {"type": "boolean"},
    }, "additionalProperties": False},
    batch_factory=_semantic, threshold_param="threshold", builtin=True,
)

