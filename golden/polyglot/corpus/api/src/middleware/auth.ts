import { NextFunction, Request, Response } from "express";
import jwt from "jsonwebtoken";

export interface AuthClaims {
  sub: string;
  email: string;
  roles: string[];
}

declare module "express-serve-static-core" {
  interface Request {
    user?: AuthClaims;
  }
}

function bearerToken(req: Request): string | null {
  const header = req.header("authorization");
  if (!header) return null;
  const [scheme, token] = header.split(" ");
  if (scheme?.toLowerCase() !== "bearer" || !token) return null;
  return token;
}

/**
 * Rejects requests without a valid JWT in the Authorization header and
 * attaches the decoded claims to `req.user` for downstream handlers.
 */
export function requireAuth(req: Request, res: Response, next: NextFunction): void {
  const token = bearerToken(req);
  if (!token) {
    res.status(401).json({ error: "missing_token" });
    return;
  }
  try {
    const claims = jwt.verify(token, process.env.JWT_SECRET ?? "", {
      algorithms: ["HS256"],
      clockTolerance: 30,
    }) as AuthClaims;
    req.user = claims;
    next();
  } catch (err) {
    const expired = err instanceof jwt.TokenExpiredError;
    res.status(401).json({ error: expired ? "token_expired" : "invalid_token" });
  }
}

/** Route guard for staff-only endpoints such as manual refunds. */
export function requireRole(role: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!req.user?.roles.includes(role)) {
      res.status(403).json({ error: "forbidden", required: role });
      return;
    }
    next();
  };
}
