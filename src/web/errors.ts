/** The web engine's refusals and failures, each with a code the tool surface maps to a ToolError. */
export type WebErrorCode = "invalid_url" | "refused" | "unsupported_type" | "http_status" | "timeout" | "network" | "not_configured";

export class WebError extends Error {
  constructor(
    message: string,
    readonly code: WebErrorCode,
  ) {
    super(message);
    this.name = "WebError";
  }
}
