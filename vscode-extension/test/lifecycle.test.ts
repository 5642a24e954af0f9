import assert from "node:assert/strict";
import { test } from "node:test";
import { SilentError, UserError, reportFailure } from "../src/errors";
import type { Problem } from "../src/interpreter";
import { Lifecycle, PROBLEM_ACTIONS, RESTART_MESSAGES, notRunningError, problemActions, problemEffect, pythonExtensionRestart, settingsRestart } from "../src/lifecycle";
import { readSettings } from "../src/settings";

/** A server whose launches and shutdowns finish when the test says, logging each step. */
class FakeServer {
  readonly log: string[] = [];
  running = false;
  private pending: Array<() => void> = [];
  failNext = false;

  launch = (): Promise<void> => {
    const n = this.log.filter((l) => l.startsWith("launch")).length + 1;
    this.log.push(`launch ${n}`);
    return new Promise<void>((resolve, reject) => {
      this.pending.push(() => {
        this.log.push(`started ${n}`);
        if (this.failNext) {
          this.failNext = false;
          reject(new Error("boom"));
          return;
        }
        this.running = true;
        resolve();
      });
    });
  };

  shutdown = (): Promise<void> => {
    this.log.push("stop");
    this.running = false;
    return Promise.resolve();
  };

  isRunning = (): boolean => this.running;

  /** Lets the oldest launch finish; waits for what it triggers. */
  async finishLaunch(): Promise<void> {
    const next = this.pending.shift();
    assert.ok(next, "a launch is under way");
    next();
    await settle();
  }

  /** Lets the oldest launch finish, then waits for what waited on it. */
  async complete(waiting: Promise<unknown>): Promise<void> {
    await this.finishLaunch();
    await waiting;
  }
}

function fresh(): [FakeServer, Lifecycle] {
  const server = new FakeServer();
  return [server, new Lifecycle(server)];
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

test("a start asked for while one is under way joins it; once it is done the next start launches again", async () => {
  const [server, life] = fresh();
  const a = life.start();
  const b = life.start();
  assert.equal(a, b, "the same start");
  await server.complete(Promise.all([a, b]));
  assert.deepEqual(server.log, ["launch 1", "started 1"]);
  server.running = false;
  await server.complete(life.start());
  assert.deepEqual(server.log, ["launch 1", "started 1", "launch 2", "started 2"]);
});

test("a launch that throws does not block the next start", async () => {
  const [server, life] = fresh();
  server.failNext = true;
  const a = life.start();
  await server.complete(assert.rejects(a, /boom/));
  await server.complete(life.start());
  assert.deepEqual(server.log, ["launch 1", "started 1", "launch 2", "started 2"]);
});

test("a restart lets a start under way finish, then stops and starts once more", async () => {
  const [server, life] = fresh();
  const first = life.start();
  const restarted = life.restart();
  await settle();
  assert.deepEqual(server.log, ["launch 1"], "no stop while the first start runs");
  await server.complete(first);
  assert.deepEqual(server.log, ["launch 1", "started 1", "stop", "launch 2"]);
  await server.complete(restarted);
  assert.equal(server.running, true);
  const again = life.restart();
  await settle();
  assert.deepEqual(server.log.slice(5), ["stop", "launch 3"], "with no start under way it stops at once");
  await server.complete(again);
});

test("a command starts the server only when it does not run", async () => {
  const [server, life] = fresh();
  const ready = life.ensureStarted();
  await server.complete(ready);
  await life.ensureStarted();
  assert.deepEqual(server.log, ["launch 1", "started 1"], "running: no second launch");
  server.running = false;
  const again = life.ensureStarted();
  const joined = life.ensureStarted();
  await server.complete(Promise.all([again, joined]));
  assert.deepEqual(server.log, ["launch 1", "started 1", "launch 2", "started 2"], "two commands at once share one start");
});

test("only the interpreter and the server's arguments restart the server; other settings are sent live", () => {
  const base = readSettings(() => undefined);
  const with_ = (values: Record<string, unknown>) => readSettings((k) => values[k]);
  assert.equal(settingsRestart(base, with_({ interpreter: "/venv/bin/python" })), RESTART_MESSAGES.settings);
  assert.equal(settingsRestart(with_({ serverArgs: ["-v"] }), with_({ serverArgs: ["-v", "-q"] })), RESTART_MESSAGES.settings);
  assert.equal(settingsRestart(with_({ serverArgs: ["a b"] }), with_({ serverArgs: ["a", "b"] })), RESTART_MESSAGES.settings, "arguments compared as a list");
  assert.equal(settingsRestart(base, with_({ comparatorModules: ["m"], runOn: "change", severity: { omission: "off" }, debounceMs: 5 })), undefined);
  assert.equal(settingsRestart(with_({ interpreter: "/p", serverArgs: ["-v"] }), with_({ interpreter: " /p ", serverArgs: ["-v"] })), undefined, "the same once trimmed");
});

test("the Python extension's interpreter change restarts the server only when evalschema.interpreter is empty", () => {
  assert.equal(pythonExtensionRestart(readSettings(() => undefined)), RESTART_MESSAGES.pythonExtension);
  assert.equal(pythonExtensionRestart(readSettings((k) => (k === "interpreter" ? "   " : undefined))), RESTART_MESSAGES.pythonExtension, "blank is empty");
  assert.equal(pythonExtensionRestart(readSettings((k) => (k === "interpreter" ? "/venv/bin/python" : undefined))), undefined);
});

test("a command while the server does not run: logged only when its start failure was already shown", () => {
  const problem: Problem = { message: "evalschema: cannot run the Python interpreter /nope.", detail: "ENOENT: /nope" };
  const told = notRunningError(problem, "Evaluate suite");
  assert.ok(told instanceof SilentError);
  assert.equal(told.message, problem.message);
  const fresh = notRunningError(undefined, "Evaluate suite");
  assert.ok(fresh instanceof UserError && !(fresh instanceof SilentError));
  assert.equal(fresh.message, "evalschema: the language server is not running, so Evaluate suite cannot run.");
});

test("a start problem offers the pip command only when there is one, and each button does its own thing", () => {
  const fixable: Problem = { message: "not installed", fix: "/p -m pip install 'evalschema[server]'", detail: "" };
  const other: Problem = { message: "too old", detail: "" };
  assert.deepEqual(problemActions(fixable), ["Copy pip command", "Open settings", "Show log"]);
  assert.deepEqual(problemActions(other), ["Open settings", "Show log"]);
  assert.deepEqual(problemEffect(fixable, PROBLEM_ACTIONS.copy), { kind: "copy", text: "/p -m pip install 'evalschema[server]'" });
  assert.equal(problemEffect(other, PROBLEM_ACTIONS.copy), undefined);
  for (const p of [fixable, other]) {
    assert.deepEqual(problemEffect(p, PROBLEM_ACTIONS.settings), { kind: "settings", query: "evalschema.interpreter" });
    assert.deepEqual(problemEffect(p, PROBLEM_ACTIONS.log), { kind: "log" });
    assert.equal(problemEffect(p, undefined), undefined, "dismissed");
  }
});

test("a failed command: a silent error is only logged, a user error shown as it is, anything else logged with its stack and shown in one sentence", () => {
  assert.deepEqual(reportFailure("Evaluate suite", new SilentError("already told")), { log: { level: "warn", text: "Evaluate suite: already told" } });
  assert.deepEqual(reportFailure("Evaluate suite", new UserError("evalschema: no suites found.")), { notify: "evalschema: no suites found." });
  const bug = new TypeError("x is undefined");
  const r = reportFailure("Show report", bug);
  assert.equal(r.notify, 'evalschema: Show report failed: x is undefined. See "evalschema: Show server log".');
  assert.equal(r.log?.level, "error");
  assert.ok(r.log?.text.startsWith("Show report: TypeError: x is undefined\n"), "the stack goes to the log");
  assert.doesNotMatch(r.notify, /\n|at /, "no stack in the notification");
  assert.deepEqual(reportFailure("Clear results", "plain"), {
    log: { level: "error", text: "Clear results: plain" },
    notify: 'evalschema: Clear results failed: plain. See "evalschema: Show server log".',
  });
});
