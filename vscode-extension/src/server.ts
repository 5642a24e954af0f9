// Starting, stopping and talking to the language server (vscode-languageclient over stdio),
// after resolving the interpreter and checking that `evalschema_server` imports there.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  State,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import { JSON_VALIDATED_PATTERNS, dropDuplicates, labelsOfferedByJson } from "./completion";
import { describeCommandError } from "./errors";
import {
  IMPORT_CHECK_ARGS,
  describeCheckFailure,
  describeSource,
  launchEnv,
  resolveInterpreter,
  serverCommand,
  untrustedInterpreterProblem,
  type CheckFailure,
  type Interpreter,
  type Problem,
} from "./interpreter";
import { Notifications, type RunFinishedParams, type RunStartedParams } from "./protocol";
import {
  matchesPattern,
  readSettings,
  restartNeeded,
  serverSettings,
  trustedGetter,
  type ServerSettings,
  type Settings,
} from "./settings";

export function currentSettings(): Settings {
  const cfg = vscode.workspace.getConfiguration("evalschema", vscode.workspace.workspaceFolders?.[0]?.uri);
  return readSettings(
    trustedGetter(
      (key) => cfg.get(key),
      (key) => cfg.inspect(key),
      vscode.workspace.isTrusted,
    ),
    (key) => cfg.inspect(key)?.globalValue,
  );
}

/** The settings the server reads, with whether the workspace is trusted (then custom code may be imported). */
function currentServerSettings(): ServerSettings {
  return serverSettings(currentSettings(), vscode.workspace.isTrusted);
}

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath?: (resource?: vscode.Uri) => { path: string } | undefined;
    resolveEnvironment?: (env: { path: string } | string) => Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

async function pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
  if (!ext) return undefined;
  try {
    return ext.isActive ? ext.exports : await ext.activate();
  } catch {
    return undefined;
  }
}

async function pythonExtensionInterpreter(api: PythonExtensionApi | undefined, folder: vscode.Uri | undefined): Promise<string | undefined> {
  const envs = api?.environments;
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

function checkImport(interpreter: Interpreter, cwd: string | undefined): Promise<CheckFailure | undefined> {
  return new Promise((resolve) => {
    const env = launchEnv(process.env, process.platform);
    execFile(interpreter.path, [...IMPORT_CHECK_ARGS], { timeout: 30000, cwd, env, windowsHide: true }, (error, _stdout, stderr) => {
      if (!error) {
        resolve(undefined);
        return;
      }
      const err = error as NodeJS.ErrnoException & { killed?: boolean; code?: string | number };
      resolve({
        errorCode: typeof err.code === "string" ? err.code : undefined,
        exitCode: typeof err.code === "number" ? err.code : null,
        stderr,
        timedOut: err.killed === true,
      });
    });
  });
}

export class ServerManager implements vscode.Disposable {
  client: LanguageClient | undefined;
  interpreter: Interpreter | undefined;
  /** Why the server is not running, when it is not. */
  problem: Problem | undefined;
  /** Handles a server command run from the editor (a code lens) instead of sending it as is. */
  interceptor: ((command: string, args: unknown[]) => Promise<unknown> | undefined) | undefined;
  private settings: Settings;
  private readonly disposables: vscode.Disposable[] = [];
  private clientDisposables: vscode.Disposable[] = [];
  private starting: Promise<void> | undefined;
  private readonly offered: Set<string>;
  private readonly startedEmitter = new vscode.EventEmitter<void>();
  readonly onDidStart = this.startedEmitter.event;
  private readonly runStartedEmitter = new vscode.EventEmitter<RunStartedParams>();
  readonly onRunStarted = this.runStartedEmitter.event;
  private readonly runFinishedEmitter = new vscode.EventEmitter<RunFinishedParams>();
  readonly onRunFinished = this.runFinishedEmitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.LogOutputChannel,
  ) {
    this.settings = currentSettings();
    this.offered = this.loadOfferedLabels();
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration("evalschema")) return;
        const next = currentSettings();
        const restart = restartNeeded(this.settings, next);
        this.settings = next;
        if (restart) {
          this.output.info("interpreter settings changed: restarting the server");
          void this.restart();
        }
      }),
    );
    this.disposables.push(
      // Trusting the workspace lets its settings choose the interpreter, the server's arguments
      // and comparator modules, and lets the server import them: start again with those.
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.output.info("the workspace is now trusted: restarting the server");
        void this.restart();
      }),
    );
    void pythonExtensionApi().then((api) => {
      const event = api?.environments?.onDidChangeActiveEnvironmentPath;
      if (event) {
        this.disposables.push(
          event(() => {
            if (!this.settings.interpreter) {
              this.output.info("the Python extension's interpreter changed: restarting the server");
              void this.restart();
            }
          }),
        );
      }
    });
  }

  private loadOfferedLabels(): Set<string> {
    try {
      const file = path.join(this.context.extensionPath, "dist", "eval-schema.schema.json");
      return labelsOfferedByJson(JSON.parse(fs.readFileSync(file, "utf8")));
    } catch (e) {
      this.output.warn(`could not read the meta-schema: ${String(e)}`);
      return new Set();
    }
  }

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const settings = (this.settings = currentSettings());
    const api = settings.interpreter ? undefined : await pythonExtensionApi();
    const interpreter = resolveInterpreter({
      setting: settings.interpreter,
      pythonExtension: await pythonExtensionInterpreter(api, folder?.uri),
      workspaceFolder: folder?.uri.fsPath,
      home: os.homedir(),
      platform: process.platform,
    });
    this.interpreter = interpreter;
    this.output.info(`interpreter: ${interpreter.path} (${describeSource(interpreter.source)})`);
    const trusted = vscode.workspace.isTrusted;
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    const refused = untrustedInterpreterProblem(interpreter, folders, trusted, process.platform);
    if (refused) {
      this.problem = refused;
      this.output.error(refused.message);
      void this.showProblem(refused);
      return;
    }
    if (!trusted) this.output.info("the workspace is not trusted: its settings for the interpreter, server arguments and comparator modules are ignored, and no custom code is imported");
    const failure = await checkImport(interpreter, folder?.uri.fsPath);
    if (failure) {
      this.problem = describeCheckFailure(interpreter, failure);
      this.output.error(this.problem.message);
      if (this.problem.detail) this.output.error(this.problem.detail);
      void this.showProblem(this.problem);
      return;
    }
    this.problem = undefined;
    const cmd = serverCommand(interpreter, settings.serverArgs);
    const serverOptions: ServerOptions = {
      command: cmd.command,
      args: cmd.args,
      options: { cwd: folder?.uri.fsPath, env: launchEnv(process.env, process.platform) },
    };
    const valueKinds = new Set<number>([vscode.CompletionItemKind.Value, vscode.CompletionItemKind.EnumMember]);
    const offered = this.offered;
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "json" },
        { scheme: "file", language: "jsonc" },
        { scheme: "file", language: "jsonl" },
        { scheme: "untitled", language: "json" },
        { scheme: "untitled", language: "jsonc" },
        { scheme: "file", pattern: "**/evalschema.toml" },
        { scheme: "file", pattern: "**/*.jsonl" },
      ],
      outputChannel: this.output,
      traceOutputChannel: this.output,
      initializationOptions: serverSettings(settings, trusted),
      synchronize: {
        fileEvents: [
          vscode.workspace.createFileSystemWatcher("**/evalschema.toml"),
          vscode.workspace.createFileSystemWatcher("**/pyproject.toml"),
        ],
      },
      middleware: {
        provideCompletionItem: async (document, position, context, token, next) => {
          const result = await next(document, position, context, token);
          if (!result || !matchesPattern(document.fileName, JSON_VALIDATED_PATTERNS)) return result;
          if (Array.isArray(result)) return dropDuplicates(result, offered, valueKinds);
          result.items = dropDuplicates(result.items, offered, valueKinds);
          return result;
        },
        executeCommand: (command, args, next) => {
          const handled = this.interceptor?.(command, args);
          if (handled) return handled;
          return next(command, args) as Promise<unknown>;
        },
        workspace: {
          configuration: async (params, token, next) => {
            const results: unknown = await next(params, token);
            if (!Array.isArray(results)) return results as never;
            const values: unknown[] = results;
            const s = currentServerSettings();
            return params.items.map((item, i): unknown => (item.section === "evalschema" ? s : values[i]));
          },
        },
      },
    };
    const client = new LanguageClient("evalschema", "evalschema", serverOptions, clientOptions);
    this.clientDisposables.push(
      client.onNotification(Notifications.runStarted, (p: RunStartedParams) => {
        this.runStartedEmitter.fire(p);
      }),
      client.onNotification(Notifications.runFinished, (p: RunFinishedParams) => {
        this.runFinishedEmitter.fire(p);
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("evalschema") && client.state === State.Running) {
          void client.sendNotification("workspace/didChangeConfiguration", { settings: { evalschema: currentServerSettings() } });
        }
      }),
    );
    this.client = client;
    try {
      await client.start();
      this.output.info(`server started: ${cmd.command} ${cmd.args.join(" ")}`);
      this.startedEmitter.fire();
    } catch (e) {
      this.problem = {
        message: `evalschema: the language server did not start with ${interpreter.path}. See "evalschema: Show server log".`,
        detail: String(e),
      };
      this.output.error(`${this.problem.message}\n${String(e)}`);
      void this.showProblem(this.problem);
    }
  }

  private async showProblem(problem: Problem): Promise<void> {
    const actions = problem.fix ? ["Copy pip command", "Open settings", "Show log"] : ["Open settings", "Show log"];
    const choice = await vscode.window.showErrorMessage(problem.message, ...actions);
    if (choice === "Copy pip command" && problem.fix) {
      await vscode.env.clipboard.writeText(problem.fix);
    } else if (choice === "Open settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", "evalschema.interpreter");
    } else if (choice === "Show log") {
      this.output.show();
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    for (const d of this.clientDisposables) d.dispose();
    this.clientDisposables = [];
    if (client) {
      try {
        await client.stop(5000);
      } catch (e) {
        this.output.warn(`stopping the server: ${String(e)}`);
      }
    }
  }

  async restart(): Promise<void> {
    await this.starting;
    await this.stop();
    await this.start();
  }

  /** Runs a server command (workspace/executeCommand with one argument object). */
  async execute(command: string, arg: object, what: string): Promise<unknown> {
    if (!this.running) await this.start();
    const client = this.client;
    if (!client || client.state !== State.Running) {
      // A start that failed has just said why in its own notification.
      if (this.problem) throw new SilentError(this.problem.message);
      throw new UserError(`evalschema: the language server is not running, so ${what} cannot run.`);
    }
    try {
      return await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] });
    } catch (e) {
      this.output.error(`${command} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      throw new UserError(describeCommandError(what, e));
    }
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables) d.dispose();
    this.startedEmitter.dispose();
    this.runStartedEmitter.dispose();
    this.runFinishedEmitter.dispose();
  }
}

/** An error whose message is meant for the user as it is. */
export class UserError extends Error {}

/** A failure the user has already been told about. */
export class SilentError extends UserError {}
