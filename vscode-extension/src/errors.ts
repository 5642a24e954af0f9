// Turning a failed server request into one sentence for the user (details go to the log).

export interface ErrorLike {
  message?: unknown;
  code?: unknown;
}

const METHOD_NOT_FOUND = -32601;

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
