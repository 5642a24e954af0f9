"""One module per LSP feature; each is a plain function over a SchemaAnalysis."""
