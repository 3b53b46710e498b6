import { randomUUID } from "crypto";
import { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";

/**
 * Assigns every request a correlation id (or reuses X-Request-Id from the
 * load balancer), echoes it back, and logs method, path, status and latency
 * once the response has finished.
 */
export function requestLogger(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const requestId = req.header("x-request-id") ?? randomUUID();
    const started = process.hrtime.bigint();
    res.setHeader("x-request-id", requestId);

    res.on("finish", () => {
      const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        {
          requestId,
          method: req.method,
          path: req.originalUrl,
          status: res.statusCode,
          elapsedMs: Math.round(elapsedMs * 10) / 10,
          user: req.user?.sub,
        },
        "request completed",
      );
    });
    next();
  };
}
