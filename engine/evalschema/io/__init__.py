"""Files to records and back: strict and lenient reading, the extracted-file index, bounded
reads of files untrusted input names, atomic writes."""
