"""Where the LLM judge sends data and which key it sends: only the user's own settings.

A schema or a project file is written by whoever wrote the repository; an endpoint or a
key name found there would let that person receive the user's API key and data. So the
endpoint and the key come only from the environment, command-line flags, the user-level
file ``$XDG_CONFIG_HOME/evalschema/judges.toml`` and (in the language server) the
editor's user-level settings. A schema may only *name* a profile (``"judge": "fast"``).

``JudgeSettings`` is immutable and picklable: it is passed to ``evaluate(judges=...)``,
carried to worker processes, or set for the process (``configure_judges``) by the CLI
and the language server. ``current_judges()`` is what the ``semantic`` comparator binds.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from evalschema.errors import Problem

#: The profile a schema uses when it names none; the environment and flags configure it.
DEFAULT_PROFILE = "default"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"

#: Parameters that choose where data goes or which secret is sent: never from a schema
#: or a project file (``judge-endpoint-in-schema`` / ``judge-endpoint-in-config``).
ENDPOINT_KEYS: frozenset[str] = frozenset({
    "base_url", "api_key_env", "api_key", "api_base", "base", "url", "endpoint", "headers",
    "organization", "proxy",
})

#: Environment variables, in order of precedence, for the default profile.
ENV_BASE_URL = ("EVALSCHEMA_JUDGE_BASE_URL", "OPENAI_BASE_URL")
ENV_API_KEY = ("EVALSCHEMA_JUDGE_API_KEY", "OPENAI_API_KEY")
ENV_MODEL = "EVALSCHEMA_JUDGE_MODEL"

HOW_TO_CONFIGURE = (
    "configure the endpoint in your own settings, never in a file of the project: "
    "EVALSCHEMA_JUDGE_BASE_URL / EVALSCHEMA_JUDGE_API_KEY in the environment, "
    "--judge-base-url / --judge-api-key-env on the command line, a profile in "
    "~/.config/evalschema/judges.toml, or evalschema.judge.* in your editor's user "
    "settings; a schema may name a profile with \"judge\": \"NAME\"")


@dataclass(frozen=True)
class JudgeProfile:
    """One named judge: an OpenAI-compatible endpoint, a model and the key it is sent."""

    name: str
    base_url: str = DEFAULT_BASE_URL
    model: str = DEFAULT_MODEL
    #: The key itself (never shown: ``repr`` and messages leave it out).
    api_key: str | None = field(default=None, repr=False)
    #: Where the key was read from (an environment variable's name), for messages.
    key_source: str | None = None
    #: Where the profile was defined, for messages.
    origin: str = "built-in default"

    @property
    def url(self) -> str:
        return f"{self.base_url.rstrip('/')}/chat/completions"

    @property
    def secrets(self) -> tuple[str, ...]:
        """Text that must never appear in anything stored or shown."""
        return (self.api_key,) if self.api_key else ()


@dataclass(frozen=True)
class JudgeLimits:
    """How patiently and how widely the judge is asked (process-wide, per limits)."""

    #: Seconds for a whole request, retries included, when the schema sets no ``timeout``.
    timeout: float = 60.0
    #: The most a schema's ``timeout`` may ask for.
    max_timeout: float = 600.0
    #: Retries after a 429 or 5xx answer or a refused connection (0 = ask once).
    retries: int = 3
    #: First backoff in seconds, doubled per retry (with jitter), at most ``max_backoff``.
    backoff: float = 0.5
    max_backoff: float = 8.0
    #: A server's ``Retry-After`` is honoured up to this many seconds.
    max_retry_after: float = 30.0
    #: Requests in flight at once, across the process.
    concurrency: int = 4
    #: Consecutive failures of one endpoint that open its circuit breaker (0 = never).
    breaker_failures: int = 5
    #: Seconds an open breaker refuses requests before it lets one through again.
    breaker_cooldown: float = 60.0
    #: Largest answer body read, in bytes.
    max_body: int = 4 * 1024 * 1024


#: Each limit's type, from its default (the settings' values are checked against it).
_LIMIT_TYPES: dict[str, type] = {f.name: type(f.default) for f in fields(JudgeLimits)}
_LIMIT_MIN: dict[str, float] = {"concurrency": 1, "timeout": 0.001, "max_timeout": 0.001,
                                "max_body": 1024}


@dataclass(frozen=True)
class CacheSettings:
    """Where the judge's verdicts are kept between runs (``evalschema.judge.cache``): a
    user setting, like the endpoint, since a file of the project choosing it could feed a
    run its own verdicts."""

    #: The SQLite file; None: ``$XDG_CACHE_HOME/evalschema/judge/verdicts.sqlite3``.
    path: str | None = None
    #: False: nothing is read or written, every verdict is asked.
    enabled: bool = True
    #: True for a file that several machines open on network storage: a rollback journal
    #: instead of WAL, which needs memory shared on one host.
    shared: bool = False


@dataclass(frozen=True)
class JudgeSettings:
    """The judge profiles the user configured, and the limits requests run under."""

    profiles: tuple[JudgeProfile, ...] = (JudgeProfile(DEFAULT_PROFILE),)
    limits: JudgeLimits = field(default_factory=JudgeLimits)
    cache: CacheSettings = field(default_factory=CacheSettings)
    #: Why the judge may not be asked at all here (the language server in a workspace the
    #: user has not trusted): every ``semantic`` field is then ``batch_error`` with this
    #: reason and nothing is sent. None: the judge is asked.
    disabled: str | None = None

    def profile(self, name: str) -> JudgeProfile | None:
        for p in self.profiles:
            if p.name == name:
                return p
        return None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.profiles)


def concurrency_share(limit: int, tasks: int) -> int:
    """Requests one of ``tasks`` tasks running at once may have in flight, so that together
    they stay within ``limit``: an even share, rounded down, at least one (so past ``limit``
    tasks, the task count is the limit)."""
    return max(1, limit // max(1, tasks))


def for_tasks(settings: JudgeSettings, tasks: int) -> JudgeSettings:
    """``settings`` for one of ``tasks`` concurrent tasks (worker processes, Ray or Spark
    tasks): its share of the concurrency limit (``concurrency_share``), since each task
    process has its own client."""
    share = concurrency_share(settings.limits.concurrency, tasks)
    return replace(settings, limits=replace(settings.limits, concurrency=share))


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/evalschema/judges.toml`` (default ``~/.config/...``)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "evalschema" / "judges.toml"


@dataclass(frozen=True)
class ProfileSpec:
    """A profile as the user wrote it (file, flags or editor settings), before the key
    is read from the environment."""

    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None


def profile_keys(*, camel: bool = False) -> dict[str, str]:
    """A profile's keys, as ``ProfileSpec`` names them -> as a table spells them."""
    return {f.name: _camel(f.name) if camel else f.name for f in fields(ProfileSpec)}


def check_url(url: str, where: str, source: str | None, problems: list[Problem], *,
              label: str = "judge base URL") -> bool:
    """Whether ``url`` is an http(s) URL with a host; else a ``bad-judge-url`` problem."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        problems.append(Problem("bad-judge-url", f"{label} {url!r} is not an http(s) "
                                "URL with a host", where, source=source,
                                suggestion="e.g. https://api.openai.com/v1"))
        return False
    return True


def spec_from_mapping(raw: Any, where: str, source: str, problems: list[Problem],
                      *, camel: bool = False) -> ProfileSpec | None:
    """A ``ProfileSpec`` from a table (``base_url``/``model``/``api_key_env``, or their
    camelCase spelling in editor settings); wrong types become problems."""
    if not isinstance(raw, Mapping):
        problems.append(Problem("bad-judge-profile", "a judge profile must be a table",
                                where, source=source))
        return None
    names = profile_keys(camel=camel)
    values: dict[str, str | None] = {}
    for key, spelled in names.items():
        value = raw.get(spelled)
        if value is None or value == "":
            values[key] = None
        elif isinstance(value, str):
            values[key] = value.strip()
        else:
            problems.append(Problem("bad-judge-profile", f"{spelled} must be a string",
                                    f"{where}/{spelled}", source=source))
            values[key] = None
    for key in raw:
        if key not in names.values():
            problems.append(Problem("unknown-key", f"unknown key {key!r} in a judge profile",
                                    f"{where}/{key}", source=source, target="key",
                                    suggestion="known keys: " + ", ".join(names.values())))
    url = values["base_url"]
    if url is not None and not check_url(url, f"{where}/{names['base_url']}", source,
                                          problems):
        values["base_url"] = None
    return ProfileSpec(values["base_url"], values["model"], values["api_key_env"])


def limits_from_mapping(raw: Any, where: str, source: str, problems: list[Problem],
                        base: JudgeLimits | None = None, *, camel: bool = False
                        ) -> JudgeLimits:
    """``JudgeLimits`` with the values of ``raw`` (snake_case, or camelCase when
    ``camel``); a wrong value is a problem and keeps the default."""
    limits = base or JudgeLimits()
    if not isinstance(raw, Mapping):
        return limits
    changes: dict[str, Any] = {}
    for key, kind in _LIMIT_TYPES.items():
        spelled = _camel(key) if camel else key
        if spelled not in raw:
            continue
        value = raw[spelled]
        ok = isinstance(value, int | float) and not isinstance(value, bool) and \
            value == value and value not in (float("inf"), float("-inf")) and \
            value >= _LIMIT_MIN.get(key, 0) and (kind is float or float(value).is_integer())
        if not ok:
            problems.append(Problem("bad-judge-limit", f"{spelled} must be a "
                                    f"{'whole ' if kind is int else ''}number of at least "
                                    f"{_LIMIT_MIN.get(key, 0):g}", f"{where}/{spelled}",
                                    source=source))
            continue
        changes[key] = kind(value)
    return replace(limits, **changes)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.title() for w in rest)


def read_user_file(path: Path, problems: list[Problem]
                   ) -> tuple[dict[str, ProfileSpec], Mapping[str, Any], Mapping[str, Any]]:
    """Profiles and the ``[limits]`` and ``[cache]`` tables of the user's judges.toml
    (empty if absent)."""
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return {}, {}, {}
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem("unreadable-file", f"cannot read {path}: {exc}",
                                source=str(path)))
        return {}, {}, {}
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        problems.append(Problem("bad-toml", f"{path.name} is not valid TOML: {exc}",
                                source=str(path)))
        return {}, {}, {}
    out: dict[str, ProfileSpec] = {}
    for key in data:
        if key not in ("profiles", "limits", "cache"):
            problems.append(Problem("unknown-key", f"unknown key {key!r}", f"/{key}",
                                    source=str(path), target="key",
                                    suggestion="judges.toml holds [profiles.NAME] tables "
                                    "and optional [limits] and [cache] tables"))
    raw = data.get("profiles", {})
    if isinstance(raw, Mapping):
        for name, table in raw.items():
            spec = spec_from_mapping(table, f"/profiles/{name}", str(path), problems)
            if spec is not None:
                out[name] = spec
    limits, cache = data.get("limits", {}), data.get("cache", {})
    return (out, limits if isinstance(limits, Mapping) else {},
            cache if isinstance(cache, Mapping) else {})


#: The ``[cache]`` table's keys and their types.
_CACHE_TYPES: dict[str, type] = {"path": str, "enabled": bool, "shared": bool}


def cache_from_mapping(raw: Mapping[str, Any], where: str, source: str,
                       problems: list[Problem]) -> CacheSettings:
    """``CacheSettings`` from a ``[cache]`` table (``path`` relative to the file's folder,
    ``~`` expanded); a wrong value is a problem and keeps the default."""
    values: dict[str, Any] = {}
    for key, value in raw.items():
        kind = _CACHE_TYPES.get(key)
        if kind is None:
            problems.append(Problem("unknown-key", f"unknown key {key!r} in [cache]",
                                    f"{where}/{key}", source=source, target="key",
                                    suggestion="known keys: " + ", ".join(_CACHE_TYPES)))
        elif not isinstance(value, kind) or value == "":
            problems.append(Problem("bad-judge-cache", f"{key} must be "
                                    f"{'a non-empty string' if kind is str else 'true or false'}",
                                    f"{where}/{key}", source=source))
        else:
            values[key] = value
    if "path" in values:
        values["path"] = str(Path(source).parent / Path(values["path"]).expanduser())
    return CacheSettings(**values)


def load_judge_settings(*, env: Mapping[str, str] | None = None,
                        config_path: Path | None = None,
                        profiles: Mapping[str, ProfileSpec] | None = None,
                        default: ProfileSpec | None = None,
                        limits: JudgeLimits | None = None,
                        origin: str = "settings") -> tuple[JudgeSettings, list[Problem]]:
    """The user's judge settings, and the problems found reading them.

    Layers, later ones winning: the user file's profiles, then ``profiles`` (the
    editor's user settings); for the ``default`` profile also the environment
    (``EVALSCHEMA_JUDGE_BASE_URL``/``OPENAI_BASE_URL``, ``EVALSCHEMA_JUDGE_MODEL``,
    ``EVALSCHEMA_JUDGE_API_KEY``/``OPENAI_API_KEY``), then ``default`` (command-line
    flags or editor settings). A profile's ``api_key_env`` names the environment
    variable holding its key; the default profile falls back to the variables above.
    The verdict cache is the file's ``[cache]`` table.
    """
    env = os.environ if env is None else env
    problems: list[Problem] = []
    path = config_path or user_config_path(env)
    file_specs, file_limits, file_cache = read_user_file(path, problems)
    merged: dict[str, tuple[ProfileSpec, str]] = {
        n: (s, str(path)) for n, s in file_specs.items()}
    for name, spec in (profiles or {}).items():
        merged[name] = (_over(merged.get(name, (ProfileSpec(), ""))[0], spec), origin)
    out_limits = limits_from_mapping(file_limits, "/limits", str(path), problems)
    if limits is not None:
        out_limits = _over_limits(out_limits, limits)
    built: list[JudgeProfile] = []
    base_spec, base_origin = merged.pop(DEFAULT_PROFILE, (ProfileSpec(), "built-in default"))
    built.append(_default_profile(base_spec, base_origin, default, env, origin))
    for name, (spec, where) in merged.items():
        key, key_source = _key(spec.api_key_env, (), env)
        built.append(JudgeProfile(name, spec.base_url or DEFAULT_BASE_URL,
                                  spec.model or DEFAULT_MODEL, key, key_source, where))
    cache = cache_from_mapping(file_cache, "/cache", str(path), problems)
    return JudgeSettings(tuple(built), out_limits, cache), problems


def _over(low: ProfileSpec, high: ProfileSpec) -> ProfileSpec:
    return ProfileSpec(high.base_url or low.base_url, high.model or low.model,
                       high.api_key_env or low.api_key_env)


def _over_limits(low: JudgeLimits, high: JudgeLimits) -> JudgeLimits:
    """``high``'s values where they differ from the defaults."""
    d = JudgeLimits()
    return replace(low, **{k: getattr(high, k) for k in _LIMIT_TYPES
                           if getattr(high, k) != getattr(d, k)})


def _env_first(names: tuple[str, ...], env: Mapping[str, str]) -> tuple[str | None, str | None]:
    for n in names:
        if env.get(n):
            return env[n], n
    return None, None


def _key(key_env: str | None, fallback: tuple[str, ...], env: Mapping[str, str]
         ) -> tuple[str | None, str | None]:
    if key_env:
        return env.get(key_env) or None, key_env
    return _env_first(fallback, env)


def _default_profile(spec: ProfileSpec, spec_origin: str, top: ProfileSpec | None,
                     env: Mapping[str, str], origin: str) -> JudgeProfile:
    top = top or ProfileSpec()
    env_url, env_url_name = _env_first(ENV_BASE_URL, env)
    if env_url is not None and urlsplit(env_url).scheme not in ("http", "https"):
        env_url = None
    url = top.base_url or env_url or spec.base_url or DEFAULT_BASE_URL
    where = origin if top.base_url else env_url_name if env_url else spec_origin
    model = top.model or env.get(ENV_MODEL) or spec.model or DEFAULT_MODEL
    key, key_source = _key(top.api_key_env or spec.api_key_env, ENV_API_KEY, env)
    return JudgeProfile(DEFAULT_PROFILE, url, model, key, key_source, where or spec_origin)


# -- the settings in effect --------------------------------------------------------

_configured: JudgeSettings | None = None
_override: ContextVar[JudgeSettings | None] = ContextVar("evalschema_judges", default=None)


def configure_judges(settings: JudgeSettings | None) -> None:
    """Set the judge settings of this process (the CLI and the language server do, from
    their flags and settings); None goes back to reading the environment."""
    global _configured
    _configured = settings


def configured_judges() -> JudgeSettings | None:
    """What ``configure_judges`` set (None when nothing was): carried to worker processes."""
    return _configured


def current_judges() -> JudgeSettings:
    """The settings in effect: ``use_judges``, else ``configure_judges``, else the
    environment and the user file, read now (problems in the file are ignored here;
    ``evalschema check`` and the CLI report them)."""
    got = _override.get()
    if got is not None:
        return got
    if _configured is not None:
        return _configured
    return load_judge_settings()[0]


@contextmanager
def use_judges(settings: JudgeSettings | None) -> Iterator[None]:
    """Bind schemas under ``settings`` within this block (this thread/context only)."""
    if settings is None:
        yield
        return
    token = _override.set(settings)
    try:
        yield
    finally:
        _override.reset(token)
