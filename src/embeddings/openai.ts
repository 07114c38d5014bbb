import { setTimeout as sleep } from "node:timers/promises";
import OpenAI, { APIConnectionError, APIError, OpenAIError } from "openai";
import type { Config } from "../config.ts";
import type { Embedder } from "./embedder.ts";

export type OpenAIEmbedderConfig = NonNullable<Config["openai"]>;

export interface OpenAIEmbedderOptions {
  /** Inputs per request (OpenAI accepts 2048). Default 256. */
  maxBatchSize?: number;
  /**
   * Characters per request, summed over its inputs (one input longer than this goes alone). Default 200,000:
   * OpenAI refuses requests of more than 300,000 tokens, and almost all text has at least one character per token.
   */
  maxBatchChars?: number;
  /** Requests in flight at once for one `embed()` call. Default 2. */
  concurrency?: number;
  /** Tries per request, the first included. Default 4. */
  maxAttempts?: number;
  /** Backoff before the first retry; it doubles for each further retry, with jitter. Default 500 ms. */
  baseDelayMs?: number;
  /** Longest wait between tries; a server asking for longer (retry-after) fails the call at once. Default 30 s. */
  maxDelayMs?: number;
  /** Time allowed for one request. Default 60 s: a local CPU server may take long over a full batch. */
  timeoutMs?: number;
}

/**
 * Why an embedding request failed. `status` is the HTTP status, undefined when no response arrived (connection
 * failure, timeout) or the response was unusable; `retryable` says whether trying again later may succeed.
 */
export class EmbeddingError extends Error {
  override name = "EmbeddingError";
  readonly status: number | undefined;
  readonly retryable: boolean;

  constructor(message: string, status: number | undefined, retryable: boolean) {
    super(message);
    this.status = status;
    this.retryable = retryable;
  }
}

const OFFICIAL_BASE_URL = "https://api.openai.com/v1";

// Published output sizes of OpenAI's models, trusted only for OpenAI's own API: elsewhere the same name may be an
// alias for any model. Every response's vectors are checked against the size anyway.
const OPENAI_MODEL_DIMENSIONS: Readonly<Record<string, number>> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};

const PROBE_TEXT = "dimensions probe";

/** An id without its size: `openai:<model>:` on OpenAI's API, `openai:<model>@<host[:port]>:` elsewhere. */
const idStem = (endpoint: { model: string; host: string | undefined }): string =>
  `openai:${endpoint.host === undefined ? endpoint.model : `${endpoint.model}@${endpoint.host}`}:`;
const MAX_SERVER_MESSAGE_CHARS = 500;

/**
 * Embeddings from OpenAI or any server speaking its `/embeddings` API (Ollama, vLLM, TEI, LiteLLM...).
 *
 * The id is `openai:<model>:<dimensions>` on api.openai.com and `openai:<model>@<host[:port]>:<dimensions>`
 * elsewhere: a model name says little about the vectors on another server (aliases, quantisations, other
 * models of the same name), and wrongly comparing vectors of two models corrupts search silently, whereas a
 * wrongly new id (the same server under another host name) only costs a reindex.
 *
 * Build it with `OpenAIEmbedder.create()`, which learns the vectors' size: EMBEDDING_DIMENSIONS when set (sent
 * as the `dimensions` parameter), else the published size of an OpenAI model on OpenAI's API, else from one
 * probe request.
 *
 * `embed()` sends texts in batches (by count and by characters), a few requests at a time, retrying rate limits,
 * server errors and network failures with backoff; an empty text is embedded as a single space.
 */
export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  readonly deferWrites = false;
  readonly dimensions: number;
  private readonly endpoint: Endpoint;
  private readonly concurrency: number;
  private readonly maxBatchChars: number;
  // lowered when the server refuses a batch as too large (413: TEI allows 32 inputs unless told otherwise)
  private maxBatchSize: number;

  private constructor(endpoint: Endpoint, dimensions: number, options: OpenAIEmbedderOptions) {
    this.endpoint = endpoint;
    this.dimensions = dimensions;
    this.id = `${idStem(endpoint)}${dimensions}`;
    this.maxBatchSize = positive("maxBatchSize", options.maxBatchSize ?? 256);
    this.maxBatchChars = positive("maxBatchChars", options.maxBatchChars ?? 200_000);
    this.concurrency = positive("concurrency", options.concurrency ?? 2);
  }

  /**
   * `remembered`: the size of this endpoint's vectors as stored before, by the stem of its id (`openai:<model>:`),
   * asked when the probe fails: an endpoint down at start then no longer stops the service from starting, which
   * would turn an embedder's outage into the whole service's at every restart (outside probe).
   */
  static async create(
    config: OpenAIEmbedderConfig,
    options: OpenAIEmbedderOptions = {},
    remembered?: (idStem: string) => Promise<number | undefined>,
  ): Promise<OpenAIEmbedder> {
    const endpoint = new Endpoint(config, options);
    const known = endpoint.host === undefined ? OPENAI_MODEL_DIMENSIONS[config.model] : undefined;
    const probed = () =>
      endpoint.probe().catch(async (error: unknown) => {
        const earlier = error instanceof EmbeddingError ? await remembered?.(idStem(endpoint)) : undefined;
        if (earlier === undefined) throw error;
        return earlier;
      });
    const dimensions = config.dimensions ?? known ?? (await probed());
    return new OpenAIEmbedder(endpoint, dimensions, options);
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const batches = this.split(texts);
    const vectors: Float32Array[] = new Array<Float32Array>(texts.length);
    const stop = new AbortController();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (!stop.signal.aborted) {
        const batch = batches[next++];
        if (batch === undefined) return;
        const embedded = await this.embedBatch(batch.texts, stop.signal);
        embedded.forEach((vector, i) => {
          vectors[batch.start + i] = vector;
        });
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(this.concurrency, batches.length) }, worker));
    } catch (error) {
      // the call has failed: spare the server the requests still under way
      stop.abort();
      throw error;
    }
    return vectors;
  }

  private split(texts: readonly string[]): Array<{ start: number; texts: string[] }> {
    const batches: Array<{ start: number; texts: string[] }> = [];
    let current = { start: 0, texts: [] as string[] };
    let chars = 0;
    texts.forEach((raw, i) => {
      // OpenAI refuses empty inputs; one empty text must not sink the texts batched with it
      const text = raw === "" ? " " : raw;
      const full = current.texts.length >= this.maxBatchSize || chars + text.length > this.maxBatchChars;
      if (full && current.texts.length > 0) {
        batches.push(current);
        current = { start: i, texts: [] };
        chars = 0;
      }
      current.texts.push(text);
      chars += text.length;
    });
    batches.push(current);
    return batches;
  }

  private async embedBatch(texts: string[], signal: AbortSignal): Promise<Float32Array[]> {
    try {
      return await this.endpoint.embed(texts, this.dimensions, signal);
    } catch (error) {
      if (!(error instanceof EmbeddingError) || error.status !== 413 || texts.length === 1) throw error;
      const half = Math.ceil(texts.length / 2);
      const vectors = [
        ...(await this.embedBatch(texts.slice(0, half), signal)),
        ...(await this.embedBatch(texts.slice(half), signal)),
      ];
      // learnt only once halves went through, so that one oversized text does not shrink every later batch
      this.maxBatchSize = Math.min(this.maxBatchSize, half);
      return vectors;
    }
  }
}

interface Failure {
  status: number | undefined;
  retryable: boolean;
  /** "with HTTP 401: Incorrect API key provided", "without a response: Request timed out" */
  detail: string;
}

/** One server and model: requests with retries, and the checking of what comes back. */
class Endpoint {
  readonly model: string;
  /** The server's host, undefined for OpenAI's own API. */
  readonly host: string | undefined;
  private readonly client: OpenAI;
  private readonly requestedDimensions: number | undefined;
  private readonly apiKey: string;
  private readonly description: string;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(config: OpenAIEmbedderConfig, options: OpenAIEmbedderOptions) {
    const baseUrl = config.baseUrl ?? OFFICIAL_BASE_URL;
    const url = new URL(baseUrl);
    // fetch refuses credentials in a URL (and would quote them in its error), and the client appends paths to the
    // URL as a string, which a query would swallow
    if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
      throw new RangeError(
        "OPENAI_BASE_URL must have no user, password, query or fragment (the key goes in OPENAI_API_KEY)",
      );
    }
    this.model = config.model;
    this.host = url.hostname === "api.openai.com" ? undefined : url.host;
    this.requestedDimensions = config.dimensions;
    this.apiKey = config.apiKey;
    this.maxAttempts = positive("maxAttempts", options.maxAttempts ?? 4);
    this.baseDelayMs = nonNegative("baseDelayMs", options.baseDelayMs ?? 500);
    this.maxDelayMs = nonNegative("maxDelayMs", options.maxDelayMs ?? 30_000);
    this.description = `${url.href.replace(/\/$/, "")} (model "${config.model}")`;
    this.client = new OpenAI({
      apiKey: config.apiKey,
      baseURL: baseUrl,
      // retries are ours (below); the client's own would multiply them unseen
      maxRetries: 0,
      timeout: positive("timeoutMs", options.timeoutMs ?? 60_000),
      // the service's configuration is the only source of settings, and errors reach its log through us
      organization: null,
      project: null,
      adminAPIKey: null,
      webhookSecret: null,
      logLevel: "off",
    });
  }

  /** The length of the server's vectors, from one request. */
  async probe(): Promise<number> {
    const [vector] = await this.embed([PROBE_TEXT], undefined);
    return vector!.length;
  }

  /** Unit vectors for `texts`, in order, each of `dimensions` (when given) values. */
  async embed(texts: string[], dimensions: number | undefined, signal?: AbortSignal): Promise<Float32Array[]> {
    for (let attempt = 1; ; attempt++) {
      let response: unknown;
      try {
        response = await this.client.embeddings.create(
          {
            model: this.model,
            input: texts,
            // requested explicitly so that the reply comes back undecoded: the client would otherwise decode it as
            // base64 even from servers that ignore the parameter and send numbers
            encoding_format: "base64",
            ...(this.requestedDimensions === undefined ? {} : { dimensions: this.requestedDimensions }),
          },
          { signal },
        );
      } catch (error) {
        const failure = signal?.aborted ? undefined : this.failure(error);
        if (failure === undefined) throw error;
        if (!failure.retryable) throw this.error(`failed ${failure.detail}`, failure);
        if (attempt >= this.maxAttempts) {
          throw this.error(`failed after ${attempt} attempts, the last ${failure.detail}`, failure);
        }
        const wait = this.delay(error, attempt);
        if (wait === undefined) {
          const why = `the server asks for a wait longer than ${this.maxDelayMs} ms`;
          throw this.error(`failed ${failure.detail}, and ${why}`, failure);
        }
        await sleep(wait, undefined, { signal });
        continue;
      }
      return this.vectors(response, texts.length, dimensions);
    }
  }

  /** What went wrong in a request, or undefined for errors that are not the server's or the network's. */
  private failure(error: unknown): Failure | undefined {
    if (error instanceof APIError && error.status !== undefined) {
      const status = error.status;
      const retryable = status === 408 || status === 429 || status >= 500;
      return { status, retryable, detail: `with HTTP ${status}${this.serverMessage(error)}` };
    }
    if (error instanceof APIConnectionError) {
      return { status: undefined, retryable: true, detail: `without a response: ${causes(error)}` };
    }
    // the client leaves failures while reading the body unwrapped: a connection cut mid-answer (undici's
    // "terminated") or a truncated JSON body
    if (error instanceof Error && !(error instanceof OpenAIError)) {
      return { status: undefined, retryable: true, detail: `while reading the response: ${causes(error)}` };
    }
    return undefined;
  }

  private error(what: string, failure: Failure | undefined): EmbeddingError {
    const message = `Embedding request to ${this.description} ${what}`;
    return new EmbeddingError(message, failure?.status, failure?.retryable ?? false);
  }

  /** How long to wait before the next attempt, or undefined when the server asks for longer than we wait. */
  private delay(error: unknown, attempt: number): number | undefined {
    const asked = error instanceof APIError && error.headers !== undefined ? retryAfterMs(error.headers) : undefined;
    if (asked !== undefined) return asked <= this.maxDelayMs ? asked : undefined;
    // half fixed, half random: spreads out clients that failed together, yet never retries at once
    const backoff = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    return backoff / 2 + (Math.random() * backoff) / 2;
  }

  private serverMessage(error: APIError): string {
    const body: unknown = error.error;
    // OpenAI's errors are {error: {message}}; a body that is not JSON reaches us only inside the client's message
    const message = isRecord(body)
      ? typeof body.message === "string"
        ? body.message
        : JSON.stringify(body)
      : typeof body === "string"
        ? body
        : error.message.replace(/^\d+ /, "").replace(/^status code \(no body\)$/, "");
    if (message === "") return "";
    // some servers echo the key they were sent
    const safe = message.split(this.apiKey).join("[redacted]");
    return `: ${safe.length > MAX_SERVER_MESSAGE_CHARS ? `${safe.slice(0, MAX_SERVER_MESSAGE_CHARS)}...` : safe}`;
  }

  private vectors(response: unknown, count: number, dimensions: number | undefined): Float32Array[] {
    const unusable = (detail: string) => this.error(`returned an unusable response: ${detail}`, undefined);
    const data = isRecord(response) ? response.data : undefined;
    if (!Array.isArray(data)) throw unusable("no data array");
    if (data.length !== count) throw unusable(`${data.length} embeddings for ${count} inputs`);
    const vectors: Array<Float32Array | undefined> = new Array<Float32Array | undefined>(count);
    for (const item of data) {
      const index: unknown = isRecord(item) ? item.index : undefined;
      if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= count || vectors[index]) {
        throw unusable(`missing, out of range or repeated index ${JSON.stringify(index)}`);
      }
      const vector = decode(isRecord(item) ? item.embedding : undefined);
      if (vector === undefined) throw unusable(`embedding ${index} is neither base64 nor an array of numbers`);
      if (vector.length === 0) throw unusable(`embedding ${index} is empty`);
      if (dimensions !== undefined && vector.length !== dimensions) {
        throw unusable(`embedding ${index} has ${vector.length} dimensions, expected ${dimensions}`);
      }
      if (!normalise(vector)) throw unusable(`embedding ${index} contains NaN or infinite values or only zeros`);
      vectors[index] = vector;
    }
    return vectors as Float32Array[];
  }
}

function decode(embedding: unknown): Float32Array | undefined {
  if (typeof embedding === "string") {
    const bytes = Buffer.from(embedding, "base64");
    if (bytes.length % 4 !== 0) return undefined;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    const vector = new Float32Array(bytes.length / 4);
    for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
    return vector;
  }
  if (Array.isArray(embedding) && embedding.every((value) => typeof value === "number")) {
    return Float32Array.from(embedding);
  }
  return undefined;
}

/** Scales the vector to unit length in place; false when it has no direction (NaN, infinity, all zeros). */
function normalise(vector: Float32Array): boolean {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum);
  if (!Number.isFinite(norm) || norm === 0) return false;
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return true;
}

/** `retry-after-ms` (OpenAI's) or `retry-after` (seconds or an HTTP date), in milliseconds. */
function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms)) return Math.max(0, ms);
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** "Connection error: fetch failed: connect ECONNREFUSED 127.0.0.1:9", from an error and its causes. */
function causes(error: Error): string {
  const messages: string[] = [];
  for (let e: unknown = error; e instanceof Error && messages.length < 4; e = e.cause) {
    messages.push(e.message.replace(/\.$/, ""));
  }
  return messages.join(": ");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a whole number of at least 1, not ${value}`);
  }
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be at least 0, not ${value}`);
  return value;
}
