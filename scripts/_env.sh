# Sourced by the scripts: make .venv and install the project (again only when
# pyproject.toml changed), so each command works on a fresh machine.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${EVALSCHEMA_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "setting up $VENV (first run only)…" >&2
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip >&2
fi
stamp="$VENV/.evalschema-installed"
want="$(sha256sum "$ROOT/pyproject.toml" | cut -d' ' -f1)-${EVALSCHEMA_EXTRAS:-dev,server,frames,mlflow}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "installing evalschema and its dependencies into $VENV…" >&2
  "$VENV/bin/python" -m pip install -q -e "$ROOT[${EVALSCHEMA_EXTRAS:-dev,server,frames,mlflow}]" >&2
  echo "$want" > "$stamp"
fi
export PATH="$VENV/bin:$PATH"
cd "$ROOT"
