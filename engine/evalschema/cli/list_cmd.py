"""``evalschema list``: comparators, transforms and alignment strategies, with their
parameters, from the registry (custom ones included once their module is imported)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from evalschema.cli.options import EXIT_CODES, EXIT_OK, Formatter, add_module_options
from evalschema.rules.registry import Entry, default_registry

KINDS = {"comparators": "comparators", "transforms": "transforms",
         "strategies": "alignment strategies"}


def add_parser(sub: Any) -> None:
    ls = sub.add_parser(
        "list", help="list comparators, transforms and alignment strategies",
        description="Everything x-eval-compare, x-eval-transform and x-eval-align accept, "
        "with parameters (* required), types and defaults. Custom comparators appear once "
        "their module is imported (--comparator-module, or comparator_modules in the "
        "configuration with --config --trust-workspace).",
        epilog="examples:\n  evalschema list\n  evalschema list --kind comparators\n"
        "  evalschema list --comparator-module my_comparators --format json\n\n" + EXIT_CODES,
        formatter_class=Formatter)
    ls.add_argument("--format", choices=("text", "json"), default="text")
    ls.add_argument("--kind", choices=tuple(KINDS), help="only this kind")
    ls.add_argument("--config", metavar="FILE",
                    help="import the comparator modules of this configuration's suites "
                    "(with --trust-workspace)")
    add_module_options(ls)
    ls.set_defaults(run=run, command_parser=ls)


def _type(spec: dict[str, Any]) -> str:
    t = spec.get("type")
    if isinstance(t, list):
        return "|".join(str(x) for x in t)
    if t:
        return str(t)
    for key in ("anyOf", "oneOf"):
        alts = spec.get(key)
        if isinstance(alts, list):
            return "|".join(_type(a) for a in alts if isinstance(a, dict))
    if "enum" in spec:
        return "|".join(json.dumps(v) for v in spec["enum"])
    return "any"


def _param_lines(d: Entry) -> list[str]:
    out = []
    for name, spec in d.params.get("properties", {}).items():
        spec = spec if isinstance(spec, dict) else {}
        req = "*" if name in d.required_params else ""
        bits = [_type(spec)]
        if "default" in spec:
            bits.append(f"default {json.dumps(spec['default'])}")
        desc = spec.get("description", "")
        out.append(f"        {name}{req} ({', '.join(bits)})" + (f": {desc}" if desc else ""))
    return out


def run(args: argparse.Namespace, parser: argparse.ArgumentParser,
        argv: list[str] | None = None) -> int:
    from evalschema.cli.suites import import_config_modules, import_modules_cli

    if args.comparator_module:
        import_modules_cli(args.comparator_module)
    if args.config:
        from evalschema.errors import InputError
        from evalschema.project.config import load_config

        loaded = load_config(args.config)
        if loaded.config is None or loaded.errors:
            raise InputError(loaded.errors, "the configuration is invalid")
        for suite in loaded.config.suites:
            import_config_modules(suite, loaded.config, trusted=args.trust_workspace)
    reg = default_registry
    if args.format == "json":
        doc = reg.to_dict()
        if args.kind:
            doc = {args.kind: doc[args.kind]}
        json.dump(doc, sys.stdout, indent=2)
        print()
        return EXIT_OK
    tables = {"comparators": reg.comparators, "transforms": reg.transforms,
              "strategies": reg.strategies}
    for kind, title in KINDS.items():
        if args.kind and kind != args.kind:
            continue
        print(f"{title}:")
        for d in tables[kind].values():  # type: ignore[attr-defined]
            params = ", ".join(
                f"{k}{'*' if k in d.required_params else ''}"
                for k in d.params.get("properties", {}))
            custom = "" if d.builtin else "  [custom]"
            print(f"  {d.name}" + (f" ({params})" if params else "") + custom)
            print(f"      {d.summary}")
            types = sorted(d.types)
            if kind != "strategies" and len(types) < 7:
                print(f"      applies to: {', '.join(types)}")
            for line in _param_lines(d):
                print(line)
        print()
    print("* required parameter")
    return EXIT_OK
