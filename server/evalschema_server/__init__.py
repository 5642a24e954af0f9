"""The evalschema language server: a thin adapter over the engine (``docs/server.md``).

``python -P -m evalschema_server`` (or ``evalschema serve``) runs it on stdio.
"""
