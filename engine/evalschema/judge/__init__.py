"""The LLM judge's plumbing: whose settings choose the endpoint (``settings``) and how it
is asked over HTTP (``client``). The ``semantic`` comparator itself is in
``evalschema.rules.semantic``."""

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
    JudgeLimits,
    JudgeProfile,
    JudgeSettings,
    ProfileSpec,
    configure_judges,
    configured_judges,
    current_judges,
    load_judge_settings,
    use_judges,
    user_config_path,
)

__all__ = [
    "DEFAULT_PROFILE",
    "ENDPOINT_KEYS",
    "JudgeCancelled",
    "JudgeClient",
    "JudgeError",
    "JudgeLimits",
    "JudgeProfile",
    "JudgeSettings",
    "ProfileSpec",
    "cancellation",
    "client_for",
    "configure_judges",
    "configured_judges",
    "current_judges",
    "load_judge_settings",
    "redact",
    "use_judges",
    "user_config_path",
]
