import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { generateKeySecret } from "../../src/domain/key-secret.ts";
import { logWhenAnswered } from "../../src/http/request-log.ts";
import type { Logger } from "../../src/logger.ts";
import type { Metrics } from "../../src/http/metrics.ts";
import type { Exchange } from "../../src/transport/exchange.ts";

describe("the request log", () => {
  it("never holds a key, even one a client put in the path: it is cut to the prefix the key list shows", () => {
    const { key, prefix } = generateKeySecret();
    const lines: Record<string, unknown>[] = [];
    const logger = { info: (fields: Record<string, unknown>) => lines.push(fields) } as unknown as Logger;
    const metrics = { observeRequest: () => {} } as unknown as Metrics;
    const res = Object.assign(new EventEmitter(), { statusCode: 404 });
    const url = new URL(`http://localhost/api/v1/memories/${key}/history`);
    logWhenAnswered({ req: { method: "GET" }, res, requestId: "r1", url, route: "/api/v1/memories/{id}/history" } as unknown as Exchange, logger, metrics);
    res.emit("finish");
    expect(lines).toHaveLength(1);
    expect(JSON.stringify(lines[0])).not.toContain(key);
    expect(lines[0]).toMatchObject({ path: `/api/v1/memories/${prefix}…/history`, status: 404 });
  });
});
