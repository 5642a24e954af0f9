// Which Python runs the language server, and what to tell the user when it cannot.
// Pure functions: the VS Code and child-process parts live in server.ts.
import * as nodePath from "node:path";
import launch from "./launch.json";

export type InterpreterSource = "setting" | "python-extension" | "path";

export interface Interpreter {
  path: string;
  source: InterpreterSource;
}

export interface InterpreterInputs {
  /** The `evalschema.interpreter` setting, as written. */
  setting: string;
  /** The Python extension's active interpreter for the workspace, when that extension is there. */
  pythonExtension?: string | undefined;
  workspaceFolder?: string | undefined;
  home: string;
  platform: string;
}

/** Expands `${workspaceFolder}`, `${userHome}`, `${env:NAME}` and a leading `~`. */
export function expandVariables(
  value: string,
  ctx: { workspaceFolder?: string | undefined; home: string; env?: Record<string, string | undefined> },
): string {
  let out = value.trim();
  if (out === "~" || out.startsWith("~/") || out.startsWith("~\\")) {
    out = ctx.home + out.slice(1);
  }
  return out.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (whole, name: string, envName?: string) => {
    if (name === "workspaceFolder") return ctx.workspaceFolder ?? whole;
    if (name === "userHome") return ctx.home;
    return (envName && ctx.env?.[envName]) ?? "";
  });
}

/** The setting if set, else the Python extension's interpreter, else python3 (python on Windows). */
export function resolveInterpreter(inputs: InterpreterInputs): Interpreter {
  const setting = expandVariables(inputs.setting, { workspaceFolder: inputs.workspaceFolder, home: inputs.home });
  if (setting) return { path: setting, source: "setting" };
  const fromExtension = inputs.pythonExtension?.trim();
  if (fromExtension) return { path: fromExtension, source: "python-extension" };
  return { path: inputs.platform === "win32" ? "python" : "python3", source: "path" };
}

export interface ServerCommand {
  command: string;
  args: string[];
}

/**
 * `-P -m evalschema_server` (src/launch.json): the server runs with the workspace as its working
 * folder, and -P keeps that folder off sys.path, so nothing planted there is imported.
 */
export const SERVER_ARGS: readonly string[] = launch.server;

export function serverCommand(interpreter: Interpreter, extraArgs: readonly string[] = []): ServerCommand {
  return { command: interpreter.path, args: [...SERVER_ARGS, ...extraArgs] };
}

/** The arguments that check, quickly, that the server can be imported (also with -P). */
export const IMPORT_CHECK_ARGS: readonly string[] = launch.importCheck;

/**
 * The environment Python runs in: the extension's, with PYTHONPATH stripped of empty and relative
 * entries. An empty entry (`PYTHONPATH=":/opt/lib"`, a common slip) means the working folder, the
 * workspace, and -P does not remove it.
 */
export function launchEnv(env: Readonly<Record<string, string | undefined>>, platform: string): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = { ...env, PYTHONUNBUFFERED: "1" };
  const raw = env.PYTHONPATH;
  if (raw !== undefined) {
    const p = platform === "win32" ? nodePath.win32 : nodePath.posix;
    const kept = raw.split(p.delimiter).filter((entry) => entry !== "" && p.isAbsolute(entry));
    if (kept.length) out.PYTHONPATH = kept.join(p.delimiter);
    else delete out.PYTHONPATH;
  }
  return out;
}

/** Whether `file` is inside one of `folders`; a relative path with a folder part counts (it resolves from the workspace). */
export function insideFolders(file: string, folders: readonly string[], platform: string): boolean {
  const p = platform === "win32" ? nodePath.win32 : nodePath.posix;
  if (!p.isAbsolute(file)) return /[\\/]/.test(file);
  const norm = (x: string): string => (platform === "win32" ? p.resolve(x).toLowerCase() : p.resolve(x));
  const target = norm(file);
  return folders.some((folder) => {
    const rel = p.relative(norm(folder), target);
    return rel === "" || (!rel.startsWith("..") && !p.isAbsolute(rel));
  });
}

/**
 * In an untrusted workspace the server is not started with a program of that workspace (a
 * `.venv/bin/python` it ships may be anything), whichever setting or extension chose it.
 */
export function untrustedInterpreterProblem(
  interpreter: Interpreter,
  folders: readonly string[],
  trusted: boolean,
  platform: string,
): Problem | undefined {
  if (trusted || !insideFolders(interpreter.path, folders, platform)) return undefined;
  return {
    message: `evalschema: the interpreter ${interpreter.path} (${describeSource(interpreter.source)}) is inside this workspace, which is not trusted, so the language server is not started with it. Trust the workspace (Workspaces: Manage Workspace Trust), or set "evalschema.interpreter" in your user settings to a Python outside it.`,
    detail: `untrusted workspace; interpreter inside it: ${interpreter.path}`,
  };
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, "\\$1")}"`;
}

export function pipCommand(interpreter: Interpreter): string {
  return `${shellQuote(interpreter.path)} -m pip install 'evalschema[server]'`;
}

export function describeSource(source: InterpreterSource): string {
  switch (source) {
    case "setting":
      return "the evalschema.interpreter setting";
    case "python-extension":
      return "the Python extension's selected interpreter";
    case "path":
      return "python3 on PATH";
  }
}

export interface CheckFailure {
  /** spawn error code (ENOENT when the interpreter does not exist), if it did not start. */
  errorCode?: string | undefined;
  exitCode?: number | null | undefined;
  stderr?: string | undefined;
  timedOut?: boolean | undefined;
}

export interface Problem {
  /** One short sentence for the notification. */
  message: string;
  /** The command that fixes it, when there is one. */
  fix?: string;
  /** The details for the output channel. */
  detail: string;
}

/** What went wrong when `python -P -c "import evalschema_server"` failed, in the user's words. */
export function describeCheckFailure(interpreter: Interpreter, failure: CheckFailure): Problem {
  const where = `${interpreter.path} (${describeSource(interpreter.source)})`;
  const detail = (failure.stderr ?? "").trim();
  if (failure.errorCode === "ENOENT" || failure.errorCode === "EACCES") {
    return {
      message: `evalschema: cannot run the Python interpreter ${where}. Set "evalschema.interpreter" to a Python 3.11+ that has evalschema installed.`,
      detail: `${failure.errorCode}: ${interpreter.path}`,
    };
  }
  if (failure.timedOut) {
    return {
      message: `evalschema: ${where} took too long to import evalschema_server.`,
      detail,
    };
  }
  if (/Unknown option:? -P|unknown option -P/i.test(detail)) {
    return {
      message: `evalschema: ${where} is older than Python 3.11 (it does not know -P). Set "evalschema.interpreter" to a Python 3.11+ that has evalschema installed.`,
      detail,
    };
  }
  const lastLine = detail.split(/\r?\n/).filter((l) => l.trim()).pop() ?? "";
  const missing = /ModuleNotFoundError|No module named/.test(detail) || detail === "";
  if (missing) {
    return {
      message: `evalschema: the language server is not installed for ${where}. Install it with: ${pipCommand(interpreter)}`,
      fix: pipCommand(interpreter),
      detail,
    };
  }
  return {
    message: `evalschema: importing the language server with ${where} failed (${lastLine}). Reinstall it with: ${pipCommand(interpreter)}`,
    fix: pipCommand(interpreter),
    detail,
  };
}

/** The error `execFile` gives when the import check fails, as far as it is read here. */
export interface ExecError {
  /** A spawn error's code (a string: ENOENT) or the exit code (a number). */
  code?: unknown;
  /** Set when the check was killed at its timeout. */
  killed?: boolean | undefined;
}

/** The import check's outcome: undefined when it passed. */
export function checkFailureOf(error: ExecError | null, stderr: string): CheckFailure | undefined {
  if (!error) return undefined;
  return {
    errorCode: typeof error.code === "string" ? error.code : undefined,
    exitCode: typeof error.code === "number" ? error.code : null,
    stderr,
    timedOut: error.killed === true,
  };
}

/** The import check passed but the language client could not start the server. */
export function startFailureProblem(interpreter: Interpreter, error: unknown): Problem {
  return {
    message: `evalschema: the language server did not start with ${interpreter.path}. See "evalschema: Show server log".`,
    detail: String(error),
  };
}

/** The part of the Python extension's API read here; `R` is VS Code's Uri. */
export interface PythonEnvironments<R> {
  getActiveEnvironmentPath?: (resource?: R) => { path: string } | undefined;
  resolveEnvironment?: (env: { path: string } | string) => Promise<{ executable?: { uri?: { fsPath: string } | undefined } | undefined } | undefined>;
}

/**
 * The interpreter the Python extension has selected for the folder: its resolved executable,
 * else the path it reports; undefined when it has none or its API fails (then PATH is used).
 */
export async function pythonExtensionInterpreter<R>(envs: PythonEnvironments<R> | undefined, folder: R | undefined): Promise<string | undefined> {
  if (!envs?.getActiveEnvironmentPath) return undefined;
  try {
    const active = envs.getActiveEnvironmentPath(folder);
    if (!active?.path) return undefined;
    const resolved = envs.resolveEnvironment ? await envs.resolveEnvironment(active) : undefined;
    return resolved?.executable?.uri?.fsPath ?? active.path;
  } catch {
    return undefined;
  }
}
