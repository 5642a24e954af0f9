"""The evalschema language server (a thin adapter over the engine). Not built yet."""
