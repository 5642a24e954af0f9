// End to end in real VS Code: code-server (pinned, on its pinned Node 24) with the built .vsix,
// driven by Playwright (playwright-core) in Debian's Chromium. Run by tests/e2e/test_vscode.py;
// standalone: `npm run e2e` after `scripts/install-e2e.sh` and `npm run package`.
//
// Scenario, on a copy of examples/ plus a schema with a misspelt comparator:
//   1. open the schema: the squiggle on the comparator, its message on hover, the quick fix
//      "Change to 'numeric'" applied, the squiggle gone;
//   2. open an extracted file: the server's mismatch diagnostics in the Problems panel, under
//      VS Code's 1,000 per file, ending with the server's summary of the findings not shown;
//   3. "evalschema: Evaluate suite" from the command palette: the status-bar F1 naming the run and
//      its pass/fail, and the results view (the runs side by side with Δ and pass/fail badges;
//      sortable; a click on a field lists its findings, record by record); the Findings view;
//      Compare two runs (fields by F1 change, names intact).
// The workspace is hostile and untrusted (VS Code's workspace trust is on; the folder is not
// trusted): it plants a package evalschema_server/ and a module lsprotocol.py, workspace settings
// that choose an interpreter of its own, server arguments and a comparator module, and a schema
// whose semantic comparator names a base_url on a local listener (OPENAI_API_KEY is set in
// code-server's environment). Steps 1-3 run in it, then:
// A second listener is the user's own judge endpoint (EVALSCHEMA_JUDGE_BASE_URL, the user's
// environment), which another planted schema would make the editor spend the key on.
//   4. no planted code ran, the schema's listener got no request, and the user's own endpoint
//      was not asked either (the judge is not asked in an untrusted workspace);
//   5. trusting the folder (Manage Workspace Trust) restarts the server, which then imports the
//      comparator module the workspace settings name (and still not the planted packages) and
//      asks the user's own endpoint, with the key; the schema's listener still gets nothing;
//   6. the Test Explorer's records as tests (VS Code runs tests in trusted folders only): Run All
//      Tests, a failed record of model-b, its message's expected/actual diff in the test peek;
//   7. "Accept extracted value as gold" on each finding of one record of model-b (the gold file
//      edited, then saved): the record's test passes;
//   8. suspect gold: the gold file's information diagnostic where both runs agree against it;
//   9. a comparator typo typed into the schema and saved: its error in the schema, and the suite
//      still scored: the extracted file keeps its other findings, that field an error in each.
// A screenshot of each step goes to the artifacts folder (and one on failure). Prints "OK ..."
// lines the pytest wrapper checks; exits non-zero on any failure. code-server's whole process
// group is killed at the end.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const extRoot = resolve(here, "..");
const repoRoot = resolve(extRoot, "..");
const env = process.env;
const codeServer = env.EVALSCHEMA_CODE_SERVER;
const codeServerNode = env.EVALSCHEMA_CODE_SERVER_NODE;
const chromiumPath = env.EVALSCHEMA_CHROMIUM || "/usr/bin/chromium";
const vsix = env.EVALSCHEMA_VSIX || join(extRoot, "dist", "evalschema.vsix");
const python = env.EVALSCHEMA_PYTHON || join(repoRoot, ".venv", "bin", "python");
const artifacts = resolve(env.EVALSCHEMA_E2E_ARTIFACTS || join(here, "artifacts"));
const keep = env.EVALSCHEMA_E2E_KEEP === "1";
const STEP_TIMEOUT = Number(env.EVALSCHEMA_E2E_STEP_TIMEOUT || 60000);

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const log = (msg) => console.log(`[${elapsed()}] ${msg}`);
const ok = (msg) => console.log(`OK ${msg}`);

class Failure extends Error {}
function fail(msg) {
  throw new Failure(msg);
}

for (const [name, value] of [["EVALSCHEMA_CODE_SERVER", codeServer], ["EVALSCHEMA_CODE_SERVER_NODE", codeServerNode]]) {
  if (!value || !existsSync(value)) {
    console.error(`FAIL ${name} is not set to an existing file (run vscode-extension/scripts/install-e2e.sh)`);
    process.exit(2);
  }
}
for (const [what, file] of [["Chromium", chromiumPath], ["the .vsix (npm run package)", vsix], ["Python with evalschema", python]]) {
  if (!existsSync(file)) {
    console.error(`FAIL ${what} not found: ${file}`);
    process.exit(2);
  }
}

const BROKEN_SCHEMA = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "x-eval-id": "invoice_id",
  "properties": {
    "invoice_id": {"type": "string"},
    "total": {"type": "number", "x-eval-compare": "numerc"}
  }
}
`;

function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

async function waitHealthy(url, deadline) {
  while (Date.now() < deadline) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  fail(`code-server did not answer ${url}`);
}

function filesUnder(dir) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

const tmp = mkdtempSync(join(env.EVALSCHEMA_E2E_TMP || tmpdir(), "evalschema-vscode-e2e-"));
const ws = join(tmp, "workspace");
const markers = join(tmp, "markers");
const API_KEY = "sk-evalschema-e2e-canary";
// Requests the judge listener received (method, url, whether they carried the key).
const judgeRequests = [];
/** Requests the user's own judge endpoint received. */
const userJudgeRequests = [];
const judgeServers = [];
let userJudgePort;
const userData = join(tmp, "user-data");
const extensions = join(tmp, "extensions");
const serverLog = join(tmp, "code-server.log");
mkdirSync(artifacts, { recursive: true });
let csProc;
let browser;
let page;

function killCodeServer() {
  if (csProc && csProc.exitCode === null) {
    try {
      process.kill(-csProc.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
}
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    killCodeServer();
    process.exit(130);
  });
}

async function shot(name) {
  const file = join(artifacts, name);
  await page.screenshot({ path: file });
  log(`screenshot ${file}`);
  return file;
}

/** Runs a command from the palette. The palette lists the commands there are when it opens: one
 * that an extension registers a moment later (the Testing view's, once a test controller exists)
 * is only listed when it opens again. */
async function runCommand(title) {
  log(`command: ${title}`);
  const input = page.locator(".quick-input-widget input");
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first();
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press("F1");
    await input.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
    await input.fill(`>${title}`);
    if (await row.waitFor({ timeout: attempt < 3 ? 20000 : STEP_TIMEOUT }).then(() => true, () => false)) break;
    if (attempt >= 3) fail(`the command palette does not list "${title}"`);
    log(`"${title}" not listed (attempt ${attempt}); opening the palette again`);
    await page.keyboard.press("Escape");
  }
  await page.keyboard.press("Enter");
}

/** The Quick Fix menu's row holding `text`, at the cursor. The menu can open before the code
 * actions arrive, or close when VS Code re-requests them (a cancelled request): ask again, a
 * few times, before calling it a failure. */
async function quickFix(text) {
  const fix = page.locator(".action-widget .monaco-list-row", { hasText: text }).first();
  for (let attempt = 1; ; attempt++) {
    await runCommand("Quick Fix...");
    try {
      await fix.waitFor({ state: "visible", timeout: attempt < 3 ? 15000 : STEP_TIMEOUT });
      return fix;
    } catch (e) {
      if (attempt >= 3) throw e;
      log(`quick fix menu not shown (attempt ${attempt}); asking again`);
      await page.keyboard.press("Escape");
    }
  }
}

/** The Problems panel, filtered to `text`: its rows from evalschema. */
async function problemsMatching(text) {
  await runCommand("View: Focus Problems");
  const panel = page.locator(".markers-panel");
  await panel.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  await page.locator('.part.panel input[placeholder^="Filter"]').first().fill(text);
  // rows still of the last filter until the panel catches up: only those that match
  return panel.locator(".monaco-list-row", { hasText: "evalschema" }).filter({ hasText: text });
}

/** The texts of the Problems panel's rows for the active file that match `text`, once there are
 * some ("Show Active File Only" is on: see `showActiveFileOnly`). */
async function problemsOfActiveFile(text) {
  const rows = await problemsMatching(text);
  let found = [];
  await waitFor(`problems of the active file matching ${text}`, async () => {
    const texts = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
    found = texts.filter((t) => t.includes(text)); // the filter also matches fuzzily
    return found.length > 0;
  }, STEP_TIMEOUT);
  return found;
}

/** Turns the Problems panel's "Show Active File Only" filter on or off (from its filter menu). */
async function showActiveFileOnly(on) {
  await runCommand("View: Focus Problems");
  await page.locator('.markers-panel-action-filter-container .action-label, .part.panel .codicon-filter').first().click();
  const item = page.locator(".monaco-menu .action-item", { hasText: "Show Active File Only" }).first();
  await item.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  const checked = (await item.locator(".action-menu-item").getAttribute("aria-checked")) === "true";
  if (checked !== on) await item.click();
  else await page.keyboard.press("Escape");
}

/** The frame (a webview's) that shows `selector`, once one does. */
async function frameWith(selector) {
  const deadline = Date.now() + STEP_TIMEOUT;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (await frame.locator(selector).count().catch(() => 0)) return frame;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  fail(`no webview shows ${selector}`);
}

/** Opens a workspace file with Quick Open. Ctrl+P can go unheard once the Problems panel had
 * the focus (the palette's Go to File then), and Enter can land on a list not yet updated to
 * the name typed: until the file's tab is active, a few times, before calling it a failure. */
async function openFile(name) {
  const input = page.locator(".quick-input-widget input");
  const tab = page.locator(".tab.active", { hasText: name });
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press("Control+P");
    if (!(await input.waitFor({ state: "visible", timeout: 5000 }).then(() => true, () => false))) {
      await runCommand("Go to File...");
      await input.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
    }
    await input.fill(name);
    // Enter opens the focused row: wait until it is the file's (the list is redrawn when the
    // file search answers after the editor history).
    await page.locator(".quick-input-list .monaco-list-row.focused", { hasText: name }).first().waitFor({ timeout: STEP_TIMEOUT });
    await page.waitForTimeout(300);
    await page.keyboard.press("Enter");
    if (await tab.waitFor({ timeout: attempt < 3 ? 15000 : STEP_TIMEOUT }).then(() => true, () => false)) break;
    if (attempt >= 3) fail(`Quick Open did not open ${name}`);
    log(`${name} not opened (attempt ${attempt}); Quick Open again`);
    await page.keyboard.press("Escape");
  }
  await page.locator(".monaco-editor .view-lines").first().waitFor({ timeout: STEP_TIMEOUT });
}

/** 9. A comparator typo typed into the schema and saved: the schema shows the error, and the
 * suite is still scored: the extracted file keeps its other findings and gains an error on that
 * field in every record. */
async function schemaTypo() {
  const s9 = Date.now();
  const schemaName = "invoices.eval.json";
  const text = readFileSync(join(ws, schemaName), "utf8");
  const quote = text.indexOf('"normalized"', text.indexOf('"vat_id"'));
  const line = text.slice(0, quote).split("\n").length;
  const column = quote - text.lastIndexOf("\n", quote - 1); // 1-based, at the opening quote
  await runCommand("View: Close All Editors");
  await openFile(schemaName);
  await runCommand("Go to Line/Column...");
  await page.keyboard.type(`${line}:${column + 8}`); // after "normali
  await page.keyboard.press("Enter");
  await page.keyboard.press("Backspace"); // "normalzed"
  await page.keyboard.press("Control+S");
  await page.locator(".tab.dirty", { hasText: schemaName }).waitFor({ state: "detached", timeout: STEP_TIMEOUT });
  // The data files' findings name the typo too: the active file's problems only.
  await showActiveFileOnly(true);
  const [typoText] = await problemsOfActiveFile("unknown comparator 'normalzed'");
  ok(`typo in the schema: ${typoText.slice(0, 160)}`);
  await shot("9-schema-typo.png");
  const extracted = "invoices.model-b.extracted.jsonl";
  await openFile(extracted);
  const errors = await problemsOfActiveFile("schema error: unknown comparator 'normalzed'");
  if (!errors.every((t) => t.includes("vendor.vat_id"))) fail(`schema errors on other fields: ${errors.join(" | ")}`);
  ok(`the field with the typo is an error in ${extracted}: ${errors[0].slice(0, 200)}`);
  const others = await problemsOfActiveFile("≠ gold");
  if (others.some((t) => t.includes("vendor.vat_id"))) fail(`a mismatch on vendor.vat_id with a schema error: ${others.join(" | ")}`);
  ok(`other findings of ${extracted} stay (${((Date.now() - s9) / 1000).toFixed(1)}s): ${others[0].slice(0, 200)}`);
  await shot("9-other-findings.png");
  await showActiveFileOnly(false);
}

/** Python that writes a marker file named `name` when it runs. */
function markerCode(name) {
  return `from pathlib import Path\nPath(${JSON.stringify(join(markers, name))}).write_text("ran")\n`;
}

function markersWritten() {
  return existsSync(markers) ? readdirSync(markers).sort() : [];
}

/** A listener standing in for an LLM endpoint: records every request into `seen`, answers 500 at once. */
function startJudgeListener(seen) {
  return new Promise((res) => {
    const server = createHttpServer((req, resp) => {
      seen.push({ method: req.method, url: req.url, key: String(req.headers.authorization ?? "").includes(API_KEY) });
      req.resume();
      resp.writeHead(500, { "content-type": "text/plain" });
      resp.end("no");
    });
    judgeServers.push(server);
    server.listen(0, "127.0.0.1", () => res(server.address().port));
  });
}

/** The attacker's additions to the workspace. */
function plantHostileWorkspace(judgePort) {
  mkdirSync(markers, { recursive: true });
  mkdirSync(join(ws, "evalschema_server"), { recursive: true });
  writeFileSync(join(ws, "evalschema_server", "__init__.py"), markerCode("evalschema_server"));
  writeFileSync(join(ws, "lsprotocol.py"), markerCode("lsprotocol"));
  writeFileSync(join(ws, "workspace_cmp.py"), markerCode("workspace_cmp"));
  writeFileSync(join(ws, "fake-python"), `#!/bin/sh\necho ran > ${JSON.stringify(join(markers, "fake-python"))}\nexec ${JSON.stringify(python)} "$@"\n`);
  chmodSync(join(ws, "fake-python"), 0o755);
  mkdirSync(join(ws, ".vscode"), { recursive: true });
  writeFileSync(
    join(ws, ".vscode", "settings.json"),
    JSON.stringify({
      "evalschema.interpreter": "${workspaceFolder}/fake-python",
      "evalschema.serverArgs": ["--log-level", "debug"],
      "evalschema.comparatorModules": ["workspace_cmp.py"],
    }),
  );
  // A suite whose schema sends the judge's requests (and the key) to the listener.
  const nonce = String(Date.now());
  const leak = {
    type: "object",
    "x-eval-id": "id",
    properties: { id: { type: "string" }, vendor: { type: "string", "x-eval-compare": { semantic: { base_url: `http://127.0.0.1:${judgePort}/v1` } } } },
  };
  writeFileSync(join(ws, "leak.eval.json"), JSON.stringify(leak, null, 2));
  writeFileSync(join(ws, "leak.gold.jsonl"), JSON.stringify({ id: "a", vendor: `Acme Corporation ${nonce}` }) + "\n");
  writeFileSync(join(ws, "leak.run.extracted.jsonl"), JSON.stringify({ id: "a", vendor: `ACME Corp. ${nonce}` }) + "\n");
  // A suite whose schema names no endpoint: the judge would ask the user's own (default profile).
  const spend = { ...leak, properties: { ...leak.properties, vendor: { type: "string", "x-eval-compare": { semantic: { cache: false } } } } };
  writeFileSync(join(ws, "spend.eval.json"), JSON.stringify(spend, null, 2));
  writeFileSync(join(ws, "spend.gold.jsonl"), JSON.stringify({ id: "a", vendor: `Acme Corporation ${nonce}` }) + "\n");
  writeFileSync(join(ws, "spend.run.extracted.jsonl"), JSON.stringify({ id: "a", vendor: `ACME Corp. ${nonce}` }) + "\n");
  const toml = readFileSync(join(ws, "evalschema.toml"), "utf8");
  writeFileSync(
    join(ws, "evalschema.toml"),
    `${toml}\n[[suite]]\nname = "leak"\nschema = "leak.eval.json"\ngold = "leak.gold.jsonl"\nextracted = "leak.run.extracted.jsonl"\n` +
      `\n[[suite]]\nname = "spend"\nschema = "spend.eval.json"\ngold = "spend.gold.jsonl"\nextracted = "spend.run.extracted.jsonl"\n`,
  );
}

async function waitFor(what, check, timeout) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  fail(`timed out waiting for ${what}`);
}

async function main() {
  // The workspace: a copy of examples/ (the repository's stays untouched) plus a broken schema,
  // and what an attacker would plant in it.
  cpSync(join(repoRoot, "examples"), ws, { recursive: true, filter: (src) => !src.includes("__pycache__") });
  writeFileSync(join(ws, "broken.eval.json"), BROKEN_SCHEMA);
  const judgePort = await startJudgeListener(judgeRequests);
  userJudgePort = await startJudgeListener(userJudgeRequests);
  plantHostileWorkspace(judgePort);
  mkdirSync(join(userData, "User"), { recursive: true });
  writeFileSync(
    join(userData, "User", "settings.json"),
    JSON.stringify(
      {
        "workbench.startupEditor": "none",
        // Workspace trust on, and the folder not trusted (no prompt: it opens in Restricted Mode).
        "security.workspace.trust.enabled": true,
        "security.workspace.trust.startupPrompt": "never",
        "security.workspace.trust.banner": "never",
        "security.workspace.trust.untrustedFiles": "open",
        "telemetry.telemetryLevel": "off",
        "extensions.autoUpdate": false,
        "extensions.autoCheckUpdates": false,
        "extensions.ignoreRecommendations": true,
        "update.mode": "none",
        "chat.disableAIFeatures": true,
        "workbench.tips.enabled": false,
        "workbench.secondarySideBar.defaultVisibility": "hidden",
        "json.schemaDownload.enable": false,
        "editor.minimap.enabled": false,
        "editor.hover.delay": 150,
        "files.autoSave": "off",
        "evalschema.interpreter": python,
      },
      null,
      2,
    ),
  );
  const port = await freePort();
  const config = join(tmp, "config.yaml");
  writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const base = [codeServer, "--config", config, "--user-data-dir", userData, "--extensions-dir", extensions];

  log(`installing ${vsix}`);
  const install = spawnSync(codeServerNode, [...base, "--install-extension", vsix], { encoding: "utf8", timeout: 120000 });
  if (install.status !== 0) fail(`--install-extension failed (${install.status}): ${install.stdout}${install.stderr}`);
  if (!readdirSync(extensions).some((d) => d.startsWith("evalschema.evalschema-"))) fail(`extension not installed: ${readdirSync(extensions)}`);
  ok("installed the .vsix");

  log(`starting code-server on 127.0.0.1:${port}`);
  const out = [];
  csProc = spawn(
    codeServerNode,
    [...base, "--auth", "none", "--disable-telemetry", "--disable-update-check", "--bind-addr", `127.0.0.1:${port}`, ws],
    { detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...env, OPENAI_API_KEY: API_KEY, EVALSCHEMA_JUDGE_BASE_URL: `http://127.0.0.1:${userJudgePort}/v1`, PATH: `${dirname(codeServerNode)}:${env.PATH}` } },
  );
  for (const stream of [csProc.stdout, csProc.stderr]) stream.on("data", (d) => out.push(String(d)));
  csProc.on("exit", () => writeFileSync(serverLog, out.join("")));
  await waitHealthy(`http://127.0.0.1:${port}/healthz`, Date.now() + 60000);
  log("code-server is up");

  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync", "--disable-background-networking", "--disable-component-update", "--disable-dev-shm-usage"],
  });
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.setDefaultTimeout(STEP_TIMEOUT);
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: 90000 });
  // Wait until the explorer shows the workspace (the window is ready for keyboard input).
  await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "evalschema.toml" }).first().waitFor({ timeout: 90000 });
  log("workbench ready");

  // 1. The misspelt comparator: squiggle, message, quick fix.
  const s1 = Date.now();
  await openFile("broken.eval.json");
  const squiggle = page.locator(".monaco-editor .squiggly-error").first();
  await squiggle.waitFor({ timeout: STEP_TIMEOUT });
  const hover = page.locator(".monaco-hover", { hasText: "numerc" }).first();
  // The squiggle can move after it is measured (code lenses and inlay hints arrive later and
  // push the line down), leaving the pointer on nothing: measure it again and re-hover, a few
  // times, before calling it a failure.
  let box = null;
  for (let attempt = 1; ; attempt++) {
    box = await squiggle.boundingBox();
    if (!box) fail("squiggle has no box");
    await page.mouse.move(10, 10);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    try {
      await hover.waitFor({ state: "visible", timeout: attempt < 3 ? 15000 : STEP_TIMEOUT });
      break;
    } catch (e) {
      if (attempt >= 3) throw e;
      log(`hover not shown (attempt ${attempt}); measuring the squiggle again`);
    }
  }
  const hoverText = (await hover.innerText()).replace(/\s+/g, " ");
  if (!/unknown comparator 'numerc'/.test(hoverText) || !/did you mean 'numeric'/.test(hoverText)) fail(`hover: ${hoverText}`);
  ok(`squiggle and message: ${hoverText.slice(0, 160)}`);
  await shot("1-diagnostic.png");
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.move(10, 10);
  const fix = await quickFix("numeric");
  ok(`quick fix offered: ${(await fix.innerText()).trim()}`);
  await shot("1-quick-fix.png");
  await fix.click();
  await page.locator(".monaco-editor .view-lines", { hasText: '"numeric"' }).first().waitFor({ timeout: STEP_TIMEOUT });
  await page.locator(".monaco-editor .squiggly-error").first().waitFor({ state: "detached", timeout: STEP_TIMEOUT });
  ok(`quick fix applied, squiggle gone (${((Date.now() - s1) / 1000).toFixed(1)}s)`);
  // Format Document, as VS Code's JSON support formatted it: the one-line field spread out.
  await runCommand("Format Document");
  const formatted = page.locator(".monaco-editor .view-line", { hasText: '"x-eval-compare"' }).first();
  await waitFor("the formatted schema", async () => (await formatted.innerText().catch(() => "")).replace(/\s+/g, " ").trim() === '"x-eval-compare": "numeric"', STEP_TIMEOUT);
  ok("Format Document formats the eval schema");
  // Eval schemas open in the Eval Schema language: VS Code's JSON support, which would apply the
  // 2020-12 meta-schema the "$schema" names, adds nothing to the hover of a field.
  const mode = page.locator("#status\\.editor\\.mode");
  await waitFor("the language mode Eval Schema", async () => /Eval Schema/.test(await mode.innerText().catch(() => "")), STEP_TIMEOUT);
  const fieldKey = page.locator(".monaco-editor .view-line span", { hasText: /^"total"$/ }).first();
  const fieldHover = page.locator(".monaco-hover:not(.hidden)", { hasText: "comparator" }).first();
  for (let attempt = 1; ; attempt++) {
    const at = await fieldKey.boundingBox();
    if (!at) fail('no "total" key on screen');
    await page.mouse.move(10, 10);
    await page.mouse.move(at.x + at.width / 2, at.y + at.height / 2);
    if (await fieldHover.waitFor({ state: "visible", timeout: 10000 }).then(() => true, () => false)) break;
    if (attempt >= 3) fail('no hover on the field "total"');
  }
  const fieldText = (await fieldHover.innerText()).replace(/\s+/g, " ");
  if (/Flattened static|meta-schema/.test(fieldText)) fail(`the JSON meta-schema's title is on the hover: ${fieldText}`);
  ok(`language mode Eval Schema; the field's hover is the server's alone: ${fieldText.slice(0, 120)}`);
  await shot("1-field-hover.png");
  await page.mouse.move(10, 10);
  await page.keyboard.press("Control+S");

  // 2. An extracted file: the server's mismatch diagnostics in the Problems panel.
  const s2 = Date.now();
  const extracted = "invoices.model-b.extracted.jsonl";
  await openFile(extracted);
  await page.keyboard.press("Control+Shift+M");
  const panel = page.locator(".markers-panel");
  await panel.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  const fileRow = panel.locator(".monaco-list-row", { hasText: extracted }).first();
  await fileRow.waitFor({ timeout: STEP_TIMEOUT }).catch(() =>
    fail(`no diagnostics for ${extracted} in the Problems panel: the server publishes none for an opened extracted file`),
  );
  const markerRows = panel.locator(".monaco-list-row", { hasText: "evalschema" });
  await markerRows.first().waitFor({ timeout: STEP_TIMEOUT });
  const markers = (await markerRows.allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
  const badge = (await fileRow.innerText()).replace(/\s+/g, " ").trim();
  ok(`problems for ${extracted}: ${badge}`);
  for (const m of markers.slice(0, 5)) ok(`problem: ${m.slice(0, 200)}`);
  const groups = (await panel.locator('.monaco-list-row[aria-level="1"]').allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
  log(`Problems panel files: ${groups.join(" | ")}`);
  const editorSquiggles = page.locator(".editor-group-container.active .monaco-editor .squiggly-warning");
  const squiggles = await editorSquiggles.count();
  if (squiggles === 0) fail(`no squiggles in ${extracted}`);
  ok(`extracted-file squiggles on screen: ${squiggles} (${((Date.now() - s2) / 1000).toFixed(1)}s)`);
  await shot("2-extracted-problems.png");
  // model-b has more findings than VS Code lists per file (1,000): the server stays under that
  // limit, and the file's problems end with its summary (information, after the warnings), not
  // with VS Code's own "Not showing N further errors and warnings".
  const count = Number(/(\d[\d,]*)\s*$/.exec(badge)?.[1]?.replace(/,/g, "") ?? NaN);
  if (!(count > 0 && count <= 1000)) fail(`${extracted} has ${count} problems: not under VS Code's limit of 1,000`);
  const filter = page.locator('.part.panel input[placeholder^="Filter"]').first();
  await filter.fill("not shown");
  const summaryRow = panel.locator(".monaco-list-row", { hasText: /more findings in [\d,]+ records/ }).first();
  await summaryRow.waitFor({ timeout: STEP_TIMEOUT }).catch(() => fail(`no summary of the findings not shown in ${extracted}`));
  const summaryText = (await summaryRow.innerText()).replace(/\s+/g, " ").trim();
  ok(`summary of findings not shown (${count} problems): ${summaryText.slice(0, 200)}`);
  await shot("2-problems-summary.png");
  await filter.fill("Not showing");
  await page.waitForTimeout(1000);
  const vscodeNote = await panel.locator(".monaco-list-row", { hasText: /Not showing [\d,]+ further/ }).count();
  if (vscodeNote) fail(`VS Code dropped problems of ${extracted}: its "Not showing" row is there`);
  ok("no 'Not showing' row from VS Code: every finding is shown or counted");
  await filter.fill("");
  // The message inline, on hover of a squiggled value (the panel closed: it would cover them).
  await page.keyboard.press("Control+J"); // Toggle Panel Visibility, wherever the focus is
  await panel.waitFor({ state: "hidden", timeout: STEP_TIMEOUT });
  await page.waitForTimeout(500);
  const dataHover = page.locator(".monaco-hover:not(.hidden)", { hasText: "evalschema" }).first();
  let hovered = false;
  const rects = await editorSquiggles.evaluateAll((els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    }),
  );
  const boxes = rects.filter((b) => b.width >= 4 && b.y > 100 && b.y < 700 && b.x + b.width < 1300);
  // A mismatch inside a record rather than the omission marked at a record's start.
  boxes.sort((a, b) => (a.x > 500 ? 0 : 1) - (b.x > 500 ? 0 : 1) || a.y - b.y);
  log(`hover candidates: ${boxes.slice(0, 6).map((b) => `${Math.round(b.x)},${Math.round(b.y)}+${Math.round(b.width)}`).join(" ")}`);
  for (let i = 0; i < Math.min(boxes.length, 12) && !hovered; i++) {
    const tbox = boxes[i];
    await page.mouse.move(10, 10);
    await page.mouse.move(tbox.x + tbox.width / 2, tbox.y + tbox.height / 2, { steps: 4 });
    hovered = await dataHover.waitFor({ state: "visible", timeout: 4000 }).then(() => true, () => false);
  }
  if (!hovered) fail(`no diagnostic hover on the squiggles of ${extracted}`);
  ok(`hover in ${extracted}: ${(await dataHover.innerText()).replace(/\s+/g, " ").slice(0, 200)}`);
  await shot("2-extracted-hover.png");
  await page.mouse.move(10, 10);

  // 3. Evaluate suite from the palette: status-bar F1 and the results view.
  const s3 = Date.now();
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+B"); // hide the side bar: room for the results view
  if ((await page.locator(".webview").count()) !== 0) fail("a webview is open before Evaluate suite");
  await runCommand("evalschema: Evaluate suite");
  // The status bar names the run it shows (the active file's) and whether it passes.
  // Once the run is over ("(updating)" while it goes on).
  const status = page.locator(".statusbar-item", { hasText: /invoices · model-b F1 \d\.\d{3}( ✗ < 0\.85)?\s*$/ }).first();
  await status.waitFor({ timeout: 120000 });
  const statusText = (await status.innerText()).replace(/\s+/g, " ").trim();
  const statusF1 = /F1 (\d\.\d{3})/.exec(statusText)?.[1];
  if (!statusText.includes("✗ < 0.85")) fail(`the status bar does not say model-b fails fail_under = 0.85: ${statusText}`);
  ok(`status bar F1 ${statusF1} (${statusText})`);
  const webview = page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
  const rows = webview.locator("table.fields tbody tr[data-field]");
  await rows.first().waitFor({ timeout: STEP_TIMEOUT });
  const sections = await webview.locator("section.run").count();
  const runLabels = await webview.locator("section.run h2").allInnerTexts();
  ok(`results view: ${sections} run(s): ${runLabels.join(", ")}`);
  // The runs side by side: a column per run in the configuration's order, Δ against the first,
  // and each run's pass/fail badge against the configuration's fail_under.
  const side = webview.locator("section.side", { hasText: "model-b" }).first();
  const heads = (await side.locator("thead th").allInnerTexts()).map((t) => t.replace(/[▲▼]/g, "").trim());
  if (heads.join("|") !== "Field|model-a|model-b|Δ model-b") fail(`side-by-side columns: ${heads.join(" | ")}`);
  const sideRows = await side.locator("tbody tr[data-field]").count();
  const failBadge = ((await side.locator(".badge.fail").allInnerTexts())[0] ?? "").trim();
  if (!/^model-b \d\.\d{3} ✗ < 0\.85$/.test(failBadge)) fail(`model-b's fail badge: '${failBadge}'`);
  const passBadge = ((await side.locator(".badge.pass").allInnerTexts())[0] ?? "").trim();
  if (!/^model-a \d\.\d{3} ✓$/.test(passBadge)) fail(`model-a's pass badge: '${passBadge}'`);
  const deltas = await side.locator("tbody tr[data-field] td.delta").allInnerTexts();
  if (deltas.length !== sideRows || !deltas.every((d) => /^([+−]\d\.\d{3}|0\.000|—)$/.test(d.trim()))) fail(`Δ cells: ${deltas.join(" ")}`);
  ok(`side by side: ${heads.join(" | ")}; ${sideRows} fields; ${passBadge}; ${failBadge}; Δ ${deltas.slice(0, 3).join(" ")}`);
  const section = webview.locator("section.run", { hasText: "model-b" }).first();
  const summary = (await section.locator(".summary").innerText()).replace(/\s+/g, " ");
  const viewF1 = /F1 (\d\.\d{3})/.exec(summary)?.[1];
  ok(`results view ${extracted}: ${summary}`);
  if (viewF1 !== statusF1) fail(`status bar F1 ${statusF1} differs from the results view's ${viewF1} for ${extracted}`);
  const fieldRows = section.locator("table.fields tbody tr[data-field]");
  const n = await fieldRows.count();
  const f1s = [];
  for (let i = 0; i < n; i++) f1s.push(Number(await fieldRows.nth(i).getAttribute("data-f1")));
  if (!f1s.every((x, i) => i === 0 || (f1s[i - 1] ?? 0) <= x)) fail(`rows are not worst F1 first: ${f1s}`);
  const worstField = await fieldRows.first().getAttribute("data-field");
  ok(`results view rows: ${n}, worst first: ${worstField} F1 ${f1s[0]}`);
  await shot("3-results.png");
  // Sorting: F1 descending after a click on the F1 header.
  await section.locator('th button[data-sort="f1"]').click();
  const top = Number(await fieldRows.first().getAttribute("data-f1"));
  if (top !== Math.max(...f1s)) fail(`after sorting by F1 the first row has ${top}, not ${Math.max(...f1s)}`);
  ok("sorting by F1 toggles to best first");
  // A click on a field lists its findings in that run (record, path, why); moving through the
  // list shows each in the extracted file, Enter keeps it.
  // A field with wrong values: its findings are in the extracted file (a record missing from
  // the run has its omissions in the gold file).
  const clickable = section.locator('table.fields tbody tr.has-findings:not([data-mismatches="0"])').first();
  if ((await clickable.count()) === 0) fail("no field row lists findings");
  const clickedField = await clickable.getAttribute("data-field");
  await clickable.click();
  const pick = page.locator(".quick-input-widget", { hasText: `evalschema: ${clickedField}` });
  await pick.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  const items = pick.locator(".quick-input-list .monaco-list-row");
  await items.first().waitFor({ timeout: STEP_TIMEOUT });
  const first = (await items.first().innerText()).replace(/\s+/g, " ").trim();
  if (!/^INV-\d{4}-\d{5} · /.test(first)) fail(`the list of ${clickedField} does not start with a record id: ${first}`);
  await page.locator(".tab.active", { hasText: extracted }).waitFor({ timeout: STEP_TIMEOUT });
  ok(`clicking ${clickedField} listed its findings: ${first.slice(0, 120)}; ${extracted} shows the first`);
  await shot("3-field-findings.png");
  await page.keyboard.press("ArrowDown"); // the next finding previews...
  await page.keyboard.press("ArrowUp"); // ...and back to the first, which Enter keeps
  await page.keyboard.press("Enter");
  await pick.waitFor({ state: "hidden", timeout: STEP_TIMEOUT });
  await page.locator(".tab.active", { hasText: extracted }).waitFor({ timeout: STEP_TIMEOUT });
  ok(`clicking ${clickedField} opened ${extracted} (${((Date.now() - s3) / 1000).toFixed(1)}s)`);
  await shot("3-worst-example.png");

  // The Findings view: field → record → finding.
  await runCommand("evalschema: Refresh findings");
  await runCommand("Explorer: Focus on evalschema Findings View");
  const findingsView = page.locator(".pane", { hasText: "evalschema Findings" }).first();
  const treeRows = findingsView.locator(".monaco-list-row");
  await treeRows.first().waitFor({ timeout: STEP_TIMEOUT });
  const firstField = (await treeRows.first().innerText()).replace(/\s+/g, " ").trim();
  if (!/\d[\d,]* records? · \d+ (mismatch|omission|hallucination)/.test(firstField)) fail(`Findings view row: ${firstField}`);
  ok(`findings view: ${firstField}`);
  await shot("3-findings-view.png");

  // Compare two runs: every field with its F1 change, largest regressions first; names intact.
  await runCommand("evalschema: Compare two runs");
  const compareFrame = await frameWith("table.compare");
  const header = (await compareFrame.locator("table.compare tr").first().innerText()).replace(/\s+/g, " ");
  if (!/Field model-a model-b Δ model-b/.test(header)) fail(`compare header: ${header}`);
  const compareFields = await compareFrame.locator("table.compare tr[data-field]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-field")));
  if (compareFields.some((f) => f && f.includes(" "))) fail(`a field name lost its underscore: ${compareFields.join(", ")}`);
  if (!compareFields.includes("vendor.vat_id")) fail(`vendor.vat_id missing from the comparison: ${compareFields.join(", ")}`);
  const firstDelta = (await compareFrame.locator("table.compare tr[data-field] td.delta").first().innerText()).trim();
  if (!firstDelta.startsWith("−")) fail(`the first field of the comparison is not a regression: ${firstDelta}`);
  ok(`compare view: ${compareFields.length} fields, first ${compareFields[0]} ${firstDelta}`);
  await shot("3-compare.png");


  // 4. Untrusted: none of the workspace's code ran, though the server served steps 1-3.
  const ran = markersWritten();
  if (ran.length) fail(`code planted in the untrusted workspace ran: ${ran.join(", ")}`);
  ok("untrusted workspace: no planted code ran (evalschema_server/, lsprotocol.py, workspace_cmp.py, fake-python)");
  if (userJudgeRequests.length) fail(`untrusted, the judge asked the user's own endpoint ${userJudgeRequests.length} time(s)`);
  ok("untrusted workspace: the user's own judge endpoint was not asked");

  // 5. Trust the folder: the server restarts and imports the comparator module the workspace's
  // settings name; the interpreter and arguments it names are dropped first, so the server can
  // start (they are the workspace's to choose once trusted).
  writeFileSync(join(ws, ".vscode", "settings.json"), JSON.stringify({ "evalschema.comparatorModules": ["workspace_cmp.py"] }));
  await page.waitForTimeout(1500);
  await runCommand("Workspaces: Manage Workspace Trust");
  const trustButton = page.locator(".workspace-trust-editor .workspace-trust-buttons-row .monaco-button", { hasText: /^\s*Trust/ }).first();
  await trustButton.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  log(`trust button: ${(await trustButton.innerText()).replace(/\s+/g, " ")}`);
  await trustButton.click();
  await page.locator(".statusbar-item", { hasText: "Restricted Mode" }).first().waitFor({ state: "detached", timeout: STEP_TIMEOUT });
  ok("the folder is trusted (Restricted Mode is gone)");
  await shot("5-trusted.png");
  await waitFor("the trusted server to import workspace_cmp.py", () => markersWritten().includes("workspace_cmp"), 90000);
  const after = markersWritten().filter((m) => m !== "workspace_cmp");
  if (after.length) fail(`trusted, the server still must not import planted packages: ${after.join(", ")}`);
  ok("trusted workspace: the server restarted and imported workspace_cmp.py, and nothing else planted");
  await waitFor("the trusted server to ask the user's own judge endpoint", () => userJudgeRequests.length > 0, 90000);
  if (!userJudgeRequests.every((r) => r.key && r.url === "/v1/chat/completions")) fail(`the user's endpoint got ${JSON.stringify(userJudgeRequests)}`);
  ok("trusted workspace: the judge asked the user's own endpoint, with the key");

  // 6. Records as tests (after trust: VS Code asks to trust a folder before it runs any test).
  // Records as tests: the Test Explorer lists suites → runs → records; "Run All Tests" scores them
  // through the server; a failed record of model-b has one message per wrong field, located at
  // the extracted value, and the test peek shows its expected and actual in VS Code's diff.
  const s3t = Date.now();
  await runCommand("View: Close All Editors"); // one group again: the file, its peek and the explorer
  await openFile(extracted);
  await runCommand("View: Show Testing");
  const testView = page.locator(".pane", { hasText: "Test Explorer" }).first();
  const testRow = (name) => testView.locator(".monaco-list-row", { hasText: name }).first();
  await testRow("invoices").waitFor({ timeout: STEP_TIMEOUT });
  ok("test explorer lists the suite invoices");
  await runCommand("Test: Run All Tests");
  // A suite with an errored record shows errored, not failed: the failed records are in its
  // runs, shown once the suite and model-b are expanded (VS Code may keep them collapsed).
  await waitFor("a failed test in the Test Explorer", async () => {
    for (const name of ["invoices", "model-b"]) {
      const row = testRow(name);
      if ((await row.count()) && (await row.getAttribute("aria-expanded")) === "false") await row.click().catch(() => {});
    }
    return (await testView.locator(".monaco-list-row .codicon-testing-failed-icon").count()) > 0;
  }, 120000);
  const failedRecord = testView.locator(".monaco-list-row", { has: page.locator(".codicon-testing-failed-icon"), hasText: /INV-\d{4}-\d{5}/ }).first();
  await failedRecord.waitFor({ timeout: STEP_TIMEOUT });
  const failedLabel = /INV-\d{4}-\d{5}/.exec(await failedRecord.innerText())?.[0];
  ok(`test explorer: failed record of model-b: ${failedLabel}`);
  // The test peek at its first message: the message, then the expected/actual diff.
  await failedRecord.click();
  await runCommand("Test: Go to Next Test Failure");
  const peek = page.locator(".test-output-peek").first();
  await peek.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  const diff = peek.locator(".monaco-diff-editor").first();
  await diff.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  const peekText = (await peek.innerText()).replace(/\s+/g, " ").trim();
  if (!/≠ gold|missing|invented/.test(peekText)) fail(`the test peek does not show a field's message: ${peekText.slice(0, 300)}`);
  ok(`test peek with the expected/actual diff (${((Date.now() - s3t) / 1000).toFixed(1)}s): ${peekText.slice(0, 160)}`);
  await shot("6-test-explorer.png");
  await page.keyboard.press("Escape");

  // 7. Fixing gold from a finding: on each finding of one record of model-b, the quick fix
  // "Accept extracted value as gold" edits the gold file (the editor applies it, unsaved); saved,
  // the suite runs again, and that record's test then passes.
  const s7 = Date.now();
  const fixRecord = env.EVALSCHEMA_E2E_FIX_RECORD;
  // line:column:path of each finding, the column one character inside its diagnostic
  const fixPlaces = (env.EVALSCHEMA_E2E_FIX_PLACES || "").split(";").filter(Boolean).map((p) => p.split(":"));
  if (!fixRecord || !fixPlaces.length) fail("EVALSCHEMA_E2E_FIX_* are not set (tests/e2e/test_vscode.py sets them)");
  await runCommand("View: Close All Editors");
  await openFile(extracted);
  for (const [line, column, path] of fixPlaces) {
    await runCommand("Go to Line/Column...");
    await page.keyboard.type(`${line}:${column}`);
    await page.keyboard.press("Enter");
    // Offered once the results are of the gold text as it is now (after the last save's run).
    const p = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const accept = await quickFix(new RegExp(`Accept extracted value as gold: (${p} =|add ${p} =|remove ${p} from gold)`));
    const title = (await accept.innerText()).replace(/\s+/g, " ").trim();
    ok(`quick fix on ${fixRecord} ${path}: ${title.slice(0, 120)}`);
    if (path === fixPlaces[0][2]) await shot("7-accept-as-gold.png");
    await accept.click();
    const goldTab = page.locator(".tab.dirty", { hasText: "invoices.gold.jsonl" });
    await goldTab.waitFor({ timeout: STEP_TIMEOUT }).catch(() => fail("the gold file was not edited (no unsaved gold tab)"));
    await runCommand("File: Save All Files");
    await goldTab.waitFor({ state: "detached", timeout: STEP_TIMEOUT });
  }
  await runCommand("View: Show Testing");
  // The Test Explorer's filter is an editor, not an input: click it and type.
  const testFilter = page.locator(".testing-filter-action-item").first();
  if (await testFilter.count()) await testFilter.click();
  else await page.getByText("Filter (e.g. text, !exclude, @tag)").first().click();
  await page.keyboard.type(fixRecord);
  await runCommand("Test: Run All Tests");
  const passedRecord = testView.locator(".monaco-list-row", { has: page.locator(".codicon-testing-passed-icon"), hasText: fixRecord }).first();
  await waitFor(`${fixRecord} passing in the Test Explorer`, async () => {
    for (const name of ["invoices", "model-b"]) {
      const row = testRow(name);
      if ((await row.count()) && (await row.getAttribute("aria-expanded")) === "false") await row.click().catch(() => {});
    }
    return (await passedRecord.count()) > 0;
  }, 120000);
  ok(`record ${fixRecord} of model-b passes once its gold is accepted and saved (${((Date.now() - s7) / 1000).toFixed(1)}s)`);
  await shot("7-record-passes.png");

  // 8. Suspect gold: both runs agree against a gold value; the gold file says so where it is.
  await runCommand("View: Close All Editors");
  await openFile("invoices.gold.jsonl");
  const suspectRows = await problemsMatching("runs say");
  await suspectRows.first().waitFor({ timeout: STEP_TIMEOUT }).catch(() => fail("no suspect-gold diagnostic in the gold file"));
  const suspectText = (await suspectRows.first().innerText()).replace(/\s+/g, " ").trim();
  if (!/2 of 2 runs say .+; gold (says .+|has no value)/.test(suspectText)) fail(`suspect gold: ${suspectText}`);
  await suspectRows.first().click(); // the gold value, selected in the editor
  ok(`suspect gold in the gold file: ${suspectText.slice(0, 160)}`);
  await shot("8-suspect-gold.png");

  await schemaTypo();

  ok(`scenario passed in ${elapsed()}`);
}

/** Last, so that the rest is checked even where the judge still follows schema endpoints. */
function checkJudgeListener() {
  if (judgeRequests.length) {
    const withKey = judgeRequests.filter((r) => r.key).length;
    fail(`the judge endpoint named in leak.eval.json got ${judgeRequests.length} request(s), ${withKey} with the API key: ${judgeRequests.map((r) => `${r.method} ${r.url}`).join(", ")}`);
  }
  ok("judge listener named by a schema got no request");
}

let exitCode = 0;
try {
  await main();
  checkJudgeListener();
} catch (e) {
  exitCode = 1;
  console.log(`FAIL ${e instanceof Failure ? e.message : (e?.stack ?? e)}`);
  if (page) await shot("failure.png").catch(() => undefined);
  // The extension's and server's log, for the reason.
  for (const f of filesUnder(join(userData, "logs")).filter((f) => /evalschema/i.test(f.slice(userData.length)))) {
    const text = readFileSync(f, "utf8");
    console.log(`--- ${f} (last 60 lines)\n${text.split("\n").slice(-60).join("\n")}`);
  }
} finally {
  await browser?.close().catch(() => undefined);
  for (const server of judgeServers) server.close();
  killCodeServer();
  await new Promise((r) => setTimeout(r, 300));
  if (csProc?.exitCode === null) {
    try {
      process.kill(-csProc.pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  if (exitCode !== 0 && existsSync(serverLog)) console.log(`--- code-server log\n${readFileSync(serverLog, "utf8").slice(-4000)}`);
  if (!keep) rmSync(tmp, { recursive: true, force: true });
  else log(`kept ${tmp}`);
}
process.exit(exitCode);
