import { existsSync } from "node:fs";
import { readFile, realpath, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, resolve, sep } from "node:path";
import { AppError } from "../errors.ts";
import { projectPath } from "../project-root.ts";
import { restErrorReply } from "../rest/errors.ts";
import { send } from "../transport/reply.ts";
import { etagOf, IMMUTABLE, precompressed, sendStatic, type StaticFile } from "../transport/static-file.ts";

/** Where `npm run build:dashboard` (Vite, dashboard/vite.config.ts) writes the dashboard. */
export const DASHBOARD_DIST = projectPath("dashboard", "dist");

const MOUNT = "/dashboard";

/** Whether the dashboard is built here; when not, /dashboard answers 503 (the rest of the service is unaffected). */
export const dashboardBuilt = (dist = DASHBOARD_DIST): boolean => existsSync(resolve(dist, "index.html"));

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
};

/** The page may load and call nothing but this server. */
const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; "),
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

/** Vite names every built asset after its content (`assets/index-Baq81_1R.js`): those never change. */
const HASHED_ASSET = /^assets\/.+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

export type DashboardHandler = (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean;

/**
 * Serves the built dashboard from `dist` at /dashboard/. Returns false, having done nothing, for any other path;
 * otherwise it answers the request (asynchronously) and returns true.
 */
export function createDashboardHandler(dist: string): DashboardHandler {
  const root = resolve(dist);
  return (req, res, pathname) => {
    if (pathname !== MOUNT && !pathname.startsWith(`${MOUNT}/`)) return false;
    // every expected failure is answered inside serve(); this is the last resort for a bug
    serve(root, req, res).catch(() => {
      if (res.headersSent) res.destroy();
      else fail(res, new AppError("INTERNAL", "Internal server error"));
    });
    return true;
  };
}

/** The dashboard at /dashboard/, from dashboard/dist. Mounted by src/server.ts before the REST routes. */
export const serveDashboard: DashboardHandler = createDashboardHandler(DASHBOARD_DIST);

// text compresses; images and fonts are compressed already
const COMPRESSIBLE = /^(text\/|application\/(json|manifest\+json)|image\/svg\+xml)/;

/**
 * The dashboard's files as served, each read and compressed once (br and gzip, each with an ETag of its own: the
 * compression middleware kept the identity's ETag on every encoding) until its file changes.
 */
const files = new Map<string, { mtimeMs: number; file: StaticFile }>();

async function cached(path: string, mtime: Date): Promise<StaticFile | undefined> {
  const hit = files.get(path);
  if (hit?.mtimeMs === mtime.getTime()) return hit.file;
  let body: Buffer;
  try {
    body = await readFile(path);
  } catch {
    return undefined;
  }
  const type = CONTENT_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
  const file = COMPRESSIBLE.test(type) ? await precompressed(type, body) : { type, etag: etagOf(body), identity: body };
  files.set(path, { mtimeMs: mtime.getTime(), file });
  return file;
}

async function serve(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? "GET";
  if (method !== "GET" && method !== "HEAD") {
    return fail(res, new AppError("METHOD_NOT_ALLOWED", `${method} is not allowed on the dashboard`, { headers: { allow: "GET, HEAD" } }));
  }
  // the raw path: the server's router drops a trailing slash, and here /dashboard and /dashboard/ differ
  const url = new URL(req.url ?? "/", "http://localhost");
  if (url.pathname === MOUNT) {
    res.writeHead(308, { location: `${MOUNT}/${url.search}`, "content-length": 0, ...SECURITY_HEADERS });
    res.end();
    return;
  }
  if (!url.pathname.startsWith(`${MOUNT}/`)) return fail(res, new AppError("NOT_FOUND", `No file at ${url.pathname}`));

  const relative = safeRelativePath(url.pathname.slice(MOUNT.length + 1));
  if (relative === undefined) return fail(res, new AppError("NOT_FOUND", `No file at ${url.pathname}`));
  if (!(await isFile(resolve(root, "index.html")))) {
    return fail(
      res,
      new AppError("SERVICE_UNAVAILABLE", "The dashboard is not built on this server: run `npm run build:dashboard` (or `npm install`) and restart."),
    );
  }
  const file = await insideRoot(root, relative === "" ? "index.html" : relative);
  if (!file) return fail(res, new AppError("NOT_FOUND", `No file at ${url.pathname}`));

  const served = await cached(file.path, file.mtime);
  if (!served) return fail(res, new AppError("NOT_FOUND", `No file at ${url.pathname}`)); // gone since: a rebuild under way
  sendStatic(req, res, served, {
    ...SECURITY_HEADERS,
    "cache-control": HASHED_ASSET.test(relative) ? IMMUTABLE : "no-cache",
    "last-modified": file.mtime.toUTCString(),
  });
}

/**
 * The decoded path below /dashboard/ ("" for the page itself), or undefined when it could name anything outside
 * dist: `..` or `.` segments, encoded slashes or backslashes, NUL, bad percent-encoding.
 */
export function safeRelativePath(encoded: string): string | undefined {
  if (encoded === "") return "";
  const segments: string[] = [];
  for (const raw of encoded.split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment === "" || segment === "." || segment === ".." || /[\\/\0]/.test(segment)) return undefined;
    segments.push(segment);
  }
  return segments.join("/");
}

/** The file at `relative` under root, when it is a regular file there (symbolic links resolved, still inside). */
async function insideRoot(root: string, relative: string): Promise<{ path: string; mtime: Date } | undefined> {
  const candidate = resolve(root, relative);
  if (!candidate.startsWith(root + sep)) return undefined;
  try {
    const [real, realRoot] = await Promise.all([realpath(candidate), realpath(root)]);
    if (!real.startsWith(realRoot + sep)) return undefined;
    const info = await stat(real);
    return info.isFile() ? { path: real, mtime: info.mtime } : undefined;
  } catch {
    return undefined;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function fail(res: ServerResponse, error: AppError): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  res.setHeader("cache-control", "no-store");
  send(res, restErrorReply(error));
}
