"""``evalschema serve``: the language server (``evalschema_server``) on stdio.

The engine never imports the server: the server's ``main`` is found through the
``evalschema.server`` entry point (declared in pyproject.toml), so an engine installed
without it says how to install it instead.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Any

from evalschema.cli.options import EXIT_INPUT

#: The entry-point group whose ``main`` starts the language server.
SERVER_ENTRY_POINTS = "evalschema.server"

INSTALL_HINT = ("the evalschema language server is not installed; install it with "
                "`pip install 'evalschema[server]'` (from a checkout: "
                "`pip install -e '.[server]'`)")


def add_parser(sub: Any) -> None:
    sub.add_parser(
        "serve", help="start the language server on stdio (for editors)",
        description="Start the evalschema language server on standard input/output. "
        "Editors start it for you; --stdio is accepted and ignored. Other options are the "
        "server's own (evalschema serve --help once it is installed).",
        epilog="examples:\n  evalschema serve --stdio\n\n"
        "exit codes: 0 ok (exit after shutdown), 1 the client went away without shutdown, "
        "2 the server is not installed", add_help=False)


def run(argv: Sequence[str]) -> int:
    found = next(iter(entry_points(group=SERVER_ENTRY_POINTS, name="main")), None)
    if found is None:
        print(f"evalschema: {INSTALL_HINT}", file=sys.stderr)
        return EXIT_INPUT
    try:
        main = found.load()
    except ImportError as exc:
        missing = getattr(exc, "name", None)
        detail = f" (missing module: {missing})" if missing else ""
        print(f"evalschema: {INSTALL_HINT}{detail}", file=sys.stderr)
        return EXIT_INPUT
    except AttributeError:
        main = None
    if not callable(main):
        print(f"evalschema: {INSTALL_HINT} (evalschema_server has no main)", file=sys.stderr)
        return EXIT_INPUT
    result = main([a for a in argv if a != "--stdio"])
    return int(result or 0)
