import { isTransient } from "./errors";

export interface RetryOptions {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Called before each sleep, handy for logging. */
  onRetry?: (attempt: number, delayMs: number, err: unknown) => void;
}

const DEFAULTS: RetryOptions = { attempts: 4, baseDelayMs: 200, maxDelayMs: 5_000 };

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Computes the delay before the next attempt using exponential backoff with
 * "full jitter": a random value between 0 and base * 2^attempt, capped.
 */
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
  return Math.floor(Math.random() * ceiling);
}

/**
 * Runs `fn` until it succeeds or the attempts are exhausted. Only transient
 * failures (timeouts, connection resets, 5xx) are retried; validation and
 * 4xx errors are rethrown immediately.
 */
export async function withRetry<T>(fn: () => Promise<T>, opts: Partial<RetryOptions> = {}): Promise<T> {
  const options = { ...DEFAULTS, ...opts };
  let lastError: unknown;
  for (let attempt = 0; attempt < options.attempts; attempt++) {
    try {
      return await fn();
    } catch (err) {
      lastError = err;
      if (!isTransient(err) || attempt === options.attempts - 1) {
        throw err;
      }
      const delay = backoffDelay(attempt, options.baseDelayMs, options.maxDelayMs);
      options.onRetry?.(attempt + 1, delay, err);
      await sleep(delay);
    }
  }
  throw lastError;
}
