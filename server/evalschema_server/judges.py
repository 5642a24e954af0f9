"""The LLM judge's settings in the editor: ``evalschema.judge`` (user level only).

Read from ``initializationOptions`` and ``workspace/didChangeConfiguration``, never from
a ``workspace/configuration`` answer (which a client may fill from the workspace's own
settings file): a folder must not choose where the user's key goes. The VS Code
extension sends only the user-level (global) values of these settings.

```json
"evalschema.judge": {
  "baseUrl": "https://api.openai.com/v1", "model": "gpt-4o-mini", "apiKeyEnv": "OPENAI_API_KEY",
  "profiles": {"local": {"baseUrl": "http://127.0.0.1:8000/v1", "model": "llama-3"}},
  "concurrency": 4, "timeout": 60, "retries": 3, "breakerFailures": 5
}
```
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalschema.errors import Problem
from evalschema.judge.settings import (
    JudgeSettings,
    ProfileSpec,
    limits_from_mapping,
    load_judge_settings,
    profile_keys,
    spec_from_mapping,
)

SOURCE = "editor settings (evalschema.judge)"


def judge_settings(raw: Any) -> tuple[JudgeSettings, list[Problem]]:
    """The judge settings: the editor's ``evalschema.judge`` over the environment and
    the user's judges.toml."""
    problems: list[Problem] = []
    raw = raw if isinstance(raw, Mapping) else {}
    keys = profile_keys(camel=True).values()
    default = spec_from_mapping({k: v for k, v in raw.items() if k in keys},
                                "/judge", SOURCE, problems, camel=True)
    profiles: dict[str, ProfileSpec] = {}
    table = raw.get("profiles")
    if isinstance(table, Mapping):
        for name, spec_raw in table.items():
            spec = spec_from_mapping(spec_raw, f"/judge/profiles/{name}", SOURCE, problems,
                                     camel=True)
            if isinstance(name, str) and name and spec is not None:
                profiles[name] = spec
    limits = limits_from_mapping(raw, "/judge", SOURCE, problems, camel=True)
    settings, found = load_judge_settings(profiles=profiles, default=default, limits=limits,
                                          origin=SOURCE)
    return settings, problems + found
