/**
 * The channel kit's HTTP call to a platform API: fetch with a deadline, and a failure as a PlatformApiError that
 * carries the HTTP status, the platform's own code and, without an answer, whether the request may have arrived.
 * Errors never carry the URL or headers: they may hold an access token.
 */
export class PlatformApiError<C extends string | number = string | number> extends Error {
  constructor(
    message: string,
    /** The platform's own error code, when the answer had one. */
    readonly code: C | null,
    /** null: no answer at all (network error, timeout). */
    readonly httpStatus: number | null,
    /** Without an answer: the request may have reached the platform (it was not refused before sending). */
    readonly uncertain = false,
    cause?: unknown,
  ) {
    super(message, cause !== undefined ? { cause } : {});
  }
}

/** fetch with a deadline; without an answer, throws a PlatformApiError named `what` (e.g. "POST /gettoken"). */
export async function platformFetch(url: string | URL, init: RequestInit, what: string, timeoutMs: number): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    // A refused connection never carried the request; any other failure may have.
    const refused = (err as { cause?: { code?: string } }).cause?.code === "ECONNREFUSED";
    throw new PlatformApiError(`${what}: ${(err as Error).message}`, null, null, !refused, err);
  }
}

/** The JSON object of an answer; {} when the body is not one. */
export async function jsonObjectOf(response: Response): Promise<Record<string, unknown>> {
  const body = (await response.json().catch(() => null)) as unknown;
  return body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
