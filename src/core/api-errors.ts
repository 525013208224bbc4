/**
 * The kinds of error the browser pages show from the server, each with the names of the values its English
 * message carries. The server sends the code and those values beside the message (`{ error, message, ...values }`
 * from the console's API, `{ type: "error", code, message, ...values }` on WebChat's socket); a page shows its own
 * catalog's `errors.server.<code>` with the values, and the English message for a code it does not know. Both the
 * gateway and the pages' bundles import this, so it imports nothing.
 */

/** What the console's API answers with: its routes, the features' console routes, and the HTTP server's own. */
export const CONSOLE_ERRORS = {
  unauthorized: [],
  forbidden: [],
  not_found: ["method", "path"],
  internal_error: ["errorId"],
  bad_request: [],
  session_not_found: ["session"],
  malformed: [],
  unknown: [],
  locked: [],
  pairing_not_found: [],
  archive_too_large: ["mb"],
  archive_missing: [],
  bad_archive: ["name"],
  install_failed: ["detail"],
  rules_missing: [],
  invalid_input: ["detail"],
  invalid_query: ["detail"],
  scheduler_off: [],
  task_not_found: ["id"],
  task_refused: ["detail"],
  approval_not_found: ["id"],
  already_decided: ["id", "status"],
  mcp_server_not_found: ["server"],
  login_failed: ["detail"],
} as const satisfies ErrorTable;

/** What WebChat's socket answers a frame with. */
export const WEBCHAT_ERRORS = {
  bad_json: [],
  bad_frame: [],
  unknown_type: [],
  hello_required: [],
  text_too_long: ["length", "max"],
  unavailable: [],
  internal_error: ["errorId"],
} as const satisfies ErrorTable;

/** Each code with the names of its values. */
export type ErrorTable = Readonly<Record<string, readonly string[]>>;

type ErrorOf<Table extends ErrorTable> = {
  [Code in keyof Table & string]: { code: Code } & { [Name in Table[Code][number]]: string | number };
}[keyof Table & string];

/** A console API error: its code and the values its message carries. */
export type ConsoleError = ErrorOf<typeof CONSOLE_ERRORS>;
export type WebChatError = ErrorOf<typeof WEBCHAT_ERRORS>;

/** The names of the values an error of `code` carries, or null when `code` is not one of `table`'s. */
export function errorValueNames(table: ErrorTable, code: unknown): readonly string[] | null {
  // hasOwnProperty, not `in`: "constructor" is no code.
  return typeof code === "string" && Object.prototype.hasOwnProperty.call(table, code) ? table[code]! : null;
}
