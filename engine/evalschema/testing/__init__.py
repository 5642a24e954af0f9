"""evalschema in pytest: ``assert_extraction`` for hand-written tests, and the plugin
(``evalschema.testing.plugin``, entry point ``pytest11``) that runs the configured suites
as test items. This package imports no pytest; only the plugin module does."""

from evalschema.testing.assertion import assert_extraction, check_extraction

__all__ = ["assert_extraction", "check_extraction"]
