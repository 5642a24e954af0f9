"""Files to records and back: strict and lenient reading (``records``, ``jsontext``,
``lenient``), reading one extracted record (``extracted``), the extracted-file index
(``extracted_index``), bounded reads of files untrusted input names, atomic writes.
Nothing here imports ``run``: pairing builds on this package, not the reverse."""
