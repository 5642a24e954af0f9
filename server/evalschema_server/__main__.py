"""``python -m evalschema_server`` (and ``evalschema serve``): the server on stdio."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="evalschema serve",
                                     description="The evalschema language server (stdio).")
    parser.add_argument("--stdio", action="store_true", help="accepted and ignored (the default)")
    parser.add_argument("--log-file", help="write the server's own log here")
    args = parser.parse_args(argv)
    if args.log_file:
        logging.basicConfig(filename=args.log_file, level=logging.INFO)
    from .server import server

    # Runs score on a worker thread; hand the interpreter back to the event loop
    # every millisecond (default 5 ms) so requests are answered while one is going on.
    sys.setswitchinterval(0.001)
    return server.start_io()


if __name__ == "__main__":
    sys.exit(main())
