import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An in-process stand-in for Qdrant's REST API, in its wire format (`{"result", "status": "ok", "time"}`,
 * errors as `{"status": {"error"}}` with Qdrant's HTTP statuses), so that tests drive the real
 * `@qdrant/js-client-rest` code path. It covers what the service's adapter uses: collections with one unnamed
 * vector, payload indexes (recorded, for assertions), upsert / delete / query / count of points with real filter
 * evaluation, and exact (brute-force) similarity. Like Qdrant it checks the `api-key` header when it has a key,
 * except on `/` and the health endpoints. `failNext` makes requests fail, to test error paths.
 */

type Payload = Record<string, unknown>;

export interface FakePoint {
  id: string | number;
  /** As Qdrant stores it: normalised for Cosine collections. */
  vector: number[];
  payload: Payload;
  version: number;
}

export interface FakeCollection {
  size: number;
  distance: string;
  metadata: Payload | null;
  /** Payload indexes by field: as `payload_schema` reports them. */
  indexes: Map<string, { data_type: string; params?: Payload }>;
  points: Map<string, FakePoint>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface FakeQdrantOptions {
  /** When set, every request but `/` and the health endpoints must carry it, as Qdrant requires. */
  apiKey?: string;
  /** What `GET /` reports; the client in use is 1.18. */
  version?: string;
  /** Where to listen (a Qdrant back on the port it left); any free port by default. */
  port?: number;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const DISTANCES = ["Cosine", "Euclid", "Dot", "Manhattan"];
const OPEN_PATHS = [/^\/$/, /^\/healthz$/, /^\/readyz/, /^\/livez/];
const UUID = /^(?:urn:uuid:)?\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;

export class FakeQdrant {
  readonly requests: RecordedRequest[] = [];
  readonly collections = new Map<string, FakeCollection>();
  private faults = { remaining: 0, status: 500 };
  private operationId = 0;

  private constructor(
    private readonly server: Server,
    private readonly options: FakeQdrantOptions,
  ) {}

  static async start(options: FakeQdrantOptions = {}): Promise<FakeQdrant> {
    const server = createServer();
    const fake = new FakeQdrant(server, options);
    server.on("request", (req: IncomingMessage, res: ServerResponse) => void fake.handle(req, res));
    await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next `count` requests (after authentication) fail with `status`. */
  failNext(count: number, status = 500): void {
    this.faults = { remaining: count, status };
  }

  /** The recorded requests whose path ends with `suffix` (such as "/points/query"). */
  requestsTo(method: string, suffix: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.endsWith(suffix));
  }

  async close(): Promise<void> {
    // the client keeps connections alive; close() alone would wait for them
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const url = new URL(req.url ?? "/", "http://fake");
    const method = req.method ?? "GET";
    const time = () => (performance.now() - started) / 1000;
    try {
      const body = await readJson(req);
      this.requests.push({ method, path: url.pathname, query: url.searchParams, headers: req.headers, body });
      if (this.refusedCredentials(req, url.pathname, res)) return;
      if (this.faults.remaining > 0) {
        this.faults.remaining--;
        throw new HttpError(this.faults.status, "Service internal error: injected by the fake");
      }
      if (method === "GET" && url.pathname === "/") {
        // the one answer Qdrant does not wrap in {"result"}
        send(res, 200, { title: "qdrant - vector search engine", version: this.options.version ?? "1.18.0", commit: "fake" });
        return;
      }
      const result = this.route(method, url, body);
      if (result === undefined) {
        res.writeHead(404).end();
        return;
      }
      send(res, 200, { result: result.value, status: "ok", time: time() });
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      send(res, status, { status: { error: message }, time: time() });
    }
  }

  /** Qdrant answers authentication failures with 401 and a plain-text reason. */
  private refusedCredentials(req: IncomingMessage, path: string, res: ServerResponse): boolean {
    if (!this.options.apiKey || OPEN_PATHS.some((open) => open.test(path))) return false;
    const bearer = req.headers.authorization?.replace(/^Bearer /, "");
    const key = req.headers["api-key"] ?? bearer;
    if (key === this.options.apiKey) return false;
    const reason = key ? "Invalid API key or JWT" : "Must provide an API key or an Authorization bearer token";
    res.writeHead(401, { "content-type": "text/plain; charset=utf-8" }).end(reason);
    return true;
  }

  /** The request's result, or undefined for a route Qdrant does not have. */
  private route(method: string, url: URL, body: unknown): { value: unknown } | undefined {
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    const route = `${method} /${parts.map((part, i) => (i === 1 && parts[0] === "collections" ? "{name}" : part)).join("/")}`;
    const name = parts[1] ?? "";
    const wrap = (value: unknown) => ({ value });
    switch (route) {
      case "GET /collections":
        return wrap({ collections: [...this.collections.keys()].map((n) => ({ name: n })) });
      case "GET /collections/{name}":
        return wrap(describeCollection(this.collection(name)));
      case "GET /collections/{name}/exists":
        return wrap({ exists: this.collections.has(name) });
      case "PUT /collections/{name}":
        return wrap(this.createCollection(name, body));
      case "PATCH /collections/{name}":
        return wrap(this.updateCollection(name, body));
      case "DELETE /collections/{name}":
        return wrap(this.collections.delete(name));
      case "PUT /collections/{name}/index":
        return wrap(this.createIndex(name, body, url));
      case "PUT /collections/{name}/points":
        return wrap(this.upsert(name, body, url));
      case "POST /collections/{name}/points/delete":
        return wrap(this.deletePoints(name, body, url));
      case "POST /collections/{name}/points/query":
        return wrap({ points: this.query(name, body) });
      case "POST /collections/{name}/points/count":
        return wrap({ count: this.matching(this.collection(name), object(body).filter).length });
      default:
        return undefined;
    }
  }

  private collection(name: string): FakeCollection {
    const collection = this.collections.get(name);
    if (!collection) throw new HttpError(404, `Not found: Collection \`${name}\` doesn't exist!`);
    return collection;
  }

  private createCollection(name: string, body: unknown): true {
    if (!/^[^<>:"/\\|?*\0]{1,255}$/.test(name)) {
      throw new HttpError(422, `Validation error in path parameters: [name: invalid collection name ${JSON.stringify(name)}]`);
    }
    if (this.collections.has(name)) throw new HttpError(409, `Wrong input: Collection \`${name}\` already exists!`);
    const { vectors, metadata } = object(body);
    const params = object(vectors);
    if (!Number.isInteger(params.size) || (params.size as number) < 1 || !DISTANCES.includes(String(params.distance))) {
      throw new HttpError(422, "Validation error in JSON body: fake supports one unnamed vector { size, distance }");
    }
    this.collections.set(name, {
      size: params.size as number,
      distance: String(params.distance),
      metadata: metadata === undefined || metadata === null ? null : object(metadata),
      indexes: new Map(),
      points: new Map(),
    });
    return true;
  }

  /** Qdrant merges the metadata given into the collection's (an empty object clears it). */
  private updateCollection(name: string, body: unknown): true {
    const collection = this.collection(name);
    const { metadata } = object(body);
    if (metadata !== undefined && metadata !== null) {
      const update = object(metadata);
      collection.metadata = Object.keys(update).length === 0 ? null : { ...collection.metadata, ...update };
    }
    return true;
  }

  private createIndex(name: string, body: unknown, url: URL): unknown {
    const collection = this.collection(name);
    const { field_name: field, field_schema: schema } = object(body);
    if (typeof field !== "string") throw new HttpError(400, "Format error in JSON body: missing field `field_name`");
    const params = typeof schema === "string" ? undefined : object(schema);
    const dataType = typeof schema === "string" ? schema : params?.type;
    if (typeof dataType !== "string") throw new HttpError(400, "Format error in JSON body: bad `field_schema`");
    collection.indexes.set(field, params ? { data_type: dataType, params } : { data_type: dataType });
    return this.updated(url);
  }

  private upsert(name: string, body: unknown, url: URL): unknown {
    const collection = this.collection(name);
    const { points } = object(body);
    if (!Array.isArray(points)) throw new HttpError(422, "Validation error in JSON body: fake supports the `points` form only");
    const version = ++this.operationId;
    const parsed = points.map((raw): FakePoint => {
      const point = object(raw);
      return {
        id: pointId(point.id),
        vector: this.vector(collection, point.vector),
        payload: point.payload === undefined || point.payload === null ? {} : object(point.payload),
        version,
      };
    });
    // validated first: Qdrant applies a request whole or not at all
    for (const point of parsed) collection.points.set(String(point.id), point);
    return this.updated(url, version);
  }

  private deletePoints(name: string, body: unknown, url: URL): unknown {
    const collection = this.collection(name);
    const selector = object(body);
    if (!Array.isArray(selector.points) && !isObject(selector.filter)) {
      throw new HttpError(400, "Format error in JSON body: expected `points` or `filter`");
    }
    const doomed = Array.isArray(selector.points)
      ? selector.points.map((id) => String(pointId(id)))
      : this.matching(collection, selector.filter).map((point) => String(point.id));
    for (const id of doomed) collection.points.delete(id);
    return this.updated(url);
  }

  private query(name: string, body: unknown): unknown[] {
    const collection = this.collection(name);
    const request = object(body);
    const rawQuery = isObject(request.query) ? request.query.nearest : request.query;
    if (request.prefetch !== undefined || request.using !== undefined) {
      throw new HttpError(422, "Validation error in JSON body: fake supports a plain nearest query only");
    }
    const query = this.vector(collection, rawQuery);
    const limit = request.limit === undefined ? 10 : Number(request.limit);
    const offset = request.offset === undefined ? 0 : Number(request.offset);
    const threshold = typeof request.score_threshold === "number" ? request.score_threshold : -Infinity;
    return this.matching(collection, request.filter)
      .map((point) => ({ point, score: similarity(collection.distance, query, point.vector) }))
      .filter(({ score }) => score >= threshold)
      .sort((a, b) => b.score - a.score)
      .slice(offset, offset + limit)
      .map(({ point, score }) => ({
        id: point.id,
        version: point.version,
        score,
        ...(request.with_payload === true ? { payload: point.payload } : {}),
        ...(request.with_vector === true ? { vector: point.vector } : {}),
      }));
  }

  private vector(collection: FakeCollection, value: unknown): number[] {
    if (!Array.isArray(value) || !value.every((x) => typeof x === "number")) {
      throw new HttpError(400, "Format error in JSON body: expected a dense vector");
    }
    if (value.length !== collection.size) {
      throw new HttpError(400, `Wrong input: Vector dimension error: expected dim: ${collection.size}, got ${value.length}`);
    }
    return collection.distance === "Cosine" ? normalise(value) : value;
  }

  private matching(collection: FakeCollection, filter: unknown): FakePoint[] {
    const points = [...collection.points.values()];
    return filter === undefined || filter === null ? points : points.filter((point) => passes(point, filter));
  }

  private updated(url: URL, operationId = ++this.operationId): unknown {
    return { operation_id: operationId, status: url.searchParams.get("wait") === "true" ? "completed" : "acknowledged" };
  }
}

function describeCollection(c: FakeCollection): unknown {
  const payloadSchema = Object.fromEntries(
    [...c.indexes].map(([field, index]) => [
      field,
      { ...index, points: [...c.points.values()].filter((p) => values(p.payload, field).length > 0).length },
    ]),
  );
  return {
    status: "green",
    optimizer_status: "ok",
    indexed_vectors_count: 0,
    points_count: c.points.size,
    segments_count: 1,
    config: {
      params: { vectors: { size: c.size, distance: c.distance }, shard_number: 1, replication_factor: 1, write_consistency_factor: 1, on_disk_payload: true },
      hnsw_config: { m: 16, ef_construct: 100, full_scan_threshold: 10000, max_indexing_threads: 0, on_disk: false },
      optimizer_config: { deleted_threshold: 0.2, vacuum_min_vector_number: 1000, default_segment_number: 0, max_segment_size: null, memmap_threshold: null, indexing_threshold: 10000, flush_interval_sec: 5, max_optimization_threads: null },
      wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0 },
      quantization_config: null,
      ...(c.metadata ? { metadata: c.metadata } : {}),
    },
    payload_schema: payloadSchema,
  };
}

/** Qdrant's filter semantics: every `must`, one of the `should` (when given, even empty), no `must_not`. */
function passes(point: FakePoint, filter: unknown): boolean {
  const f = object(filter);
  if (f.min_should !== undefined && f.min_should !== null) throw new HttpError(422, "fake: min_should is not supported");
  const list = (value: unknown): unknown[] => (value === undefined || value === null ? [] : Array.isArray(value) ? value : [value]);
  const shouldHolds = f.should === undefined || f.should === null || list(f.should).some((c) => holds(point, c));
  return shouldHolds && list(f.must).every((c) => holds(point, c)) && !list(f.must_not).some((c) => holds(point, c));
}

function holds(point: FakePoint, condition: unknown): boolean {
  const c = object(condition);
  if (typeof c.key === "string") return fieldHolds(point.payload, c.key, c);
  if (Array.isArray(c.has_id)) return c.has_id.some((id) => String(pointId(id)) === String(point.id));
  if (isObject(c.is_empty) && typeof c.is_empty.key === "string") return values(point.payload, c.is_empty.key).length === 0;
  if (isObject(c.is_null) && typeof c.is_null.key === "string") return at(point.payload, c.is_null.key) === null;
  if ("must" in c || "should" in c || "must_not" in c) return passes(point, c);
  throw new HttpError(422, `fake: unsupported condition ${JSON.stringify(c)}`);
}

function fieldHolds(payload: Payload, key: string, c: Payload): boolean {
  const found = values(payload, key);
  if (isObject(c.match)) {
    const match = c.match;
    if ("value" in match) return found.some((v) => v === match.value);
    if (Array.isArray(match.any)) return found.some((v) => (match.any as unknown[]).includes(v));
    if (Array.isArray(match.except)) return found.some((v) => !(match.except as unknown[]).includes(v));
    throw new HttpError(422, `fake: unsupported match ${JSON.stringify(match)}`);
  }
  if (isObject(c.range)) return found.some((v) => inRange(v, object(c.range)));
  if (c.is_empty === true) return found.length === 0;
  if (c.is_null === true) return at(payload, key) === null;
  throw new HttpError(422, `fake: unsupported field condition ${JSON.stringify(c)}`);
}

/** A numeric range, or a datetime range when its bounds are strings (RFC 3339), as Qdrant tells them apart. */
function inRange(value: unknown, range: Payload): boolean {
  const bounds = (["gt", "gte", "lt", "lte"] as const).filter((b) => range[b] !== undefined && range[b] !== null);
  const datetime = bounds.some((b) => typeof range[b] === "string");
  const toNumber = (v: unknown): number => (datetime ? (typeof v === "string" ? Date.parse(v) : NaN) : typeof v === "number" ? v : NaN);
  const x = toNumber(value);
  if (Number.isNaN(x)) return false;
  return bounds.every((b) => {
    const bound = toNumber(range[b]);
    if (Number.isNaN(bound)) throw new HttpError(400, `Format error in JSON body: bad range bound ${JSON.stringify(range[b])}`);
    return b === "gt" ? x > bound : b === "gte" ? x >= bound : b === "lt" ? x < bound : x <= bound;
  });
}

/** The values of a payload field: an array field contributes each element; null and missing none. */
function values(payload: Payload, key: string): unknown[] {
  const value = at(payload, key);
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value.filter((v) => v !== null) : [value];
}

/**
 * The value at a key, nested keys separated by dots ("a.b.c"), reached through objects only: Qdrant projects
 * the objects of an array only when the key says so (`a[].b`), which the fake does not support.
 */
function at(payload: Payload, key: string): unknown {
  if (/[[\]"]/.test(key)) throw new HttpError(422, `fake: unsupported key ${JSON.stringify(key)}`);
  let value: unknown = payload;
  for (const part of key.split(".")) {
    if (!isObject(value) || !Object.hasOwn(value, part)) return undefined;
    value = value[part];
  }
  return value;
}

function similarity(distance: string, a: number[], b: number[]): number {
  const dot = a.reduce((sum, x, i) => sum + x * b[i]!, 0);
  if (distance === "Cosine" || distance === "Dot") return dot;
  throw new HttpError(422, `fake: ${distance} distance is not supported`);
}

function normalise(vector: number[]): number[] {
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((x) => x / norm);
}

/** A point id as Qdrant keeps it: an unsigned integer, or a UUID in its hyphenated lower-case form. */
function pointId(value: unknown): string | number {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  const parts = typeof value === "string" ? UUID.exec(value) : null;
  if (parts) return parts.slice(1).join("-").toLowerCase();
  throw new HttpError(
    400,
    `Format error in JSON body: value ${JSON.stringify(value)} is not a valid point ID, valid values are either an unsigned integer or a UUID`,
  );
}

function isObject(value: unknown): value is Payload {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function object(value: unknown): Payload {
  if (!isObject(value)) throw new HttpError(400, `Format error in JSON body: expected an object, got ${JSON.stringify(value)}`);
  return value;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, `Format error in JSON body: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
