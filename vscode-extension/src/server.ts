// Starting, stopping and talking to the language server (vscode-languageclient over stdio),
// after resolving the interpreter and checking that `evalschema_server` imports there. The
// rules (when to restart, what to tell the user) are in src/lifecycle.ts, src/interpreter.ts
// and src/settings.ts; this is the VS Code side.
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
import { filterCompletions, labelsOfferedByJson } from "./completion";
import { EVAL_SCHEMA_LANGUAGE } from "./format";
import { UserError, describeCommandError, detailOf } from "./errors";
import {
  IMPORT_CHECK_ARGS,
  checkFailureOf,
  describeCheckFailure,
  describeSource,
  launchEnv,
  pythonExtensionInterpreter,
  resolveInterpreter,
  serverCommand,
  startFailureProblem,
  untrustedInterpreterProblem,
  type CheckFailure,
  type Interpreter,
  type Problem,
  type PythonEnvironments,
} from "./interpreter";
import { Lifecycle, RESTART_MESSAGES, notRunningError, problemActions, problemEffect, pythonExtensionRestart, settingsRestart } from "./lifecycle";
import { Notifications, type RunFinishedParams, type RunStartedParams } from "./protocol";
import {
  configurationAnswer,
  readSettings,
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
  environments?: PythonEnvironments<vscode.Uri> & {
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

function checkImport(interpreter: Interpreter, cwd: string | undefined): Promise<CheckFailure | undefined> {
  return new Promise((resolve) => {
    const env = launchEnv(process.env, process.platform);
    execFile(interpreter.path, [...IMPORT_CHECK_ARGS], { timeout: 30000, cwd, env, windowsHide: true }, (error, _stdout, stderr) => {
      resolve(checkFailureOf(error, stderr));
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
  private readonly lifecycle = new Lifecycle({
    launch: () => this.doStart(),
    shutdown: () => this.stop(),
    isRunning: () => this.running,
  });
  private readonly offered: Set<string>;
  private readonly startedEmitter = new vscode.EventEmitter<void>();
  readonly onDidStart = this.startedEmitter.event;
  private readonly runStartedEmitter = new vscode.EventEmitter<RunStartedParams>();
  readonly onRunStarted = this.runStartedEmitter.event;
  private readonly runFinishedEmitter = new vscode.EventEmitter<RunFinishedParams>();
  readonly onRunFinished = this.runFinishedEmitter.event;
  private readonly suitesChangedEmitter = new vscode.EventEmitter<void>();
  /** Suites were found again and some are new, changed or gone. */
  readonly onSuitesChanged = this.suitesChangedEmitter.event;

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
        const reason = settingsRestart(this.settings, next);
        this.settings = next;
        if (reason) {
          this.output.info(reason);
          void this.restart();
        }
      }),
    );
    this.disposables.push(
      // Trusting the workspace lets its settings choose the interpreter, the server's arguments
      // and comparator modules, and lets the server import them: start again with those.
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.output.info(RESTART_MESSAGES.trust);
        void this.restart();
      }),
    );
    void pythonExtensionApi().then((api) => {
      const event = api?.environments?.onDidChangeActiveEnvironmentPath;
      if (event) {
        this.disposables.push(
          event(() => {
            const reason = pythonExtensionRestart(this.settings);
            if (reason) {
              this.output.info(reason);
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
    return this.lifecycle.start();
  }

  private async doStart(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const settings = (this.settings = currentSettings());
    const api = settings.interpreter ? undefined : await pythonExtensionApi();
    const interpreter = resolveInterpreter({
      setting: settings.interpreter,
      pythonExtension: await pythonExtensionInterpreter(api?.environments, folder?.uri),
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
    const keywordKinds = new Set<number>([vscode.CompletionItemKind.Keyword]); // the server's JSON Schema keywords
    const offered = this.offered;
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: EVAL_SCHEMA_LANGUAGE },
        { scheme: "file", language: "json" },
        { scheme: "file", language: "jsonc" },
        { scheme: "file", language: "jsonl" },
        { scheme: "untitled", language: EVAL_SCHEMA_LANGUAGE },
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
        provideCompletionItem: async (document, position, context, token, next) =>
          filterCompletions(await next(document, position, context, token), document, offered, valueKinds, keywordKinds),
        executeCommand: (command, args, next) => {
          const handled = this.interceptor?.(command, args);
          if (handled) return handled;
          return next(command, args) as Promise<unknown>;
        },
        workspace: {
          configuration: async (params, token, next) => {
            const results: unknown = await next(params, token);
            if (!Array.isArray(results)) return results as never;
            return configurationAnswer(params.items, results, currentServerSettings());
          },
        },
      },
    };
    const client = new LanguageClient("evalschema", "evalschema", serverOptions, clientOptions);
    this.clientDisposables.push(
      client.onNotification(Notifications.runQueued, (p: RunStartedParams) => {
        this.runStartedEmitter.fire(p);
      }),
      client.onNotification(Notifications.runStarted, (p: RunStartedParams) => {
        this.runStartedEmitter.fire(p);
      }),
      client.onNotification(Notifications.runFinished, (p: RunFinishedParams) => {
        this.runFinishedEmitter.fire(p);
      }),
      client.onNotification(Notifications.suitesChanged, () => {
        this.suitesChangedEmitter.fire();
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
      this.problem = startFailureProblem(interpreter, e);
      this.output.error(`${this.problem.message}\n${this.problem.detail}`);
      void this.showProblem(this.problem);
    }
  }

  private async showProblem(problem: Problem): Promise<void> {
    const effect = problemEffect(problem, await vscode.window.showErrorMessage(problem.message, ...problemActions(problem)));
    if (effect?.kind === "copy") {
      await vscode.env.clipboard.writeText(effect.text);
    } else if (effect?.kind === "settings") {
      await vscode.commands.executeCommand("workbench.action.openSettings", effect.query);
    } else if (effect?.kind === "log") {
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

  restart(): Promise<void> {
    return this.lifecycle.restart();
  }

  /** Runs a server command (workspace/executeCommand with one argument object); `token` cancels the request ($/cancelRequest). */
  async execute(command: string, arg: object, what: string, token?: vscode.CancellationToken): Promise<unknown> {
    await this.lifecycle.ensureStarted();
    const client = this.client;
    if (!client || client.state !== State.Running) throw notRunningError(this.problem, what);
    try {
      return await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] }, token);
    } catch (e) {
      if (token?.isCancellationRequested) throw e;
      this.output.error(`${command} failed: ${detailOf(e)}`);
      throw new UserError(describeCommandError(what, e));
    }
  }

  dispose(): void {
    void this.stop();
    for (const d of this.disposables) d.dispose();
    this.startedEmitter.dispose();
    this.runStartedEmitter.dispose();
    this.runFinishedEmitter.dispose();
    this.suitesChangedEmitter.dispose();
  }
}
