"""Evaluation in the editor: suites found in the workspace, scored on a worker thread with
the engine's pairing and scorer, and shown as diagnostics, hovers and reports."""
