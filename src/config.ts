import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { z } from "zod";

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no", "on", "off"], {
    error: "expected true or false",
  })
  .transform((value) => ["true", "1", "yes", "on"].includes(value));

// one message for every way a value misses, naming the range: "expected a whole number" alone reads wrong for 0.
// Decimal digits only: Number() reads " " as 0 (PORT=" " took a random port) and takes 0x1000 or 4e3 as well
const int = (min: number, max: number = Number.MAX_SAFE_INTEGER) => {
  const error = `expected a whole number ${max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`}`;
  return z
    .string()
    .regex(/^\s*[+-]?\d+\s*$/, error)
    .transform(Number)
    .pipe(z.number().int(error).min(min, error).max(max, error));
};

const url = (protocols: string[]) =>
  z.url({ protocol: new RegExp(`^(${protocols.join("|")})$`), error: `expected a URL starting ${protocols.map((p) => `${p}://`).join(" or ")}` });

// a service's address, to which the client adds its own paths: a query or fragment would be dropped, and a key
// has its own setting (a user and password in the URL would be sent, and logged with it)
const serviceUrl = (protocols: string[]) =>
  url(protocols).refine((value) => {
    const parsed = new URL(value);
    return !parsed.username && !parsed.password && !parsed.search && !parsed.hash;
  }, "must have no user, password, query or fragment (a key goes in its own setting)");

// exact origins, as browsers send them in Origin: a trailing slash or a path would silently never match
const origins = z.string().transform((value, ctx) => {
  const list = value.split(",").map((origin) => origin.trim()).filter(Boolean);
  if (list.includes("*")) {
    if (list.length > 1) ctx.addIssue({ code: "custom", message: "* allows every origin: list no others with it" });
    return ["*"];
  }
  for (const origin of list) {
    if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
      ctx.addIssue({ code: "custom", message: `${origin} is not an origin like https://app.example.com` });
    }
  }
  return list;
});

/**
 * Every environment variable the service reads. README's configuration table is written from this list;
 * keep the two in step.
 */
const schema = z.object({
  PORT: int(0, 65535).default(4000),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATA_DIR: z.string().min(1).default("./.data"),
  // PGlite's WebAssembly heap is 32-bit: from about 1 980 MB on it fails to start (seen at 2 048-4 096)
  PGLITE_SHARED_BUFFERS_MB: int(1, 1024).default(32),
  DATABASE_URL: url(["postgresql", "postgres"]).optional(),
  DATABASE_POOL_SIZE: int(1, 200).default(10),
  DATABASE_TIMEOUT_MS: int(1_000, 600_000).default(30_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),

  VECTOR_INDEX: z.enum(["auto", "usearch", "pgvector", "exact"]).default("auto"),
  EXACT_SEARCH_MAX_MEMORIES: int(1).default(5_000),
  QDRANT_URL: serviceUrl(["http", "https"]).optional(),
  QDRANT_API_KEY: z.string().min(1).optional(),
  EMBEDDER: z.enum(["auto", "use", "hash", "openai"]).default("auto"),
  EMBEDDING_THREADS: int(1, 64).default(Math.min(4, availableParallelism())),
  EMBEDDER_WAIT_MS: int(1, 600_000).default(10_000),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: serviceUrl(["http", "https"]).optional(),
  EMBEDDING_MODEL: z.string().min(1).default("text-embedding-3-small"),
  EMBEDDING_DIMENSIONS: int(1, 16000).optional(),

  RATE_LIMIT_MAX: int(1).default(600),
  MAX_KEYS_PER_USER: int(1, 10000).default(20),
  // Node.js timers hold at most 2^31 - 1 ms (24.8 days): a longer window overflowed to 1 ms, and limited nothing
  RATE_LIMIT_WINDOW_SECONDS: int(1, 2_147_483).default(60),
  REDIS_URL: url(["redis", "rediss"]).optional(),
  AUTH_FAILURE_LIMIT_MAX: int(1).default(20),
  AUTH_FAILURE_WINDOW_SECONDS: int(1, 2_147_483).default(60),
  TRUST_PROXY_HOPS: int(0, 10).default(0),
  LEGACY_SUNSET_ENFORCE: bool.default(false),

  MAX_CONTENT_CHARS: int(1).default(100_000),
  MAX_TAGS: int(0, 1000).default(50),
  MAX_TAG_CHARS: int(1, 1000).default(64),
  MAX_METADATA_BYTES: int(2).default(16 * 1024),
  MAX_BODY_BYTES: int(1024).default(2 * 1024 * 1024),
  MAX_IMPORT_BYTES: int(1024).default(1024 * 1024 * 1024),

  HTTP_HEADERS_TIMEOUT_SECONDS: int(1, 3600).default(10),
  HTTP_REQUEST_TIMEOUT_SECONDS: int(1, 3600).default(30),
  HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: int(1, 3600).default(5),
  HTTP_MAX_CONNECTIONS: int(1).default(1024),
  HTTP_MAX_EVENT_STREAMS_PER_USER: int(1).default(100),

  GRAPHIQL: bool.default(true),
  GRAPHQL_INTROSPECTION: bool.default(true),
  // a timer of its own, plus 15 s for the database's close (main.ts), within a Node.js timer's 2^31 - 1 ms
  SHUTDOWN_TIMEOUT_MS: int(0, 3_600_000).default(10_000),
  SHUTDOWN_IDLE_GRACE_MS: int(0, 60_000).default(1_000),

  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  WEBHOOK_MAX_ATTEMPTS: int(1, 100).default(7),
  WEBHOOK_RETRY_BASE_MS: int(1, 86_400_000).default(30_000),
  WEBHOOK_TIMEOUT_MS: int(100, 120_000).default(10_000),
  WEBHOOK_DISABLE_AFTER_SECONDS: int(1).default(5 * 24 * 3600),
  WEBHOOK_SECRET_OVERLAP_HOURS: int(0, 24 * 30).default(24),

  DEDUPE: z.enum(["off", "exact", "near"]).default("off"),
  DEDUPE_NEAR_SIMILARITY: z
    .string()
    .regex(/^\s*(\d+\.?\d*|\.\d+)\s*$/, "expected a number from 0 to 1")
    .transform(Number)
    .pipe(z.number().max(1, "expected a number from 0 to 1"))
    .default(0.95),

  HISTORY_RETENTION_DAYS: int(0, 36_500).default(30),
  EXPIRY_SWEEP_SECONDS: int(1, 86_400).default(60),
  READINESS_TIMEOUT_MS: int(1, 60_000).default(2_000),
  METRICS_TOKEN: z.string().min(1).optional(),
  CORS_ORIGINS: origins.optional(),
  HSTS_MAX_AGE_SECONDS: int(0).optional(),
});

export type Env = z.input<typeof schema>;

/** The names of every setting, for the test that keeps README's table complete. */
export const SETTING_NAMES = Object.keys(schema.shape);

export interface Limits {
  maxContentChars: number;
  maxTags: number;
  maxTagChars: number;
  maxMetadataBytes: number;
  maxBodyBytes: number;
  /** One import (POST /api/v1/import): its whole NDJSON body; each line is bounded by maxBodyBytes. */
  maxImportBytes: number;
}

/** How long a client may take, and how many may be connected: Node's defaults let a slow client hold a socket for minutes. */
export interface HttpLimits {
  /** To send the request's headers. */
  headersTimeoutMs: number;
  /** To send the whole request, body included (the answer's time does not count). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Connections beyond this are refused at once. */
  maxConnections: number;
  /** Subscriptions' event streams one user may hold open on this instance at once. */
  maxEventStreamsPerUser: number;
}

/** The duplicate guard on creates (src/domain/dedupe.ts). */
export interface DedupeSettings {
  /** The rule for creates that do not say (DEDUPE); `dedupe: true` is `exact` unless this is `near`. */
  mode: "off" | "exact" | "near";
  /** The least cosine similarity at which `near` takes two texts for one (DEDUPE_NEAR_SIMILARITY). */
  nearSimilarity: number;
  /** How many of the user's newest memories of the same type and thread a near check compares at most. */
  nearScanMax: number;
}

/** How webhook deliveries are made and retried. */
export interface WebhookSettings {
  /** Endpoints over http, and on loopback, private, link-local or metadata addresses (for tests and development). */
  allowPrivate: boolean;
  /** Attempts of one delivery before it is given up. */
  maxAttempts: number;
  /** The wait before the second attempt; each later wait is four times the one before. */
  retryBaseMs: number;
  /** One attempt, from connecting to the response's headers. */
  timeoutMs: number;
  /** An endpoint that has failed every attempt for this long is disabled. */
  disableAfterMs: number;
  /** After a secret's rotation, deliveries are signed with the previous secret as well for this long. */
  secretOverlapMs: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** The embedded PostgreSQL's page cache (shared_buffers), in MB. */
  pgliteSharedBuffersMb: number;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** PostgreSQL: how long a request may wait for a connection (when all are busy, or while one is made). */
  databaseTimeoutMs: number;
  logLevel: z.infer<typeof schema>["LOG_LEVEL"];
  /** The vector index when QDRANT_URL is not set; "auto" picks the fastest the database allows. */
  vectorIndex: "auto" | "usearch" | "pgvector" | "exact";
  /** With no vector index (the exact scan), how many of a user's newest memories a search compares at most. */
  exactSearchMaxMemories: number;
  qdrant: { url: string; apiKey: string | undefined } | undefined;
  /** Which embedder makes vectors; "auto" is the OpenAI-compatible one when configured, else the sentence encoder. */
  embedder: "use" | "hash" | "openai";
  /** Worker threads of the sentence encoder. */
  embeddingThreads: number;
  /** How long a request waits for the embedder (a create's vector, a search's query) before going on without it. */
  embedderWaitMs: number;
  openai: { apiKey: string; baseUrl: string | undefined; model: string; dimensions: number | undefined } | undefined;
  /** Live API keys a user may hold when making their own (createApiKey); the CLI is not bound by it. */
  maxKeysPerUser: number;
  rateLimit: { max: number; windowSeconds: number; redisUrl: string | undefined };
  /** Shared by the instances of one deployment: rate-limit counts and live events. */
  redisUrl: string | undefined;
  /** Failed authentications (a key presented and refused) allowed per client address and window. */
  authFailureLimit: { max: number; windowSeconds: number };
  /** How many proxies in front of the service append to X-Forwarded-For (0: the socket's address is the client). */
  trustProxyHops: number;
  legacySunsetEnforce: boolean;
  limits: Limits;
  http: HttpLimits;
  graphiql: boolean;
  introspection: boolean;
  shutdownTimeoutMs: number;
  /** How long idle keep-alive connections stay open after SIGTERM, answering what arrives on them with Connection: close. */
  shutdownIdleGraceMs: number;
  webhooks: WebhookSettings;
  dedupe: DedupeSettings;
  /** How long the history of a deleted memory is kept. */
  historyRetentionDays: number;
  /** How often expired memories are deleted (reads leave them out from their expiry on). */
  expirySweepSeconds: number;
  /** How long each /readyz check may take before it counts as failed. */
  readinessTimeoutMs: number;
  /** When set, /metrics wants it as a Bearer token; when not, /metrics is open to whoever reaches the port. */
  metricsToken: string | undefined;
  /** The origins browser frontends may call from, or ["*"] for any; empty: no CORS headers at all. */
  corsOrigins: string[];
  /** Strict-Transport-Security's max-age, for deployments served over TLS; not sent when unset. */
  hstsMaxAgeSeconds: number | undefined;
  /** Settings given that the rest leave unused, each saying why: warned of at start, as a typo or a mix-up may be. */
  unused: string[];
}

/**
 * A setting the process cannot run with: as written, or what it points to (a database that refuses, a directory
 * that is a file). Its message names the setting and is shown alone, without a stack.
 */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** `url` as a message may show it: without its password. */
export function withoutPassword(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.href;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // an empty variable means "not set", as it does for most shells' `VAR= command`
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join("\n  ")}`);
  }
  const e = parsed.data;
  const openaiConfigured = Boolean(e.OPENAI_API_KEY || e.OPENAI_BASE_URL);
  const conflicts = [
    e.EMBEDDER === "openai" && !openaiConfigured && "EMBEDDER: openai needs OPENAI_API_KEY or OPENAI_BASE_URL",
    e.QDRANT_API_KEY && !e.QDRANT_URL && "QDRANT_API_KEY: set without QDRANT_URL, it would go unused",
    // the request's timeout bounds its headers too: a longer one set on purpose would silently not hold
    present.HTTP_HEADERS_TIMEOUT_SECONDS !== undefined &&
      e.HTTP_HEADERS_TIMEOUT_SECONDS > e.HTTP_REQUEST_TIMEOUT_SECONDS &&
      `HTTP_HEADERS_TIMEOUT_SECONDS: at most HTTP_REQUEST_TIMEOUT_SECONDS (${e.HTTP_REQUEST_TIMEOUT_SECONDS}), which bounds the headers too`,
  ].filter((problem) => typeof problem === "string");
  if (conflicts.length) throw new ConfigError(`Invalid configuration:\n  ${conflicts.join("\n  ")}`);
  const embedder = e.EMBEDDER === "auto" ? (openaiConfigured ? "openai" : "use") : e.EMBEDDER;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR.startsWith("memory://") ? e.DATA_DIR : resolve(e.DATA_DIR),
    pgliteSharedBuffersMb: e.PGLITE_SHARED_BUFFERS_MB,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseTimeoutMs: e.DATABASE_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    vectorIndex: e.VECTOR_INDEX,
    exactSearchMaxMemories: e.EXACT_SEARCH_MAX_MEMORIES,
    qdrant: e.QDRANT_URL ? { url: e.QDRANT_URL, apiKey: e.QDRANT_API_KEY } : undefined,
    embedder,
    embeddingThreads: e.EMBEDDING_THREADS,
    embedderWaitMs: e.EMBEDDER_WAIT_MS,
    openai: openaiConfigured
        ? {
            // local OpenAI-compatible servers (Ollama, vLLM, TEI) accept any key
            apiKey: e.OPENAI_API_KEY ?? "unused",
            baseUrl: e.OPENAI_BASE_URL,
            model: e.EMBEDDING_MODEL,
            dimensions: e.EMBEDDING_DIMENSIONS,
          }
        : undefined,
    maxKeysPerUser: e.MAX_KEYS_PER_USER,
    rateLimit: { max: e.RATE_LIMIT_MAX, windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS, redisUrl: e.REDIS_URL },
    redisUrl: e.REDIS_URL,
    authFailureLimit: { max: e.AUTH_FAILURE_LIMIT_MAX, windowSeconds: e.AUTH_FAILURE_WINDOW_SECONDS },
    trustProxyHops: e.TRUST_PROXY_HOPS,
    legacySunsetEnforce: e.LEGACY_SUNSET_ENFORCE,
    limits: {
      maxContentChars: e.MAX_CONTENT_CHARS,
      maxTags: e.MAX_TAGS,
      maxTagChars: e.MAX_TAG_CHARS,
      maxMetadataBytes: e.MAX_METADATA_BYTES,
      maxBodyBytes: e.MAX_BODY_BYTES,
      maxImportBytes: e.MAX_IMPORT_BYTES,
    },
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
      maxConnections: e.HTTP_MAX_CONNECTIONS,
      maxEventStreamsPerUser: e.HTTP_MAX_EVENT_STREAMS_PER_USER,
    },
    graphiql: e.GRAPHIQL,
    introspection: e.GRAPHQL_INTROSPECTION,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    shutdownIdleGraceMs: e.SHUTDOWN_IDLE_GRACE_MS,
    webhooks: {
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      disableAfterMs: e.WEBHOOK_DISABLE_AFTER_SECONDS * 1000,
      secretOverlapMs: e.WEBHOOK_SECRET_OVERLAP_HOURS * 3_600_000,
    },
    // a near check compares the same newest memories an exact-scan search would
    dedupe: { mode: e.DEDUPE, nearSimilarity: e.DEDUPE_NEAR_SIMILARITY, nearScanMax: e.EXACT_SEARCH_MAX_MEMORIES },
    historyRetentionDays: e.HISTORY_RETENTION_DAYS,
    expirySweepSeconds: e.EXPIRY_SWEEP_SECONDS,
    readinessTimeoutMs: e.READINESS_TIMEOUT_MS,
    metricsToken: e.METRICS_TOKEN,
    corsOrigins: e.CORS_ORIGINS ?? [],
    hstsMaxAgeSeconds: e.HSTS_MAX_AGE_SECONDS,
    unused: unusedSettings(new Set(Object.keys(present)), e, embedder),
  };
}

/**
 * The settings in `given` that go unused with the rest of the configuration, each with why. Not errors: an
 * environment may hold OPENAI_API_KEY for other programs, say, while this service runs another embedder.
 */
function unusedSettings(given: ReadonlySet<string>, e: z.infer<typeof schema>, embedder: Config["embedder"]): string[] {
  const unusedWhen = (reason: string | false, names: string[]) =>
    reason ? names.filter((name) => given.has(name)).map((name) => `${name} is set but unused: ${reason}`) : [];
  return [
    ...unusedWhen(embedder !== "openai" && `EMBEDDER is ${embedder}`, ["OPENAI_API_KEY", "OPENAI_BASE_URL", "EMBEDDING_MODEL", "EMBEDDING_DIMENSIONS"]),
    ...unusedWhen(embedder !== "use" && `EMBEDDER is ${embedder}, not the sentence encoder`, ["EMBEDDING_THREADS"]),
    ...unusedWhen(e.DATABASE_URL !== undefined && "DATABASE_URL is set (PostgreSQL, not the embedded database)", ["PGLITE_SHARED_BUFFERS_MB"]),
    ...unusedWhen(e.DATABASE_URL === undefined && "DATABASE_URL is not set (the embedded database)", ["DATABASE_POOL_SIZE", "DATABASE_TIMEOUT_MS"]),
    ...unusedWhen(e.QDRANT_URL !== undefined && "QDRANT_URL is set (Qdrant is the vector index)", ["VECTOR_INDEX"]),
    ...unusedWhen(e.DEDUPE !== "near" && `DEDUPE is ${e.DEDUPE}: only near compares similarity`, ["DEDUPE_NEAR_SIMILARITY"]),
  ];
}
