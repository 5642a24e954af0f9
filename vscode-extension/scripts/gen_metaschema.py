"""Writes the JSON meta-schema VS Code's JSON support uses for eval schemas (jsonValidation).

The meta-schema is the engine's (``evalschema.rules.metaschema``, which says what it holds):
the same text ``evalschema meta-schema`` prints for other editors. Usage:
python gen_metaschema.py OUT.json
"""

from __future__ import annotations

import sys
from pathlib import Path

from evalschema.rules.metaschema import metaschema_text


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: gen_metaschema.py OUT.json", file=sys.stderr)
        return 2
    out = Path(argv[1])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(metaschema_text(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
