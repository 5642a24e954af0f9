"""Judge settings for runs at scale (``evalschema.judge.settings``): each concurrent task's
share of the concurrency limit, and the verdict cache's ``[cache]`` table."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalschema.judge.settings import (
    CacheSettings,
    JudgeLimits,
    JudgeSettings,
    concurrency_share,
    for_tasks,
    load_judge_settings,
)


@pytest.mark.parametrize(("limit", "tasks", "share"), [
    (4, 1, 4), (4, 2, 2), (5, 2, 2), (4, 3, 1), (8, 3, 2), (2, 4, 1), (4, 0, 4), (1, 1, 1),
])
def test_each_task_gets_an_even_share_rounded_down_at_least_one(limit: int, tasks: int,
                                                                share: int) -> None:
    assert concurrency_share(limit, tasks) == share
    assert share * max(1, tasks) <= limit or share == 1


def test_for_tasks_changes_only_the_concurrency() -> None:
    base = JudgeSettings(limits=JudgeLimits(concurrency=8, retries=1),
                         cache=CacheSettings("/x.sqlite3"))
    got = for_tasks(base, 4)
    assert got.limits == JudgeLimits(concurrency=2, retries=1)
    assert (got.profiles, got.cache, got.disabled) == (base.profiles, base.cache, None)


def _settings(tmp_path: Path, text: str) -> tuple[JudgeSettings, list[str], Path]:
    toml = tmp_path / "config" / "judges.toml"
    toml.parent.mkdir(parents=True, exist_ok=True)
    toml.write_text(text)
    settings, problems = load_judge_settings(env={"HOME": str(tmp_path)}, config_path=toml)
    return settings, [p.format() for p in problems], toml


def test_the_cache_table_of_judges_toml(tmp_path: Path) -> None:
    settings, problems, toml = _settings(
        tmp_path, '[cache]\npath = "verdicts/v.sqlite3"\nshared = true\n')
    assert problems == []
    assert settings.cache == CacheSettings(str(toml.parent / "verdicts" / "v.sqlite3"),
                                           enabled=True, shared=True)
    settings, _, _ = _settings(tmp_path, '[cache]\npath = "/mnt/shared/v.sqlite3"\n')
    assert settings.cache.path == "/mnt/shared/v.sqlite3"
    settings, _, _ = _settings(tmp_path, '[cache]\nenabled = false\n')
    assert settings.cache == CacheSettings(None, enabled=False)
    settings, _, _ = _settings(tmp_path, '[limits]\nconcurrency = 2\n')
    assert settings.cache == CacheSettings()


def test_bad_cache_values_are_located_problems(tmp_path: Path) -> None:
    settings, problems, toml = _settings(
        tmp_path, '[cache]\npath = ""\nenabled = "no"\nshared = 1\nsize = 3\n')
    assert problems == [
        f"{toml}#/cache/path: error bad-judge-cache: path must be a non-empty string",
        f"{toml}#/cache/enabled: error bad-judge-cache: enabled must be true or false",
        f"{toml}#/cache/shared: error bad-judge-cache: shared must be true or false",
        f"{toml}#/cache/size: error unknown-key: unknown key 'size' in [cache] (known keys: "
        "path, enabled, shared)",
    ]
    assert settings.cache == CacheSettings()


def test_an_unknown_table_names_the_cache_table(tmp_path: Path) -> None:
    _, problems, toml = _settings(tmp_path, '[caches]\npath = "x"\n')
    assert problems == [f"{toml}#/caches: error unknown-key: unknown key 'caches' "
                        "(judges.toml holds [profiles.NAME] tables and optional [limits] and "
                        "[cache] tables)"]
