"""``python -m evalschema_server`` (and ``evalschema serve``): the server on stdio."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="evalschema serve",
                                     description="The evalschema language server (stdio).")
    parser.add_argument("--stdio", action="store_true", help="accepted and ignored (the default)")
    parser.add_argument("--log-file", help="write the server's own log here")
    args, extra = parser.parse_known_args(argv)
    if extra:
        from evalschema.errors import did_you_mean

        hints = [f"did you mean {hint}?" for x in extra if x.startswith("--")
                 and (hint := did_you_mean(x.split("=")[0], ["--stdio", "--log-file"]))]
        parser.error("; ".join([f"unrecognized arguments: {' '.join(extra)}", *hints]))
    if args.log_file:
        logging.basicConfig(filename=args.log_file, level=logging.INFO)
    from .memory import one_arena

    one_arena()  # before any thread: the runs' worker frees into the main heap
    from .server import create_server

    # Runs score on a worker thread; hand the interpreter back to the event loop
    # every millisecond (default 5 ms) so requests are answered while one is going on.
    sys.setswitchinterval(0.001)
    code = create_server().start_io()
    # ``exit`` means now: a worker thread may still be inside one long record (runs stop
    # between records) or a slow read, and the interpreter would wait for it to finish.
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
