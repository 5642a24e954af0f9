import assert from "node:assert/strict";
import { test } from "node:test";
import {
  IMPORT_CHECK_ARGS,
  SERVER_ARGS,
  checkFailureOf,
  describeCheckFailure,
  expandVariables,
  launchEnv,
  pipCommand,
  pythonExtensionInterpreter,
  resolveInterpreter,
  serverCommand,
  startFailureProblem,
  untrustedInterpreterProblem,
  type PythonEnvironments,
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

test("the server runs as python -P -m evalschema_server (the workspace never on sys.path), extra arguments after", () => {
  assert.deepEqual(serverCommand({ path: "/p/python", source: "setting" }, ["--log-level", "debug"]), {
    command: "/p/python",
    args: ["-P", "-m", "evalschema_server", "--log-level", "debug"],
  });
  assert.deepEqual([...SERVER_ARGS], ["-P", "-m", "evalschema_server"]);
  assert.deepEqual([...IMPORT_CHECK_ARGS], ["-P", "-c", "import evalschema_server"]);
});

test("a Python older than 3.11 (no -P) is named as such", () => {
  const p = describeCheckFailure({ path: "/usr/bin/python3.10", source: "path" }, { exitCode: 2, stderr: "Unknown option: -P\nusage: /usr/bin/python3.10 [option] ...\n" });
  assert.match(p.message, /older than Python 3\.11/);
  assert.equal(p.fix, undefined);
});

test("untrusted: an interpreter inside the workspace is refused, whatever chose it", () => {
  const folders = ["/work/proj"];
  const inside = { path: "/work/proj/.venv/bin/python", source: "python-extension" as const };
  const p = untrustedInterpreterProblem(inside, folders, false, "linux");
  assert.ok(p);
  assert.match(p.message, /inside this workspace, which is not trusted/);
  assert.match(p.message, /Manage Workspace Trust/);
  assert.equal(untrustedInterpreterProblem(inside, folders, true, "linux"), undefined, "trusted: allowed");
  assert.ok(untrustedInterpreterProblem({ path: ".venv/bin/python", source: "setting" }, folders, false, "linux"), "relative: resolves in the workspace");
  assert.ok(untrustedInterpreterProblem({ path: "/work/proj", source: "setting" }, folders, false, "linux"));
  assert.equal(untrustedInterpreterProblem({ path: "/work/project2/bin/python", source: "setting" }, folders, false, "linux"), undefined);
  assert.equal(untrustedInterpreterProblem({ path: "/usr/bin/python3", source: "setting" }, folders, false, "linux"), undefined);
  assert.equal(untrustedInterpreterProblem({ path: "python3", source: "path" }, folders, false, "linux"), undefined, "a PATH lookup");
  assert.ok(untrustedInterpreterProblem({ path: "C:\\Work\\Proj\\venv\\python.exe", source: "setting" }, ["c:\\work\\proj"], false, "win32"));
  // ${workspaceFolder} in a user setting expands into the workspace: refused too.
  const expanded = resolveInterpreter({ ...base, setting: "${workspaceFolder}/.venv/bin/python" });
  assert.ok(untrustedInterpreterProblem(expanded, [base.workspaceFolder], false, "linux"));
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

test("PYTHONPATH loses empty and relative entries (they mean the workspace); the rest is kept", () => {
  assert.deepEqual(launchEnv({ PYTHONPATH: ":/opt/lib::./x:lib", HOME: "/h" }, "linux"), { PYTHONPATH: "/opt/lib", HOME: "/h", PYTHONUNBUFFERED: "1" });
  assert.equal("PYTHONPATH" in launchEnv({ PYTHONPATH: ":" }, "linux"), false);
  assert.equal("PYTHONPATH" in launchEnv({}, "linux"), false);
  assert.equal(launchEnv({ PYTHONPATH: "C:\\libs;;.;D:\\more" }, "win32").PYTHONPATH, "C:\\libs;D:\\more");
});

test("the import check's error becomes the failure described to the user", () => {
  const py = { path: "/nope/python", source: "setting" as const };
  assert.equal(checkFailureOf(null, "a warning on stderr"), undefined, "it passed");
  const missing = checkFailureOf(Object.assign(new Error("spawn /nope/python ENOENT"), { code: "ENOENT" }), "");
  assert.deepEqual(missing, { errorCode: "ENOENT", exitCode: null, stderr: "", timedOut: false });
  assert.match(describeCheckFailure(py, missing ?? {}).message, /cannot run the Python interpreter/);
  const exited = checkFailureOf(Object.assign(new Error("Command failed"), { code: 1, killed: false }), "ModuleNotFoundError: No module named 'evalschema_server'\n");
  assert.deepEqual(exited, { errorCode: undefined, exitCode: 1, stderr: "ModuleNotFoundError: No module named 'evalschema_server'\n", timedOut: false });
  assert.match(describeCheckFailure(py, exited ?? {}).message, /not installed/);
  const killed = checkFailureOf(Object.assign(new Error("Command failed"), { code: null, killed: true }), "");
  assert.deepEqual(killed, { errorCode: undefined, exitCode: null, stderr: "", timedOut: true });
  assert.match(describeCheckFailure(py, killed ?? {}).message, /took too long/);
});

test("a server that does not start says with which interpreter, the error goes to the log", () => {
  const p = startFailureProblem({ path: "/venv/bin/python", source: "setting" }, new Error("Server initialization failed.\nat x"));
  assert.equal(p.message, 'evalschema: the language server did not start with /venv/bin/python. See "evalschema: Show server log".');
  assert.equal(p.detail, "Error: Server initialization failed.\nat x");
  assert.equal(p.fix, undefined);
});

test("the Python extension's interpreter: its resolved executable, else the path it reports; nothing when it fails", async () => {
  const folder = { fsPath: "/work/proj" };
  const asked: unknown[] = [];
  const envs = (path: string | undefined, executable: string | undefined): PythonEnvironments<typeof folder> => ({
    getActiveEnvironmentPath: (resource) => {
      asked.push(resource);
      return path === undefined ? undefined : { path };
    },
    resolveEnvironment: (env) => Promise.resolve({ executable: { uri: executable === undefined ? undefined : { fsPath: executable } }, env }),
  });
  assert.equal(await pythonExtensionInterpreter(envs("/work/proj/.venv", "/work/proj/.venv/bin/python"), folder), "/work/proj/.venv/bin/python");
  assert.equal(asked[0], folder, "asked for the workspace folder");
  assert.equal(await pythonExtensionInterpreter(envs("/usr/bin/python3", undefined), folder), "/usr/bin/python3", "unresolved: the reported path");
  assert.equal(await pythonExtensionInterpreter({ getActiveEnvironmentPath: () => ({ path: "/opt/py" }) }, folder), "/opt/py", "an older API without resolveEnvironment");
  assert.equal(await pythonExtensionInterpreter(envs("", "/x"), folder), undefined, "no environment selected");
  assert.equal(await pythonExtensionInterpreter(envs(undefined, "/x"), folder), undefined);
  assert.equal(await pythonExtensionInterpreter({}, folder), undefined);
  assert.equal(await pythonExtensionInterpreter(undefined, folder), undefined, "no Python extension");
  const throwing: PythonEnvironments<typeof folder> = {
    getActiveEnvironmentPath: () => {
      throw new Error("not ready");
    },
  };
  assert.equal(await pythonExtensionInterpreter(throwing, folder), undefined);
  const rejecting: PythonEnvironments<typeof folder> = { getActiveEnvironmentPath: () => ({ path: "/p" }), resolveEnvironment: () => Promise.reject(new Error("x")) };
  assert.equal(await pythonExtensionInterpreter(rejecting, folder), undefined, "a failing API means PATH, not a crash");
});
