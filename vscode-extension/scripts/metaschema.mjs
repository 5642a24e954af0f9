// Generates dist/eval-schema.schema.json from the engine's registry (scripts/gen_metaschema.py).
// Python: $EVALSCHEMA_PYTHON, else the repository's .venv, else python3; the engine's source
// folder is put on PYTHONPATH so a checkout works without installing the package.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const venvPython = join(root, ".venv", "bin", "python");
const python = process.env.EVALSCHEMA_PYTHON || (existsSync(venvPython) ? venvPython : "python3");
const out = resolve(here, "..", "dist", "eval-schema.schema.json");
const env = { ...process.env };
env.PYTHONPATH = [join(root, "engine"), env.PYTHONPATH].filter(Boolean).join(":");
const res = spawnSync(python, [join(here, "gen_metaschema.py"), out], { env, stdio: "inherit" });
if (res.error || res.status !== 0) {
  console.error(`metaschema: ${python} could not generate ${out}` +
    (res.error ? `: ${res.error.message}` : ` (exit ${res.status})`) +
    "\nIt needs the engine's dependencies: run ./scripts/test once (it makes .venv), " +
    "or set EVALSCHEMA_PYTHON to a Python with `pip install -e .` done.");
  process.exit(1);
}
console.log(`metaschema: ${out}`);
