// Turning a failure into what the user sees: one sentence in a notification, or a line in the
// log when the user has already been told; the details (stack) go to the log. Pure, so it is
// unit-tested.

export interface ErrorLike {
  message?: unknown;
  code?: unknown;
}

/** An error whose message is meant for the user as it is. */
export class UserError extends Error {}

/** A failure the user has already been told about. */
export class SilentError extends UserError {}

const METHOD_NOT_FOUND = -32601;

/** The message of anything thrown. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** What the log gets of anything thrown: its stack when there is one. */
export function detailOf(e: unknown): string {
  return e instanceof Error ? (e.stack ?? e.message) : String(e);
}

export function describeCommandError(what: string, err: unknown): string {
  const e = (typeof err === "object" && err !== null ? err : {}) as ErrorLike;
  const message = typeof e.message === "string" ? e.message : String(err);
  if (e.code === METHOD_NOT_FOUND || /not (found|registered|supported)|unknown command/i.test(message)) {
    return `evalschema: ${what} is not supported by this language server; update it (pip install -U 'evalschema[server]').`;
  }
  if (/Client is not running|not running|Connection got disposed|Pending response rejected/i.test(message)) {
    return `evalschema: the language server is not running, so ${what} cannot run. See "evalschema: Show server log", or run "evalschema: Restart server".`;
  }
  const firstLine = message.split(/\r?\n/)[0]?.trim() || "unknown error";
  return `evalschema: ${what} failed: ${firstLine}`;
}

/** How a failed command is reported: a log line, a notification, or both. */
export interface FailureReport {
  log?: { level: "warn" | "error"; text: string };
  /** The error notification, when the user has not been told yet. */
  notify?: string;
}

/**
 * A command's failure, never a raw stack trace in a notification: a SilentError only goes to
 * the log (its notification was shown already), a UserError is shown as it is, anything else is
 * logged with its stack and shown as one sentence pointing at the log.
 */
export function reportFailure(title: string, e: unknown): FailureReport {
  if (e instanceof SilentError) return { log: { level: "warn", text: `${title}: ${e.message}` } };
  if (e instanceof UserError) return { notify: e.message };
  return {
    log: { level: "error", text: `${title}: ${detailOf(e)}` },
    notify: `evalschema: ${title} failed: ${messageOf(e)}. See "evalschema: Show server log".`,
  };
}
