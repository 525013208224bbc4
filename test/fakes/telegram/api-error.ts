/** A Bot API refusal: the fake answers it as `{ok:false, error_code, description}` with that HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
  ) {
    super(description);
  }
}
