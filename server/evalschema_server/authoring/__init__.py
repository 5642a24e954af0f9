"""Writing eval schemas: what the editor knows about one schema document, with no LSP in it.

``analysis`` parses a document and runs the engine's check once per version; ``context``
says where the cursor is in eval-schema terms; ``window`` re-parses only the object around
the cursor right after an edit. The features (``completion``, ``hover``, ``actions``,
``symbols``, ``tokens``) are plain functions over a ``SchemaAnalysis`` that answer in
offsets; the LSP handlers (``handlers/``) turn offsets into positions.
"""
