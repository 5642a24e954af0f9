// Runs one of the generators in this folder with a Python where the engine and the server
// import: `node scripts/python.mjs gen_metaschema.py dist/eval-schema.schema.json` (the
// meta-schema, from the engine's registry) or `node scripts/python.mjs gen_contracts.py
// [--check]` (package.json's settings and src/generated/, from the server's settings table
// and payload types). Python: $EVALSCHEMA_PYTHON, else the repository's .venv, else python3;
// the engine's and the server's source folders are put on PYTHONPATH so a checkout works
// without installing the package.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const extension = resolve(here, "..");
const root = resolve(extension, "..");
const [script, ...args] = process.argv.slice(2);
if (!script) {
  console.error("usage: node scripts/python.mjs SCRIPT.py [ARGS...]");
  process.exit(2);
}
const venvPython = join(root, ".venv", "bin", "python");
const python = process.env.EVALSCHEMA_PYTHON || (existsSync(venvPython) ? venvPython : "python3");
const env = { ...process.env };
env.PYTHONPATH = [join(root, "engine"), join(root, "server"), env.PYTHONPATH].filter(Boolean).join(":");
const res = spawnSync(python, [join(here, script), ...args], { cwd: extension, env, stdio: "inherit" });
if (res.error || res.status !== 0) {
  console.error(`${script}: ${python} failed` +
    (res.error ? `: ${res.error.message}` : ` (exit ${res.status})`) +
    "\nIt needs the engine's and the server's dependencies: run ./scripts/test once (it makes " +
    ".venv), or set EVALSCHEMA_PYTHON to a Python with `pip install -e '.[server]'` done.");
  process.exit(res.status || 1);
}
