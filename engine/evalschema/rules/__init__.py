"""The rules: the registry of comparators, transforms and alignment strategies (each entry
holds the function that runs), the built-ins, and the x-eval-* keywords."""
