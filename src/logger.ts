import { pino, type Logger } from "pino";

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: "memory-service" },
    timestamp: pino.stdTimeFunctions.isoTime,
    // belt and braces: nothing should log headers or bodies, but a key must never reach the log if it did
    redact: {
      paths: ["authorization", "*.authorization", "*.headers.authorization", "*['x-service-api-key']", "key", "*.key"],
      censor: "[redacted]",
    },
  });
}
