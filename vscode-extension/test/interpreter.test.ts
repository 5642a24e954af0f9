import assert from "node:assert/strict";
import { test } from "node:test";
import {
  IMPORT_CHECK_ARGS,
  describeCheckFailure,
  expandVariables,
  pipCommand,
  resolveInterpreter,
  serverCommand,
} from "../src/interpreter";

const base = { home: "/home/ada", platform: "linux", workspaceFolder: "/work/proj" };

test("the setting wins over the Python extension and PATH", () => {
  const i = resolveInterpreter({ ...base, setting: "${workspaceFolder}/.venv/bin/python", pythonExtension: "/usr/bin/python3.12" });
  assert.deepEqual(i, { path: "/work/proj/.venv/bin/python", source: "setting" });
});

test("the Python extension's interpreter is used when the setting is empty", () => {
  const i = resolveInterpreter({ ...base, setting: "  ", pythonExtension: "/opt/conda/bin/python" });
  assert.deepEqual(i, { path: "/opt/conda/bin/python", source: "python-extension" });
});

test("python3 on PATH is the last resort (python on Windows)", () => {
  assert.deepEqual(resolveInterpreter({ ...base, setting: "", pythonExtension: undefined }), { path: "python3", source: "path" });
  assert.deepEqual(resolveInterpreter({ ...base, setting: "", pythonExtension: "", platform: "win32" }), { path: "python", source: "path" });
});

test("variables and ~ expand; an unknown variable stays visible", () => {
  assert.equal(expandVariables("~/venvs/e/bin/python", base), "/home/ada/venvs/e/bin/python");
  assert.equal(expandVariables("${userHome}/py", base), "/home/ada/py");
  assert.equal(expandVariables("${env:PYHOME}/bin/python", { ...base, env: { PYHOME: "/opt/py" } }), "/opt/py/bin/python");
  assert.equal(expandVariables("${workspaceFolder}/py", { home: "/h" }), "${workspaceFolder}/py");
  assert.equal(expandVariables("a~b", base), "a~b");
});

test("the server runs as python -m evalschema_server with extra arguments after", () => {
  assert.deepEqual(serverCommand({ path: "/p/python", source: "setting" }, ["--log-level", "debug"]), {
    command: "/p/python",
    args: ["-m", "evalschema_server", "--log-level", "debug"],
  });
  assert.deepEqual([...IMPORT_CHECK_ARGS], ["-c", "import evalschema_server"]);
});

test("a missing module is reported with the pip command for that interpreter", () => {
  const p = describeCheckFailure(
    { path: "/work/proj/.venv/bin/python", source: "setting" },
    { exitCode: 1, stderr: "Traceback (most recent call last):\n  File \"<string>\", line 1\nModuleNotFoundError: No module named 'evalschema_server'\n" },
  );
  assert.equal(p.fix, "/work/proj/.venv/bin/python -m pip install 'evalschema[server]'");
  assert.match(p.message, /not installed for \/work\/proj\/\.venv\/bin\/python \(the evalschema\.interpreter setting\)/);
  assert.ok(p.message.includes(p.fix ?? "?"));
  assert.doesNotMatch(p.message, /Traceback/, "the notification never carries a stack trace");
  assert.match(p.detail, /Traceback/, "the log keeps the details");
});

test("an interpreter that does not exist says so, without a pip command", () => {
  const p = describeCheckFailure({ path: "/nope/python", source: "python-extension" }, { errorCode: "ENOENT" });
  assert.equal(p.fix, undefined);
  assert.match(p.message, /cannot run the Python interpreter \/nope\/python \(the Python extension's selected interpreter\)/);
});

test("another import failure shows its last line and the reinstall command", () => {
  const p = describeCheckFailure({ path: "python3", source: "path" }, { exitCode: 1, stderr: "Traceback...\nImportError: cannot import name 'x' from 'pygls'\n" });
  assert.match(p.message, /ImportError: cannot import name 'x' from 'pygls'/);
  assert.equal(p.fix, "python3 -m pip install 'evalschema[server]'");
  assert.match(describeCheckFailure({ path: "python3", source: "path" }, { timedOut: true }).message, /took too long/);
});

test("paths with spaces are quoted in the pip command", () => {
  assert.equal(pipCommand({ path: "/Users/A B/py", source: "setting" }), "\"/Users/A B/py\" -m pip install 'evalschema[server]'");
});
