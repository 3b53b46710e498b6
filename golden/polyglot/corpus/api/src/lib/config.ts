export interface ApiConfig {
  port: number;
  databaseUrl: string;
  redisUrl: string;
  jwtSecret: string;
  pricingServiceUrl: string;
  shutdownGraceMs: number;
  maxCartItems: number;
}

function required(env: NodeJS.ProcessEnv, key: string): string {
  const value = env[key];
  if (value === undefined || value === "") {
    throw new Error(`missing required environment variable ${key}`);
  }
  return value;
}

function intOr(env: NodeJS.ProcessEnv, key: string, fallback: number): number {
  const raw = env[key];
  if (raw === undefined) return fallback;
  const parsed = Number.parseInt(raw, 10);
  if (Number.isNaN(parsed)) {
    throw new Error(`${key} must be an integer, got "${raw}"`);
  }
  return parsed;
}

/** Reads API settings from environment variables, failing fast on anything missing. */
export function loadConfig(env: NodeJS.ProcessEnv): ApiConfig {
  return {
    port: intOr(env, "PORT", 8080),
    databaseUrl: required(env, "DATABASE_URL"),
    redisUrl: env.REDIS_URL ?? "redis://localhost:6379",
    jwtSecret: required(env, "JWT_SECRET"),
    pricingServiceUrl: env.PRICING_URL ?? "http://pricing:7000",
    shutdownGraceMs: intOr(env, "SHUTDOWN_GRACE_MS", 10_000),
    maxCartItems: intOr(env, "MAX_CART_ITEMS", 50),
  };
}
