"""Mutation testing of the core modules with mutmut: prints the score and every survivor.

mutmut finds the code it mutates only in ``./``, ``src/`` or ``source/``, and ours lives
in ``engine/`` and ``server/``; so the run happens in a staging copy of the working tree
(``.mutation/``, git-ignored) where both packages sit under ``src/``. Nothing in the
working tree is written. Run it through ``scripts/mutation`` (which installs mutmut).

Equivalent mutants (no test can tell them from the original) are listed, each with the
line it changes and why, in ``tests/README.md``; they are left out of the score. A listed
mutant whose line no longer matches, or that is now killed, is reported as stale, so the
list cannot excuse a mutant it was not written for.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mutation_conftest import HOME_LIMIT_VARIABLE, HOME_ONLY_VARIABLE, LIMIT_VARIABLE, timings

ROOT = Path(__file__).resolve().parent.parent
STAGE = ROOT / ".mutation"
README = ROOT / "tests" / "README.md"
TARGET = 95.0
#: Tests slower than this (seconds, in mutmut's timing run) outside a mutated module's own
#: test folder are left out of its runs (``scripts/mutation_conftest.py``): with them a
#: full run took most of a day on two cores.
TEST_SECONDS = 0.5
#: The same for the tests in the mutated module's own folder: its property tests stay in,
#: the runs at scale (streaming, parallel workers: tens of seconds) do not.
HOME_SECONDS = 5.0

#: The core modules, grouped: a bug in any of them shows the user a wrong number or puts a
#: finding in the wrong place. Paths are under ``src/`` in the staging copy.
GROUPS: dict[str, tuple[str, ...]] = {
    "rules": ("evalschema/rules/comparators.py", "evalschema/rules/transforms.py",
              "evalschema/rules/values.py", "evalschema/rules/alignment.py"),
    "scoring": ("evalschema/scoring/walk.py", "evalschema/scoring/specialized.py",
                "evalschema/scoring/pair_f1.py", "evalschema/scoring/tally.py",
                "evalschema/scoring/vectorized.py", "evalschema/scoring/postprocess.py"),
    "lenient": ("evalschema/io/lenient.py",),
    "metrics": ("evalschema/results.py", "evalschema/run/accumulator.py"),
    "schema": ("evalschema/schema/bind.py", "evalschema/schema/validate_gold.py"),
    "server": ("evalschema_server/evaluation/locate.py",
               "evalschema_server/evaluation/findings.py"),
}

CORE = [m for group in GROUPS.values() for m in group]

#: The tests that may kill a mutant. mutmut runs, for each mutant, only the tests that
#: reached the mutated function in-process (a test that runs the CLI or the server in a
#: subprocess kills nothing here); the editor end-to-end tests are left out for that reason.
TESTS = ("tests/engine", "tests/server", "tests/test_architecture.py")

#: Tests left out of mutation runs, each with why: they measure something mutmut's
#: trampolines (one extra call frame per mutated function) change by design.
DESELECT = {
    "tests/engine/test_robustness.py::test_schema_nested_400_levels_still_scores":
        "400 nested levels plus a trampoline frame per level exceed the recursion limit",
}

#: mutmut's exit codes that mean a test noticed the mutant.
DETECTED = {"killed", "timeout", "segfault", "caught by type check"}

EQUIVALENT_ROW = re.compile(r"^\|\s*`(?P<name>[\w.]+__mutmut_\d+)`\s*\|\s*`(?P<line>.*)`\s*\|")


@dataclass
class ModuleScore:
    """One module's mutants by outcome; ``score`` leaves the listed equivalents out."""

    path: str
    total: int = 0
    detected: int = 0
    equivalent: int = 0
    not_run: int = 0
    survivors: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        """Killed share of the mutants that ran, equivalents left out."""
        judged = self.total - self.not_run - self.equivalent
        return 100.0 if judged == 0 else 100.0 * self.detected / judged


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="scripts/mutation", description=__doc__.split("\n")[0])
    p.add_argument("targets", nargs="*", metavar="GROUP|MODULE",
                   help=f"groups ({', '.join(GROUPS)}) or module paths such as "
                        "engine/evalschema/rules/values.py; default: every group")
    p.add_argument("--tests", nargs="+", default=list(TESTS), metavar="PATH",
                   help="the tests that may kill mutants (default: %(default)s)")
    p.add_argument("--test-seconds", type=float, default=TEST_SECONDS, metavar="S",
                   help="leave out of mutant runs the tests that took longer than S seconds "
                        "in mutmut's timing run; 'inf' runs them all (default: %(default)s)")
    p.add_argument("--home-seconds", type=float, default=HOME_SECONDS, metavar="S",
                   help="the same for the tests in the mutated module's own folder "
                        "(default: %(default)s)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                   help="mutants tested at once (default: %(default)s)")
    p.add_argument("--fail-under", type=float, default=TARGET,
                   help="exit 1 when a module scores lower (default: %(default)s)")
    p.add_argument("--again", action="store_true",
                   help="keep the last run: copy the working tree in again and retest only "
                        "the mutants that were not killed (quick, after adding tests)")
    p.add_argument("--fresh", action="store_true",
                   help="start over: forget every result and the test stats kept in .mutation/")
    p.add_argument("--report-only", action="store_true",
                   help="print the last run's results without running anything")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the figures as JSON")
    return p.parse_args(argv)


def source_file(module: str) -> Path:
    """Where a module path such as ``evalschema/rules/values.py`` lives in the working tree."""
    return ROOT / ("server" if module.startswith("evalschema_server/") else "engine") / module


def modules_for(targets: Iterable[str]) -> list[str]:
    """Group names and file paths (``engine/…`` or ``server/…`` or ``evalschema/…``)."""
    picked: list[str] = []
    for t in targets or GROUPS:
        if t in GROUPS:
            picked.extend(GROUPS[t])
            continue
        rel = re.sub(r"^(engine|server|src)/", "", t)
        if not source_file(rel).is_file():
            sys.exit(f"scripts/mutation: {t!r} is neither a group ({', '.join(GROUPS)}) "
                     "nor a module under engine/ or server/")
        picked.append(rel)
    return list(dict.fromkeys(picked))


def stage(modules: list[str], tests: list[str], *, keep: bool = False) -> None:
    """Copy the working tree (tracked and new files, not ignored ones) into ``STAGE``;
    ``keep`` leaves mutmut's results (``mutants/``) in place for an incremental run."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True).stdout.decode().split("\0")
    if STAGE.exists() and not keep:
        shutil.rmtree(STAGE)
    stats = STAGE / "mutants" / "mutmut-stats.json"
    if stats.exists() and _sources_changed():
        # mutmut drops the test associations of a function whose source changed and
        # re-collects them only from new tests, which would leave most mutants untested.
        print("scripts/mutation: a core module changed since the last run: collecting which "
              "tests reach which function again (one full test run)", file=sys.stderr)
        stats.unlink()
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            dst = STAGE / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    for package in ("engine/evalschema", "server/evalschema_server"):
        shutil.copytree(STAGE / package, STAGE / "src" / Path(package).name, dirs_exist_ok=True)
    top = sorted({Path(r).parts[0] for r in filter(None, listed)} - {"tests", "pyproject.toml"})
    config = {
        "source_paths": ["src"],
        # Every core module is always mutated, so a run of one group keeps the others'
        # mutants and results; which mutants run is chosen by name (see main).
        "only_mutate": [f"src/{m}" for m in dict.fromkeys([*CORE, *modules])],
        "also_copy": [*top, "conftest.py"],
        "pytest_add_cli_args_test_selection": tests,
        "pytest_add_cli_args": ["-p", "no:xdist", "-p", "no:cacheprovider", "-q",
                                *(f"--deselect={t}" for t in DESELECT)],
        # Fork each mutant from a process that has collected the tests but run none:
        # forking from one that has, leaves lru_caches warm with the original's answers.
        "process_isolation": "forkserver",
        "use_git_change_detection": False,
    }
    # Orders and trims each mutant's tests; a conftest.py, since a change to pytest's
    # arguments makes mutmut forget every result.
    shutil.copy2(ROOT / "scripts" / "mutation_conftest.py", STAGE / "conftest.py")
    shutil.copy2(ROOT / "pyproject.toml", STAGE / "pyproject.toml")
    with (STAGE / "pyproject.toml").open("a", encoding="utf-8") as f:
        f.write("\n[tool.mutmut]\n")
        for key, value in config.items():
            f.write(f"{key} = {json.dumps(value)}\n")


def _results(module: str) -> dict[str, int | None] | None:
    """mutmut's exit code per mutant of ``module`` in the staging copy, if it ran."""
    meta = STAGE / "mutants" / "src" / (module + ".meta")
    if not meta.is_file():
        return None
    codes: dict[str, int | None] = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    return codes


def undetected(modules: list[str]) -> list[str]:
    """The mutants of the last run that no test noticed (survived, untested, not run)."""
    from mutmut.stats import status_by_exit_code

    return [name for m in modules for name, code in (_results(m) or {}).items()
            if status_by_exit_code[code] not in DETECTED]


def _sources_changed() -> bool:
    for module in CORE:
        staged = STAGE / "src" / module
        if not staged.is_file() or staged.read_bytes() != source_file(module).read_bytes():
            return True
    return False


def equivalents() -> dict[str, str]:
    """Mutant name -> the mutated line, from the tables in ``tests/README.md``."""
    found: dict[str, str] = {}
    if README.is_file():
        for line in README.read_text(encoding="utf-8").splitlines():
            m = EQUIVALENT_ROW.match(line)
            if m:
                found[m["name"]] = m["line"].replace("\\|", "|").strip()
    return found


def mutated_line(diff: str) -> str:
    """The first added line of a mutant's diff, stripped: what the README rows quote."""
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            return line[1:].strip()
    return ""


def collect(modules: list[str]) -> tuple[list[ModuleScore], dict[str, str], list[str]]:
    """Read mutmut's results in the staging copy: scores, survivors' diffs, stale rows."""
    os.chdir(STAGE)
    sys.path.insert(0, str(STAGE / "src"))
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code

    listed = equivalents()
    seen: set[str] = set()
    stale: list[str] = []
    diffs: dict[str, str] = {}
    scores: list[ModuleScore] = []
    for module in modules:
        score = ModuleScore(module)
        mutated = Path("src") / module  # mutmut reads it under mutants/
        codes = _results(module)
        if codes is None:
            print(f"scripts/mutation: no results for {module} (not run yet?)", file=sys.stderr)
            scores.append(score)
            continue
        for name, code in sorted(codes.items(), key=lambda kv: _natural(kv[0])):
            status = status_by_exit_code[code]
            score.total += 1
            if status == "not checked":
                score.not_run += 1
                seen.add(name)  # a listed mutant not run yet is not a stale row
                continue
            if status in DETECTED:
                score.detected += 1
                if name in listed:
                    seen.add(name)
                    stale.append(f"{name}: listed as equivalent but now killed")
                continue
            diff = get_diff_for_mutant(name, path=mutated)
            if name in listed:
                seen.add(name)
                if mutated_line(diff) == listed[name]:
                    score.equivalent += 1
                    continue
                stale.append(f"{name}: listed as equivalent for `{listed[name]}`, "
                             f"but it now changes `{mutated_line(diff)}`")
            score.survivors.append(name)
            diffs[name] = f"# {name}: {status}\n{diff.strip()}"
        scores.append(score)
    prefixes = tuple(_module_name(m) + "." for m in modules)
    stale += [f"{n}: listed as equivalent but no such mutant exists"
              for n in listed if n.startswith(prefixes) and n not in seen]
    return scores, diffs, stale


def _module_name(module: str) -> str:
    return module.removesuffix(".py").replace("/", ".")


def _natural(name: str) -> tuple[str, int]:
    head, _, num = name.rpartition("_")
    return head, int(num) if num.isdigit() else 0


def left_out(test_seconds: float) -> tuple[int, int]:
    """How many of the timed tests a mutant run leaves out at ``test_seconds``, of how many."""
    stats = STAGE / "mutants" / "mutmut-stats.json"
    if not stats.is_file():
        return 0, 0
    durations = timings(stats).values()
    return sum(d > test_seconds for d in durations), len(durations)


def report(scores: list[ModuleScore], diffs: dict[str, str], stale: list[str],
           fail_under: float, test_seconds: float) -> bool:
    for s in scores:
        for name in s.survivors:
            print(diffs[name], end="\n\n")
    if stale:
        print("Stale rows in tests/README.md (fix the list):")
        for row in stale:
            print(f"  {row}")
        print()
    not_run = sum(s.not_run for s in scores)
    if not_run:
        print(f"{not_run} mutants have not been run yet (an interrupted run, or results "
              "copied before the run finished): `scripts/mutation GROUP --again` runs them.\n")
    slow, timed = left_out(test_seconds)
    if slow:
        print(f"{slow} of the {timed} timed tests took longer than --test-seconds "
              f"{test_seconds:g}: a mutant runs them only when they are in its module's own "
              "test folder, so a survivor may still be killed by one of them "
              "(`--again --test-seconds inf` runs them all).\n")
    width = max(len(s.path) for s in scores)
    print(f"{'module':<{width}}  mutants  killed  equivalent  survived  not run   score")
    total = ModuleScore("all", sum(s.total for s in scores), sum(s.detected for s in scores),
                        sum(s.equivalent for s in scores), sum(s.not_run for s in scores),
                        [n for s in scores for n in s.survivors])
    for s in [*scores, total]:
        mark = "" if s.score >= fail_under or s is total else f"  < {fail_under:g}"
        print(f"{s.path:<{width}}  {s.total:7}  {s.detected:6}  {s.equivalent:10}  "
              f"{len(s.survivors):8}  {s.not_run:7}  {s.score:5.1f}%{mark}")
    return all(s.score >= fail_under for s in scores) and not stale and not not_run


def mutmut(names: list[str], jobs: int, env: dict[str, str]) -> int:
    """Run mutmut on the named mutants (or patterns) in the staging copy."""
    return subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs),
                           *names], cwd=STAGE, env=env, check=False).returncode


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    json_out = args.json.resolve() if args.json else None
    modules = modules_for(args.targets)
    if args.again and not (STAGE / "mutants").is_dir():
        sys.exit("scripts/mutation: nothing to run again: run it without --again first")
    missing = [m for m in modules if args.again and _results(m) is None]
    if missing:
        sys.exit(f"scripts/mutation: the last run did not mutate {', '.join(missing)}: "
                 "run it without --again")
    if not args.report_only:
        # A fresh run names every mutant of the chosen modules (mutmut matches patterns);
        # --again names the ones no test noticed last time.
        names = undetected(modules) if args.again else [f"{_module_name(m)}.*" for m in modules]
        stage(modules, args.tests, keep=not args.fresh)
        if not names:
            print("scripts/mutation: every mutant of these modules was already killed")
        else:
            env = {**os.environ, LIMIT_VARIABLE: str(args.test_seconds),
                   HOME_LIMIT_VARIABLE: str(args.home_seconds)}
            # Two passes (mutation_conftest.py): each mutant against its own folder's tests,
            # then the ones no test noticed against the rest too.
            code = mutmut(names, args.jobs, {**env, HOME_ONLY_VARIABLE: "1"})
            again = undetected(modules) if code == 0 else []
            if again:
                print(f"scripts/mutation: {len(again)} mutants survived their own folder's "
                      "tests: running the other tests too", file=sys.stderr)
                code = mutmut(again, args.jobs, env)
            if code != 0:
                print(f"scripts/mutation: mutmut exited {code}", file=sys.stderr)
                return code
    elif not STAGE.is_dir():
        sys.exit("scripts/mutation: nothing to report: run it without --report-only first")
    scores, diffs, stale = collect(modules)
    ok = report(scores, diffs, stale, args.fail_under, args.test_seconds)
    if json_out:
        json_out.write_text(json.dumps(
            [{"module": s.path, "mutants": s.total, "killed": s.detected,
              "equivalent": s.equivalent, "not_run": s.not_run, "survivors": s.survivors,
              "score": round(s.score, 2)}
             for s in scores], indent=2) + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
