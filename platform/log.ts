import type { FastifyBaseLogger } from "fastify";

/** The platform's logger (Fastify's pino instance, silent in tests), as the switch and the SIP side use it. */
export type Log = Pick<FastifyBaseLogger, "error" | "warn" | "info" | "debug">;

/** A logger that drops everything, for parts used outside a platform (test phones, benches). */
export const silentLog: Log = {
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
} as unknown as Log;
