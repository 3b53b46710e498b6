import express, { NextFunction, Request, Response } from "express";
import pino from "pino";
import { requireAuth } from "./middleware/auth";
import { requestLogger } from "./middleware/requestLogger";
import { cartRouter } from "./handlers/cart";
import { ordersRouter } from "./handlers/orders";
import { ApiError } from "./lib/errors";
import { loadConfig } from "./lib/config";

const logger = pino({ name: "pagebound-api" });

/**
 * Builds the express application with all routers and middleware attached.
 * Kept separate from `start()` so integration tests can mount it without
 * binding a port.
 */
export function buildApp() {
  const app = express();
  app.disable("x-powered-by");
  app.use(express.json({ limit: "256kb" }));
  app.use(requestLogger(logger));

  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok", uptime: process.uptime() });
  });

  app.use("/v1/cart", requireAuth, cartRouter);
  app.use("/v1/orders", requireAuth, ordersRouter);

  app.use((_req, res) => {
    res.status(404).json({ error: "not_found" });
  });

  // Central error handler: ApiError carries its own status code, everything
  // else is treated as an unexpected 500 and logged with the stack.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof ApiError) {
      res.status(err.status).json({ error: err.code, message: err.message, details: err.details });
      return;
    }
    logger.error({ err, path: req.path }, "unhandled error");
    res.status(500).json({ error: "internal_error" });
  });

  return app;
}

export async function start(): Promise<void> {
  const config = loadConfig(process.env);
  const app = buildApp();
  const server = app.listen(config.port, () => {
    logger.info({ port: config.port }, "api listening");
  });

  // Drain in-flight requests before exiting so Kubernetes rollouts don't drop orders.
  const shutdown = (signal: string) => {
    logger.info({ signal }, "shutting down");
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(1), config.shutdownGraceMs).unref();
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

if (require.main === module) {
  start().catch((err) => {
    logger.fatal({ err }, "failed to start");
    process.exit(1);
  });
}
