"""A suite of N records for distributed runs: the bundled example's gold and model-b
records tiled under new ids (their real errors, unreadable and missing records
repeated), the extracted lines of each tile shuffled so file order is not id order.

Shared by ``bench/distributed.py`` and the distributed tests (which load it by path).
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SCHEMA = EXAMPLES / "invoices.eval.json"
ID = "invoice_id"


def write_suite(folder: Path, records: int, seed: int = 15) -> tuple[Path, Path, Path]:
    """(schema, gold, extracted) of ``records`` gold records written into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    gold_lines = [ln for ln in (EXAMPLES / "invoices.gold.jsonl").read_text(
        encoding="utf-8").splitlines() if ln.strip()]
    ext_lines = [ln for ln in (EXAMPLES / "invoices.model-b.extracted.jsonl").read_text(
        encoding="utf-8").splitlines() if ln.strip()]
    ids = [json.loads(ln)[ID] for ln in gold_lines]
    hits = [next((rid for rid in ids if json.dumps(rid) in line), None) for line in ext_lines]
    rng = random.Random(seed)
    gold_path, ext_path = folder / "gold.jsonl", folder / "extracted.jsonl"
    with gold_path.open("w", encoding="utf-8") as g, ext_path.open("w", encoding="utf-8") as e:
        done, tile = 0, 0
        while done < records:
            take = min(len(gold_lines), records - done)
            # Ids are renamed in the text itself, so fenced or cut answers keep theirs.
            renamed = {rid: f"{rid}~{tile}" for rid in ids[:take]}
            for rid, line in zip(ids[:take], gold_lines[:take], strict=True):
                g.write(line.replace(json.dumps(rid), json.dumps(renamed[rid])) + "\n")
            tile_ext = []
            for line, hit in zip(ext_lines, hits, strict=True):
                if hit is None or hit in renamed:  # id-less lines repeat with every tile
                    tile_ext.append(line if hit is None else
                                    line.replace(json.dumps(hit), json.dumps(renamed[hit])))
            rng.shuffle(tile_ext)
            e.write("".join(x + "\n" for x in tile_ext))
            done += take
            tile += 1
    schema = folder / "invoices.eval.json"
    shutil.copyfile(SCHEMA, schema)
    return schema, gold_path, ext_path
