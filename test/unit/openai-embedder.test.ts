import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  EmbeddingError,
  OpenAIEmbedder,
  type OpenAIEmbedderConfig,
  type OpenAIEmbedderOptions,
} from "../../src/embeddings/openai.ts";
import { loadConfig } from "../../src/config.ts";
import { openEmbedder } from "../../src/embeddings/open.ts";

// the waits the embedder asks for between attempts, read instead of the wall clock (which a loaded machine
// stretches); each still passes, as asked, so that the requests keep their order
const waits = vi.hoisted(() => [] as number[]);
vi.mock("node:timers/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:timers/promises")>();
  const setTimeout: typeof real.setTimeout = (delay, value, options) => {
    waits.push(delay ?? 0);
    return real.setTimeout(delay, value, options);
  };
  return { ...real, setTimeout };
});

const KEY = "sk-test-7f3a9c1e5b";
const MODEL = "fake-embed";
const SERVER_DIMENSIONS = 12;

interface EmbeddingsBody {
  model: string;
  input: string[];
  dimensions?: number;
  encoding_format?: string;
}

interface Seen {
  authorization: string | undefined;
  body: EmbeddingsBody;
}

interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** JSON, or a string sent as plain text */
  body: unknown;
  /** Hang up halfway through the body. */
  cut?: boolean;
}

const openAIError = (status: number, message: string, headers?: Record<string, string>): Reply => ({
  status,
  headers,
  body: { error: { message, type: "invalid_request_error", param: null, code: null } },
});

/** The fake's vector for a text: deterministic, deliberately not of unit length. */
function rawVector(text: string, dimensions: number): number[] {
  const values: number[] = [];
  for (let block = 0; values.length < dimensions; block++) {
    for (const byte of createHash("sha256").update(`${block}:${text}`).digest()) values.push(byte / 32 - 4);
  }
  return values.slice(0, dimensions);
}

function unit(values: number[]): number[] {
  const norm = Math.hypot(...values);
  return values.map((value) => value / norm);
}

function base64(values: number[]): string {
  const view = new DataView(new ArrayBuffer(values.length * 4));
  values.forEach((value, i) => view.setFloat32(i * 4, value, true));
  return Buffer.from(view.buffer).toString("base64");
}

/** An OpenAI embeddings API on 127.0.0.1 that records what it was sent and lets a test script its answers. */
class FakeOpenAI {
  readonly seen: Seen[] = [];
  /** Answers a request instead of the default behaviour (return undefined to let it through); n counts from 1. */
  script: ((body: EmbeddingsBody, n: number) => Reply | undefined) | undefined;
  /** Shapes a default answer's vectors: a server that ignores `dimensions`, returns garbage... */
  vector: (text: string, dimensions: number) => number[] = rawVector;
  /** Answers in reverse order of `index`, as the API is free to. */
  reverse = false;
  /** Sends numbers whatever encoding_format asks, as older servers do. */
  ignoreEncoding = false;
  /** Like TEI's max-client-batch-size: more inputs get a 413. */
  maxInputs = Number.POSITIVE_INFINITY;
  /** Milliseconds before answering request n. */
  latency: (n: number) => number = () => 0;
  inFlight = 0;
  maxInFlight = 0;
  private server: Server | undefined;
  baseUrl = "";

  reset(): void {
    this.seen.length = 0;
    this.script = undefined;
    this.vector = rawVector;
    this.reverse = false;
    this.ignoreEncoding = false;
    this.maxInputs = Number.POSITIVE_INFINITY;
    this.latency = () => 0;
    this.maxInFlight = 0;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.on("error", () => {});
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== "POST" || req.url !== "/v1/embeddings") {
      return send(res, openAIError(404, `no route ${req.method} ${req.url}`));
    }
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as EmbeddingsBody;
    this.seen.push({ authorization: req.headers.authorization, body });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const n = this.seen.length;
      await new Promise((resolve) => setTimeout(resolve, this.latency(n)));
      send(res, this.script?.(body, n) ?? this.answer(body));
    } finally {
      this.inFlight--;
    }
  }

  private answer(body: EmbeddingsBody): Reply {
    if (body.input.length > this.maxInputs) {
      return openAIError(413, `batch size ${body.input.length} > maximum allowed batch size ${this.maxInputs}`);
    }
    if (body.input.some((text) => text === "")) return openAIError(400, "'$.input' is invalid");
    const asBase64 = body.encoding_format === "base64" && !this.ignoreEncoding;
    const data = body.input.map((text, index) => {
      const values = this.vector(text, body.dimensions ?? SERVER_DIMENSIONS);
      return { object: "embedding", index, embedding: asBase64 ? base64(values) : values };
    });
    if (this.reverse) data.reverse();
    const tokens = body.input.join(" ").split(/\s+/).length;
    const usage = { prompt_tokens: tokens, total_tokens: tokens };
    return { status: 200, body: { object: "list", data, model: body.model, usage } };
  }
}

function send(res: ServerResponse, reply: Reply): void {
  const text = typeof reply.body === "string";
  const body = text ? (reply.body as string) : JSON.stringify(reply.body);
  res.writeHead(reply.status, { "content-type": text ? "text/plain" : "application/json", ...reply.headers });
  if (!reply.cut) return void res.end(body);
  res.write(body.slice(0, body.length / 2));
  setTimeout(() => res.destroy(), 10);
}

const fake = new FakeOpenAI();
beforeAll(() => fake.start());
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const FAST: OpenAIEmbedderOptions = { baseDelayMs: 1, maxDelayMs: 1_000, timeoutMs: 5_000 };

function config(overrides: Partial<OpenAIEmbedderConfig> = {}): OpenAIEmbedderConfig {
  return { apiKey: KEY, baseUrl: fake.baseUrl, model: MODEL, dimensions: 8, ...overrides };
}

const make = (overrides: Partial<OpenAIEmbedderConfig> = {}, options: OpenAIEmbedderOptions = {}) =>
  OpenAIEmbedder.create(config(overrides), { ...FAST, ...options });

const texts = (n: number) => Array.from({ length: n }, (_, i) => `text number ${i}`);

function expectVector(actual: Float32Array | undefined, text: string, dimensions: number): void {
  expect(actual).toBeInstanceOf(Float32Array);
  const expected = unit(rawVector(text, dimensions));
  expect(Array.from(actual!)).toEqual(expected.map((value) => expect.closeTo(value, 6)));
}

async function failure(promise: Promise<unknown>): Promise<EmbeddingError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(EmbeddingError);
  return error as EmbeddingError;
}

describe("selecting the OpenAI-compatible embedder", () => {
  it("is what the server opens for OPENAI_BASE_URL, OPENAI_API_KEY, EMBEDDING_MODEL and EMBEDDING_DIMENSIONS", async () => {
    const settings = { OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: KEY, EMBEDDING_MODEL: MODEL, EMBEDDING_DIMENSIONS: "8" };
    const embedder = await openEmbedder(loadConfig(settings));
    expect(embedder).toBeInstanceOf(OpenAIEmbedder);
    expect(embedder.id).toBe(`openai:${MODEL}@${new URL(fake.baseUrl).host}:8`);
    const [vector] = await embedder.embed(["hello"]);
    expect(fake.seen).toEqual([{ authorization: `Bearer ${KEY}`, body: expect.objectContaining({ model: MODEL, input: ["hello"], dimensions: 8 }) }]);
    expectVector(vector, "hello", 8);
  });
});

describe("OpenAIEmbedder identity and dimensions", () => {
  it("probes an unknown model's dimensions once and names the server's host in its id", async () => {
    const embedder = await make({ dimensions: undefined });
    expect(embedder.dimensions).toBe(SERVER_DIMENSIONS);
    expect(embedder.id).toBe(`openai:${MODEL}@${new URL(fake.baseUrl).host}:${SERVER_DIMENSIONS}`);
    expect(fake.seen).toHaveLength(1);
    expect(fake.seen[0]!.body.dimensions).toBeUndefined();
    expect(fake.seen[0]!.body.input).toHaveLength(1);

    const [vector] = await embedder.embed(["hello"]);
    expectVector(vector, "hello", SERVER_DIMENSIONS);
  });

  // an endpoint down at start stopped the service from starting: an embedder's outage became the whole service's
  // at every restart (outside probe)
  it("takes the dimensions it made before when its probe fails, and fails as before without any", async () => {
    fake.script = () => openAIError(500, "boom");
    const stems: string[] = [];
    const remembered = async (stem: string) => (stems.push(stem), stems.length === 1 ? 24 : undefined);
    const embedder = await OpenAIEmbedder.create(config({ dimensions: undefined }), FAST, remembered);
    const stem = `openai:${MODEL}@${new URL(fake.baseUrl).host}:`;
    expect(stems).toEqual([stem]);
    expect([embedder.id, embedder.dimensions]).toEqual([`${stem}24`, 24]);
    // none stored: nothing tells the size
    await expect(OpenAIEmbedder.create(config({ dimensions: undefined }), FAST, remembered)).rejects.toBeInstanceOf(EmbeddingError);
    fake.script = undefined;
    const [vector] = await embedder.embed(["hello"]).catch(() => [undefined]);
    expect(vector, "the server's vectors are 12 long, not 24: refused").toBeUndefined();
  });

  it("sends configured dimensions without probing and checks the vectors' length", async () => {
    const embedder = await make({ dimensions: 8 });
    expect(fake.seen).toHaveLength(0);
    expect(embedder.dimensions).toBe(8);
    expect(embedder.id).toBe(`openai:${MODEL}@${new URL(fake.baseUrl).host}:8`);

    const [vector] = await embedder.embed(["hello"]);
    expect(fake.seen[0]!.body).toMatchObject({ model: MODEL, input: ["hello"], dimensions: 8 });
    expectVector(vector, "hello", 8);

    fake.vector = (text) => rawVector(text, SERVER_DIMENSIONS); // a server ignoring `dimensions`
    const error = await failure(embedder.embed(["hello"]));
    expect(error.message).toContain("has 12 dimensions, expected 8");
    expect(error.retryable).toBe(false);
  });

  it("knows OpenAI's models on OpenAI's API without a request", async () => {
    // no server answers here (there is no network): create() resolving proves it made no request
    const large = await OpenAIEmbedder.create({
      apiKey: KEY,
      baseUrl: undefined,
      model: "text-embedding-3-large",
      dimensions: undefined,
    });
    expect(large.id).toBe("openai:text-embedding-3-large:3072");
    expect(large.dimensions).toBe(3072);
    const small = await OpenAIEmbedder.create({
      apiKey: KEY,
      baseUrl: "https://api.openai.com/v1",
      model: "text-embedding-3-small",
      dimensions: 512,
    });
    expect(small.id).toBe("openai:text-embedding-3-small:512");
  });

  it("refuses a base URL carrying credentials or a query, without quoting it", async () => {
    for (const baseUrl of ["http://user:secret@127.0.0.1:1/v1", "http://127.0.0.1:1/v1?key=secret"]) {
      const error: unknown = await make({ baseUrl }).catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(RangeError);
      expect((error as Error).message).not.toContain("secret");
    }
  });

  it("sends the key as a bearer token, asks for base64 and posts to <baseUrl>/embeddings", async () => {
    const embedder = await make();
    await embedder.embed(["a"]);
    expect(fake.seen[0]!.authorization).toBe(`Bearer ${KEY}`);
    expect(fake.seen[0]!.body.encoding_format).toBe("base64");
  });
});

describe("OpenAIEmbedder batching and decoding", () => {
  it("splits large inputs into batches, in order, with limited concurrency", async () => {
    fake.latency = () => 20;
    const embedder = await make({}, { maxBatchSize: 256, concurrency: 2 });
    const input = texts(600);
    const vectors = await embedder.embed(input);

    expect(fake.seen.map((seen) => seen.body.input.length)).toEqual([256, 256, 88]);
    const sent = fake.seen.map((seen) => seen.body.input);
    expect(sent.toSorted((a, b) => input.indexOf(a[0]!) - input.indexOf(b[0]!)).flat()).toEqual(input);
    expect(fake.maxInFlight).toBe(2);
    expect(vectors).toHaveLength(600);
    input.forEach((text, i) => expectVector(vectors[i], text, 8));
  });

  it("caps the characters of one request", async () => {
    const embedder = await make({}, { maxBatchChars: 100 });
    const input = ["x".repeat(40), "y".repeat(40), "z".repeat(40), "w".repeat(150), "v".repeat(10)];
    await embedder.embed(input);
    expect(fake.seen.map((seen) => seen.body.input.map((text) => text[0]).join(""))).toEqual(["xy", "z", "w", "v"]);
  });

  it("places vectors by their index, whatever the response order", async () => {
    fake.reverse = true;
    const embedder = await make();
    const input = texts(5);
    const vectors = await embedder.embed(input);
    input.forEach((text, i) => expectVector(vectors[i], text, 8));
  });

  it("normalises vectors to unit length and reads plain numbers from servers that ignore encoding_format", async () => {
    fake.ignoreEncoding = true;
    fake.vector = (text, dimensions) => rawVector(text, dimensions).map((value) => value * 1000);
    const embedder = await make();
    const [vector] = await embedder.embed(["scaled"]);
    expect(Math.hypot(...vector!)).toBeCloseTo(1, 6);
    expectVector(vector, "scaled", 8);
  });

  it("rejects NaN and zero vectors", async () => {
    const embedder = await make();
    fake.vector = (_, dimensions) => Array.from({ length: dimensions }, () => Number.NaN);
    expect((await failure(embedder.embed(["a"]))).message).toMatch(/unusable response: embedding 0 contains NaN/);
    fake.vector = (_, dimensions) => new Array<number>(dimensions).fill(0);
    expect((await failure(embedder.embed(["a"]))).message).toContain("only zeros");
  });

  it("answers [] for no texts without a request, and sends an empty text as a space", async () => {
    const embedder = await make();
    expect(await embedder.embed([])).toEqual([]);
    expect(fake.seen).toHaveLength(0);
    const [empty, other] = await embedder.embed(["", "b"]);
    expect(fake.seen[0]!.body.input).toEqual([" ", "b"]);
    expectVector(empty, " ", 8);
    expectVector(other, "b", 8);
  });

  it("halves batches the server refuses as too large (413), and remembers the size", async () => {
    fake.maxInputs = 4;
    const embedder = await make({}, { maxBatchSize: 256, concurrency: 1 });
    const input = texts(10);
    const vectors = await embedder.embed(input);
    input.forEach((text, i) => expectVector(vectors[i], text, 8));

    fake.seen.length = 0;
    await embedder.embed(texts(8));
    expect(fake.seen.map((seen) => seen.body.input.length)).toEqual([3, 3, 2]);
  });
});

describe("OpenAIEmbedder failures", () => {
  it("retries 429, waiting as retry-after-ms asks", async () => {
    fake.script = (_, n) => (n <= 2 ? openAIError(429, "Rate limit reached", { "retry-after-ms": "60" }) : undefined);
    const embedder = await make();
    waits.length = 0;
    const [vector] = await embedder.embed(["a"]);
    expect(waits).toEqual([60, 60]);
    expect(fake.seen).toHaveLength(3);
    expectVector(vector, "a", 8);
  });

  it("reads retry-after in seconds", async () => {
    fake.script = (_, n) => (n === 1 ? openAIError(429, "slow down", { "retry-after": "0.08" }) : undefined);
    const embedder = await make();
    waits.length = 0;
    await embedder.embed(["a"]);
    expect(waits).toEqual([80]);
    expect(fake.seen).toHaveLength(2);
  });

  it("fails at once when the server asks for a longer wait than allowed", async () => {
    fake.script = () => openAIError(429, "quota", { "retry-after": "120" });
    const embedder = await make({}, { maxDelayMs: 1_000 });
    const error = await failure(embedder.embed(["a"]));
    expect(fake.seen).toHaveLength(1);
    expect(error.status).toBe(429);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("longer than 1000 ms");
  });

  it("retries server errors", async () => {
    const failures = [openAIError(500, "The server had an error"), openAIError(503, "overloaded")];
    fake.script = (_, n) => failures[n - 1];
    const embedder = await make();
    const [vector] = await embedder.embed(["a"]);
    expect(fake.seen).toHaveLength(3);
    expectVector(vector, "a", 8);
  });

  it("gives up after maxAttempts with the last failure", async () => {
    fake.script = () => openAIError(502, "bad gateway");
    const embedder = await make({}, { maxAttempts: 3 });
    const error = await failure(embedder.embed(["a"]));
    expect(fake.seen).toHaveLength(3);
    expect(error.status).toBe(502);
    expect(error.retryable).toBe(true);
    expect(error.message).toBe(
      `Embedding request to ${fake.baseUrl} (model "${MODEL}") failed after 3 attempts, ` +
        "the last with HTTP 502: bad gateway",
    );
  });

  it("does not retry 401, names the endpoint and never shows the key", async () => {
    fake.script = () => openAIError(401, `Incorrect API key provided: ${KEY}.`);
    const embedder = await make();
    const error = await failure(embedder.embed(["a"]));
    expect(fake.seen).toHaveLength(1);
    expect(error.status).toBe(401);
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      `Embedding request to ${fake.baseUrl} (model "${MODEL}") failed with HTTP 401: ` +
        "Incorrect API key provided: [redacted].",
    );
  });

  it("quotes an error body that is not JSON", async () => {
    fake.script = () => ({ status: 404, body: "404 page not found" });
    const embedder = await make();
    const error = await failure(embedder.embed(["a"]));
    expect(error.message).toMatch(/failed with HTTP 404: 404 page not found$/);
  });

  it("retries an answer cut off halfway", async () => {
    fake.script = (_, n) => (n === 1 ? { status: 200, body: { object: "list", data: [] }, cut: true } : undefined);
    const embedder = await make();
    const [vector] = await embedder.embed(["a"]);
    expect(fake.seen).toHaveLength(2);
    expectVector(vector, "a", 8);
  });

  it("fails the whole call when one batch is refused", async () => {
    fake.script = (body) => (body.input.includes("text number 5") ? openAIError(400, "input too long") : undefined);
    const embedder = await make({}, { maxBatchSize: 2 });
    const error = await failure(embedder.embed(texts(8)));
    expect(error.status).toBe(400);
    expect(error.message).toContain("failed with HTTP 400: input too long");
  });

  it("retries a request that times out", async () => {
    fake.latency = (n) => (n === 1 ? 500 : 0);
    const embedder = await make({}, { timeoutMs: 100 });
    const [vector] = await embedder.embed(["a"]);
    expect(fake.seen).toHaveLength(2);
    expectVector(vector, "a", 8);
  });

  it("reports timeouts once out of attempts", async () => {
    fake.latency = () => 500;
    const embedder = await make({}, { timeoutMs: 50, maxAttempts: 2 });
    const error = await failure(embedder.embed(["a"]));
    expect(fake.seen).toHaveLength(2);
    expect(error.status).toBeUndefined();
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("failed after 2 attempts, the last without a response: Request timed out");
  });

  it("retries connection failures and then reports them", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const embedder = await make({ baseUrl: `http://127.0.0.1:${port}/v1` }, { maxAttempts: 2 });
    const error = await failure(embedder.embed(["a"]));
    expect(error.message).toContain("failed after 2 attempts, the last without a response: Connection error: ");
    expect(error.message).toContain("ECONNREFUSED");
    expect(error.retryable).toBe(true);
  });
});
