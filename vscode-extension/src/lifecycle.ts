// When the language server starts, stops and restarts, and what the user is told when it does
// not run. Pure (no VS Code): src/server.ts supplies the launch and the shutdown, so these rules
// are unit-tested.
import { SilentError, UserError } from "./errors";
import type { Problem } from "./interpreter";
import { restartNeeded, type Settings } from "./settings";

/** What the lifecycle drives: src/server.ts's ServerManager. */
export interface ServerProcess {
  /** Starts the server; a failure is told to the user by the launch itself, which then resolves. */
  launch(): Promise<void>;
  /** Stops the server if it runs. */
  shutdown(): Promise<void>;
  isRunning(): boolean;
}

export class Lifecycle {
  private starting: Promise<void> | undefined;

  constructor(private readonly server: ServerProcess) {}

  /** One start at a time: a start asked for while one is under way joins it. */
  start(): Promise<void> {
    this.starting ??= this.server.launch().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Lets a start under way finish, then stops the server and starts it again. */
  async restart(): Promise<void> {
    await this.starting;
    await this.server.shutdown();
    await this.start();
  }

  /** Before a command: starts the server when it does not run (it may have stopped or never started). */
  async ensureStarted(): Promise<void> {
    if (!this.server.isRunning()) await this.start();
  }
}

export const RESTART_MESSAGES = {
  settings: "interpreter settings changed: restarting the server",
  trust: "the workspace is now trusted: restarting the server",
  pythonExtension: "the Python extension's interpreter changed: restarting the server",
} as const;

/** Why a change of the settings restarts the server (logged), or undefined: the rest is sent live. */
export function settingsRestart(before: Settings, after: Settings): string | undefined {
  return restartNeeded(before, after) ? RESTART_MESSAGES.settings : undefined;
}

/** The Python extension's interpreter counts only when evalschema.interpreter is empty. */
export function pythonExtensionRestart(settings: Settings): string | undefined {
  return settings.interpreter ? undefined : RESTART_MESSAGES.pythonExtension;
}

/** A command asked of a server that does not run. */
export function notRunningError(problem: Problem | undefined, what: string): UserError {
  // A start that failed has just said why in its own notification.
  if (problem) return new SilentError(problem.message);
  return new UserError(`evalschema: the language server is not running, so ${what} cannot run.`);
}

export const PROBLEM_ACTIONS = { copy: "Copy pip command", settings: "Open settings", log: "Show log" } as const;
export type ProblemAction = (typeof PROBLEM_ACTIONS)[keyof typeof PROBLEM_ACTIONS];

/** The buttons of the notification that says why the server did not start. */
export function problemActions(problem: Problem): ProblemAction[] {
  return problem.fix ? [PROBLEM_ACTIONS.copy, PROBLEM_ACTIONS.settings, PROBLEM_ACTIONS.log] : [PROBLEM_ACTIONS.settings, PROBLEM_ACTIONS.log];
}

export type ProblemEffect = { kind: "copy"; text: string } | { kind: "settings"; query: string } | { kind: "log" };

/** What the button the user chose does (undefined: dismissed). */
export function problemEffect(problem: Problem, choice: string | undefined): ProblemEffect | undefined {
  if (choice === PROBLEM_ACTIONS.copy && problem.fix) return { kind: "copy", text: problem.fix };
  if (choice === PROBLEM_ACTIONS.settings) return { kind: "settings", query: "evalschema.interpreter" };
  if (choice === PROBLEM_ACTIONS.log) return { kind: "log" };
  return undefined;
}
