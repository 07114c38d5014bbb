import { request } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { databaseUnderTest, serverWithUser } from "../support/server.ts";

/** A GET with exactly these headers (fetch would add and undo its own Accept-Encoding). */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on("error", reject)
      .end();
  });
}

// the HTTP layer's own behaviour: the same on either database, so run once
describe.runIf(databaseUnderTest() === "pglite")("compressed answers", () => {
  const suite = serverWithUser();

  beforeAll(async () => {
    const { user } = suite;
    for (let i = 0; i < 30; i++) await user.api.post("/api/v1/memory", { content: `a memory long enough to be worth compressing, number ${i}` });
  });

  it("sends brotli or gzip as Accept-Encoding asks, and the same bytes once decoded", async () => {
    const { server } = suite;
    const plain = await get(`${server.url}/openapi.json`, {});
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const br = await get(`${server.url}/openapi.json`, { "accept-encoding": "br, gzip" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.body.length / 4);
    const gzip = await get(`${server.url}/openapi.json`, { "accept-encoding": "gzip" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
  });

  it("compresses API answers and GraphiQL, and leaves small answers alone", async () => {
    const { server, user } = suite;
    const list = await get(`${server.url}/api/v1/memory?limit=30`, { authorization: `Bearer ${user.key}`, "accept-encoding": "gzip" });
    expect(list.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(list.body).toString()).memories).toHaveLength(30);
    const graphiql = await get(`${server.url}/graphql`, { accept: "text/html", "accept-encoding": "br" });
    expect(graphiql.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(graphiql.body).toString()).toContain("<html");
    const health = await get(`${server.url}/healthz`, { "accept-encoding": "gzip" });
    expect(health.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(health.body.toString())).toEqual({ status: "ok" });
  });
});
