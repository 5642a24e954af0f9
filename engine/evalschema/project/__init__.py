"""The project file (evalschema.toml / [tool.evalschema]): suites and their thresholds."""
