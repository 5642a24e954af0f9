"""The failure text of project/'s bad.jsonl, shared by the plugin's and the helper's tests.

In bad.jsonl record B has total 25.0 (gold 20.0) and no vendor. By hand: B has 1 match of 2
extracted and 3 gold fields, P 1/2, R 1/3, F1 0.4; A is perfect, so macro F1
(1 + 0.4) / 2 = 0.7; micro P 4/5, R 4/6, F1 0.7273; ``total`` has 1 match and 1 mismatch,
F1 0.5; ``vendor`` P 1, R 1/2, F1 0.6667.
"""

from __future__ import annotations

B_DIFF = """\
record B: F1 0.4000, 2 wrong field(s)
  total: mismatch: 25.0 ≠ gold 20.0 (numeric)
  vendor: omission: missing from extracted

extracted (left) == gold (right)
Differing items:
{'total': 25.0} != {'total': 20.0}
Right contains 1 more item:
{'vendor': 'Bolt'}

Full diff: (-: missing in left side, +: extra in left side)
  {
-     'total': 20.0,
?               ^
+     'total': 25.0,
?               ^
-     'vendor': 'Bolt',
  }"""

#: The run's story after its thresholds: headline, worst fields, worst record.
RUN_STORY = """\
2 records, 6 fields judged
  F1 0.7000 (macro)  0.7273 (micro)   precision 0.7500  recall 0.6667   weighted score 0.6667
  4 match  1 mismatch  1 omission  0 hallucination  0 skipped  0 error
  gold coverage 100.0% (6 of 6 values)

worst fields:
field      F1                 prec  recall  match  mism  omit  hall  skip  err
──────────────────────────────────────────────────────────────────────────────
total   0.500  ██████······  0.500   0.500      1     1     0     0     0    0
vendor  0.667  ████████····  1.000   0.500      1     0     1     0     0    0

worst """ + B_DIFF
