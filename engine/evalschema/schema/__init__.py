"""Eval schemas: resolving, validating, building the scoring tree, inferring."""
