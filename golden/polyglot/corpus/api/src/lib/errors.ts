/**
 * Error types shared by all API handlers. Anything thrown that is not an
 * ApiError becomes a 500 in the central error handler.
 */
export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    public readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export class ValidationError extends ApiError {
  constructor(public readonly fieldErrors: Record<string, string>) {
    super(422, "validation_failed", "Request body failed validation", { fields: fieldErrors });
  }
}

export class NotFoundError extends ApiError {
  constructor(resource: string, id: string) {
    super(404, "not_found", `${resource} ${id} does not exist`);
  }
}

export class ConflictError extends ApiError {
  constructor(message: string) {
    super(409, "conflict", message);
  }
}

/** True for errors worth retrying: network resets, timeouts and 5xx from upstreams. */
export function isTransient(err: unknown): boolean {
  if (err instanceof ApiError) {
    return err.status >= 500;
  }
  const code = (err as { code?: string } | undefined)?.code;
  return code === "ECONNRESET" || code === "ETIMEDOUT" || code === "EAI_AGAIN";
}
