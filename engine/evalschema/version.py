"""The distribution's version, in one place: pyproject.toml reads it (setuptools dynamic
version), and the public API, the CLI, the reports and the language server re-use it."""

__version__ = "0.1.0"
