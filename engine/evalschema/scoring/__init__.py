"""Records to field results: the walk over the schema tree, array alignment, and the fast
paths derived from the walk (see README.md here)."""
