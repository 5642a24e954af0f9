"""A run: pairing records, scoring each pair, accumulating mergeable aggregates, in one
process or several; comparing runs."""
