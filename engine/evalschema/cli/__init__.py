"""The command line: ``main`` dispatches to one module per command (``schema_cmds``: check,
infer and annotate); ``options``, ``suites`` and ``progress`` are what the commands share."""
