"""The LLM judge's plumbing: whose settings choose the endpoint (``settings``), how it
is asked over HTTP (``client``) and where its verdicts are kept (``cache``). The
``semantic`` comparator itself is in ``evalschema.rules.semantic``."""

from evalschema.judge.client import (
    JudgeCancelled,
    JudgeClient,
    JudgeError,
    cancellation,
    client_for,
    redact,
)
from evalschema.judge.settings import (
    DEFAULT_PROFILE,
    ENDPOINT_KEYS,
    CacheSettings,
    JudgeLimits,
    JudgeProfile,
    JudgeSettings,
    ProfileSpec,
    concurrency_share,
    configure_judges,
    configured_judges,
    current_judges,
    for_tasks,
    load_judge_settings,
    use_judges,
    user_config_path,
)

__all__ = [
    "DEFAULT_PROFILE",
    "ENDPOINT_KEYS",
    "CacheSettings",
    "JudgeCancelled",
    "JudgeClient",
    "JudgeError",
    "JudgeLimits",
    "JudgeProfile",
    "JudgeSettings",
    "ProfileSpec",
    "cancellation",
    "client_for",
    "concurrency_share",
    "configure_judges",
    "configured_judges",
    "current_judges",
    "for_tasks",
    "load_judge_settings",
    "redact",
    "use_judges",
    "user_config_path",
]
