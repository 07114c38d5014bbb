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

  it("compresses API answers, and leaves small answers alone", async () => {
    const { server, user } = suite;
    const list = await get(`${server.url}/api/v1/memory?limit=30`, { authorization: `Bearer ${user.key}`, "accept-encoding": "gzip" });
    expect(list.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(list.body).toString()).memories).toHaveLength(30);
    const health = await get(`${server.url}/healthz`, { "accept-encoding": "gzip" });
    expect(health.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(health.body.toString())).toEqual({ status: "ok" });
  });

  it("serves GraphiQL's files compressed ahead of time, cacheable for good, and 304 once held", async () => {
    const { server } = suite;
    const page = await get(`${server.url}/graphql`, { accept: "text/html" });
    expect(page.body.length).toBeLessThan(2000);
    const files = [...page.body.toString().matchAll(/(?:src|href)="(\/graphiql\/[^"]+)"/g)].map((m) => m[1]!);
    expect(files.map((file) => file.replace(/-[\w-]{12}\./, "."))).toEqual(
      expect.arrayContaining(["/graphiql/favicon.ico", "/graphiql/graphiql.css", "/graphiql/start.js", "/graphiql/graphiql.js"]),
    );
    for (const file of files) {
      const plain = await get(`${server.url}${file}`, {});
      expect(plain.status).toBe(200);
      expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(plain.headers["content-encoding"]).toBeUndefined();
      const br = await get(`${server.url}${file}`, { "accept-encoding": "gzip;q=0.5, br" });
      expect(br.headers["content-encoding"]).toBe("br");
      expect(br.headers.vary).toMatch(/accept-encoding/i);
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      const gzip = await get(`${server.url}${file}`, { "accept-encoding": "gzip" });
      expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
      // as browsers ask, every encoding alike: the smaller one (gzip was taken, the first named)
      expect((await get(`${server.url}${file}`, { "accept-encoding": "gzip, deflate, br, zstd" })).headers["content-encoding"]).toBe("br");
      const held = await get(`${server.url}${file}`, { "if-none-match": String(plain.headers.etag) });
      expect([held.status, held.body.length]).toEqual([304, 0]);
      // each encoding is a representation of its own: its own strong ETag, and a 304 for that one only
      expect(new Set([plain, br, gzip].map((answer) => answer.headers.etag)).size).toBe(3);
      const heldBr = { "if-none-match": String(br.headers.etag) };
      expect((await get(`${server.url}${file}`, { ...heldBr, "accept-encoding": "br" })).status).toBe(304);
      expect((await get(`${server.url}${file}`, { ...heldBr, "accept-encoding": "gzip" })).status).toBe(200);
      // a client accepting no encoding made ahead of time gets the file as it is, not compressed again
      const deflate = await get(`${server.url}${file}`, { "accept-encoding": "deflate" });
      expect(deflate.headers["content-encoding"]).toBeUndefined();
      expect(deflate.body.equals(plain.body)).toBe(true);
    }
    const script = files.find((file) => file.startsWith("/graphiql/graphiql-") && file.endsWith(".js"))!;
    const br = await get(`${server.url}${script}`, { "accept-encoding": "br" });
    expect(br.body.length).toBeLessThan(2_500_000); // about 5.3 MB as sent before
    // the start script names the editor's workers, which are files too
    const start = await get(`${server.url}${files.find((file) => file.startsWith("/graphiql/start-"))!}`, {});
    const workers = [...start.body.toString().matchAll(/"(\/graphiql\/[^"]+\.worker-[^"]+)"/g)].map((m) => m[1]!);
    expect(workers).toHaveLength(3);
    for (const worker of workers) expect((await get(`${server.url}${worker}`, {})).status).toBe(200);
    expect((await get(`${server.url}/graphiql/graphiql-000000000000.js`, {})).status).toBe(404);
  });

  // they were compressed as they went, under the identity's ETag: a cache holding the br copy was told it held gzip
  it("serves the dashboard's files compressed, brotli first, each encoding under an ETag of its own", async () => {
    const { server } = suite;
    const page = await get(`${server.url}/dashboard/`, {});
    expect(page.status).toBe(200);
    const assets = [...page.body.toString().matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const path of ["/dashboard/", ...assets]) {
      const plain = await get(`${server.url}${path}`, {});
      const br = await get(`${server.url}${path}`, { "accept-encoding": "gzip, deflate, br" });
      const gzip = await get(`${server.url}${path}`, { "accept-encoding": "gzip" });
      expect([br.headers["content-encoding"], gzip.headers["content-encoding"], plain.headers["content-encoding"]]).toEqual(["br", "gzip", undefined]);
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
      expect(new Set([plain, br, gzip].map((answer) => answer.headers.etag)).size).toBe(3);
      const heldPlain = { "if-none-match": String(plain.headers.etag) };
      expect((await get(`${server.url}${path}`, { ...heldPlain, "accept-encoding": "br" })).status).toBe(200);
      expect((await get(`${server.url}${path}`, { "if-none-match": String(br.headers.etag), "accept-encoding": "br" })).status).toBe(304);
    }
  });

  it("refuses a compressed request body with 415 on every path, rather than reading its bytes as they came", async () => {
    const { user } = suite;
    for (const coding of ["gzip", "zstd"]) {
      const rest = await user.api.request("POST", "/api/v1/memory", { json: { content: "sent plain, marked compressed" }, headers: { "content-encoding": coding } });
      expect(rest.status).toBe(415);
      expect(rest.body.error.message).toBe(`A request body with Content-Encoding ${coding} is not supported: send it uncompressed`);
      const graphql = await user.api.request("POST", "/graphql", { json: { query: "{ memories { total } }" }, headers: { "content-encoding": coding } });
      expect(graphql.status).toBe(415);
      expect(graphql.body.errors[0].extensions.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    }
    const identity = await user.api.request("POST", "/api/v1/memory", { json: { content: "identity is no coding" }, headers: { "content-encoding": "identity" } });
    expect(identity.status).toBe(201);
  });
});
