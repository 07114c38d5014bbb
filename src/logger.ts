import { pino, type Logger } from "pino";

export type { Logger };

/** JSON lines on stdout, or on stderr (`fd` 2) where stdout carries something else: the MCP stdio server's messages. */
export function createLogger(level: string, fd: 1 | 2 = 1): Logger {
  const options = {
    level,
    base: { service: "memory-service" },
    timestamp: pino.stdTimeFunctions.isoTime,
    // belt and braces: nothing should log headers or bodies, but a key must never reach the log if it did
    redact: {
      paths: ["authorization", "*.authorization", "*.headers.authorization", "*['x-service-api-key']", "key", "*.key"],
      censor: "[redacted]",
    },
  };
  return pino(options, pino.destination(fd));
}
