import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDashboardHandler, dashboardBuilt, DASHBOARD_DIST, safeRelativePath } from "../../src/http/dashboard.ts";
import { warnUntested } from "../support/loud.ts";
import { startTestServer, type TestServer, type TestUser } from "../support/server.ts";
import { CHROMIUM } from "./offline-page.ts";

const ARTIFACTS = join(import.meta.dirname, "..", "artifacts");
const DASHBOARD = join(import.meta.dirname, "..", "..", "dashboard");
const chromiumMissing = !existsSync(CHROMIUM);

if (chromiumMissing) {
  warnUntested([
    `Chromium is not installed at ${CHROMIUM}.`,
    "THE DASHBOARD BROWSER TEST IS SKIPPED: the dashboard is NOT tested in a browser.",
    "Install it with `apt-get install -y chromium` (as .ci/run does) or set CHROMIUM_PATH.",
  ]);
}

/** The newest modification time of the dashboard's sources. */
function newestSource(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return Math.max(0, ...readdirSync(path).filter((name) => name !== "dist" && name !== "node_modules").map((name) => newestSource(join(path, name))));
}

/** Builds dashboard/dist when it is missing or older than its sources. */
async function ensureDashboardBuilt(): Promise<void> {
  const index = join(DASHBOARD_DIST, "index.html");
  if (existsSync(index) && statSync(index).mtimeMs >= newestSource(DASHBOARD)) return;
  try {
    await promisify(execFile)("npm", ["run", "build:dashboard"], { cwd: join(DASHBOARD, ".."), timeout: 120_000 });
  } catch (error) {
    const detail = error as { stderr?: string; message: string };
    throw new Error(`The dashboard could not be built (npm run build:dashboard): ${detail.stderr || detail.message}`);
  }
  if (!existsSync(index)) throw new Error(`npm run build:dashboard ran but ${index} is missing`);
}

/** A GET/HEAD with the path sent exactly as given (fetch would normalise `..` and `%2e%2e` away). */
function rawRequest(base: string, path: string, method = "GET", headers: Record<string, string> = {}) {
  const { hostname, port } = new URL(base);
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request({ hostname, port, path, method, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("serving the dashboard", () => {
  let server: TestServer;

  beforeAll(async () => {
    await ensureDashboardBuilt();
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("redirects /dashboard to /dashboard/ and serves the page with its security headers", async () => {
    const redirect = await rawRequest(server.url, "/dashboard?x=1");
    expect(redirect.status).toBe(308);
    expect(redirect.headers.location).toBe("/dashboard/?x=1");

    const page = await rawRequest(server.url, "/dashboard/");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["cache-control"]).toBe("no-cache");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["referrer-policy"]).toBe("no-referrer");
    const csp = String(page.headers["content-security-policy"]);
    for (const directive of ["script-src 'self'", "style-src 'self'", "connect-src 'self'", "img-src 'self' data:", "frame-ancestors 'none'"]) {
      expect(csp).toContain(directive);
    }
    expect(page.body).toContain('<div id="app">');
    expect(page.body).not.toMatch(/https?:\/\//); // nothing from elsewhere

    const again = await rawRequest(server.url, "/dashboard/", "GET", { "if-none-match": String(page.headers.etag) });
    expect(again.status).toBe(304);
  });

  it("serves hashed assets with their type and a long cache, and answers HEAD without a body", async () => {
    const page = await rawRequest(server.url, "/dashboard/");
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    const style = /href="(\/dashboard\/assets\/[^"]+\.css)"/.exec(page.body)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    const js = await rawRequest(server.url, script!);
    expect(js.status).toBe(200);
    expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(js.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    const css = await rawRequest(server.url, style!, "HEAD");
    expect(css.status).toBe(200);
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect(Number(css.headers["content-length"])).toBeGreaterThan(0);
    expect(css.body).toBe("");
  });

  it("answers 404 in JSON for missing files and for paths that try to leave dist", async () => {
    for (const path of [
      "/dashboard/missing.js",
      "/dashboard/assets/nope-12345678.js",
      "/dashboard/assets%2F..%2F..%2Fpackage.json",
      "/dashboard/..%2f..%2fpackage.json",
      "/dashboard/%2e%2e%5c%2e%2e%5cpackage.json",
      "/dashboard/assets/%00.js",
      "/dashboard/%E0%A4%A",
    ]) {
      const response = await rawRequest(server.url, path);
      expect(response.status, path).toBe(404);
      expect(JSON.parse(response.body), path).toMatchObject({ error: { code: "NOT_FOUND" } });
    }
    // `..` the URL parser resolves never reaches the dashboard: it is another path (here /package.json, no route)
    const resolved = await rawRequest(server.url, "/dashboard/../package.json");
    expect(resolved.status).toBe(404);
    expect(JSON.parse(resolved.body)).toMatchObject({ error: { code: "NOT_FOUND" } });
    expect((await rawRequest(server.url, "/dashboard/", "POST")).status).toBe(405);
  });

  it("keeps relative paths inside dist", () => {
    expect(safeRelativePath("")).toBe("");
    expect(safeRelativePath("assets/index-abc.js")).toBe("assets/index-abc.js");
    for (const bad of ["..", "a/../b", "a/./b", "a//b", "%2e%2e", "a%2Fb", "a%5Cb", "%00", "%zz"]) expect(safeRelativePath(bad), bad).toBeUndefined();
  });

  it("answers 503 with what to run when the dashboard is not built", async () => {
    const empty = mkdtempSync(join(tmpdir(), "dashboard-"));
    const handler = createDashboardHandler(join(empty, "dist"));
    const http: Server = createServer((req, res) => {
      if (!handler(req, res, new URL(req.url ?? "/", "http://x").pathname)) res.writeHead(418).end();
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const response = await rawRequest(base, "/dashboard/");
      expect(response.status).toBe(503);
      expect(JSON.parse(response.body).error.message).toContain("npm run build:dashboard");
      expect((await rawRequest(base, "/other")).status).toBe(418);
      // what the server checks at start, to say so in its log rather than only at the first visit
      expect([dashboardBuilt(join(empty, "dist")), dashboardBuilt()]).toEqual([false, true]);
    } finally {
      await new Promise((resolve) => http.close(resolve));
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe.skipIf(chromiumMissing)("the dashboard in Chromium", () => {
  let server: TestServer;
  let user: TestUser;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const elsewhere: string[] = [];
  const problems: string[] = [];

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `dashboard-${name}.png`), fullPage: true });
  const tab = (label: string) => page.getByRole("navigation").getByRole("link", { name: label, exact: true }).click();
  const heading = (text: string) => page.getByRole("heading", { level: 2, name: text, exact: true }).waitFor();

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await ensureDashboardBuilt();
    server = await startTestServer();
    user = await server.newUser("dashboard-user@example.com");
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    // the page must call this server only: anything else is recorded (and fails the last test) and refused
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(`${server.url}/`) || url.startsWith("data:")) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    page = await context.newPage();
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error" && !/status of 40[0-9]/.test(message.text())) problems.push(`console: ${message.text()}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("refuses a bad key, then signs in and keeps the key in sessionStorage only", async () => {
    await page.goto(`${server.url}/dashboard`);
    expect(page.url()).toBe(`${server.url}/dashboard/`);
    // a character no key holds, which fetch refuses to send: once said as "The server cannot be reached"
    await page.getByLabel("API key").fill("not a key 💥");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("That API key is not valid").waitFor();
    await page.locator(".signin .notice").evaluate((notice) => notice.remove());
    await page.getByLabel("API key").fill("msk_not-a-real-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("That API key is not valid").waitFor();
    await shot("01-sign-in");

    await page.getByLabel("API key").fill(user.key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await heading("API keys");
    await page.getByText(user.handle).waitFor();
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([user.key]);
    expect(await page.evaluate(() => Object.keys(localStorage).length)).toBe(0);
  });

  let newKey = "";

  it("creates a key, shows it once, and the key works against the REST API", async () => {
    await page.getByLabel("New key's name").fill("browser-test");
    await page.getByRole("button", { name: "Create key" }).click();
    const box = page.getByTestId("new-key");
    await box.waitFor();
    newKey = await box.inputValue();
    expect(newKey).toMatch(/^msk_/);
    await page.getByText("it will not be shown again").waitFor();
    await page.locator("tr", { hasText: "browser-test" }).getByText("Active").waitFor();
    await shot("02-keys-created");

    const response = await server.client(newKey).get("/api/v1/memory");
    expect(response.status).toBe(200);

    // leaving the page forgets the key
    await tab("Memories");
    await heading("Memories");
    await tab("Keys");
    await heading("API keys");
    await page.locator("tr", { hasText: "browser-test" }).waitFor();
    expect(await page.getByTestId("new-key").count()).toBe(0);
    expect(await page.content()).not.toContain(newKey);
  });

  it("revokes the key after a confirmation, and the API then answers 401", async () => {
    const row = page.locator("tr", { hasText: "browser-test" });
    let question = "";
    page.once("dialog", (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByText(/^Revoked/).waitFor();
    expect(question).toContain("browser-test");
    await shot("03-keys-revoked");

    const response = await server.client(newKey).get("/api/v1/memory");
    expect(response.status).toBe(401);
    // the signed-in key still works
    expect((await user.api.get("/api/v1/memory")).status).toBe(200);
  });

  it("creates a memory, lists and filters it, and edits it", async () => {
    await tab("Memories");
    await heading("Memories");
    await page.getByRole("button", { name: "New memory" }).click();
    const form = page.locator("form", { has: page.getByRole("heading", { name: "New memory" }) });
    await form.getByLabel("Content").fill("The dashboard user prefers pistachio ice cream in summer");
    await form.getByLabel("Type").fill("preference");
    await form.getByLabel("Tags").fill("food, dashboard");
    await form.getByRole("button", { name: "Save memory" }).click();
    await heading("Memory");
    await page.getByText("Memory saved.").waitFor();
    await shot("04-memory-view");

    const { body } = await user.api.get("/api/v1/memory?tags=dashboard&type=preference");
    expect(body.memories.map((memory: { content: string }) => memory.content)).toEqual([
      "The dashboard user prefers pistachio ice cream in summer",
    ]);

    await page.getByRole("button", { name: "Archive" }).click();
    await page.getByText("Memory archived.").waitFor();
    await page.getByRole("button", { name: "Restore (unarchive)" }).click();
    await page.getByText("Memory restored.").waitFor();

    await page.getByRole("link", { name: "← All memories" }).click();
    await heading("Memories");
    await page.getByLabel("Type").fill("preference");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByRole("link", { name: /pistachio ice cream/ }).waitFor();
    await page.getByText("1–1 of 1").waitFor();
    await shot("05-memories");
  });

  it("shows user data as text, never as markup", async () => {
    const hostile = `<img src=x onerror="document.title='pwned'"> <b>bold</b>`;
    expect((await user.api.post("/api/v1/memory", { content: hostile, tags: ["hostile"] })).status).toBe(201);
    await page.goto(`${server.url}/dashboard/#/memories?tags=hostile&archived=all`);
    await page.getByRole("link", { name: hostile }).waitFor();
    expect(await page.locator("main img").count()).toBe(0);
    expect(await page.title()).not.toBe("pwned");
  });

  it("cuts long text between characters and wraps long words, in the list and in search", async () => {
    const emoji = `${"a".repeat(158)}${"😀".repeat(10)}`;
    const word = "0123456789abcdef".repeat(300);
    for (const content of [emoji, word]) expect((await user.api.post("/api/v1/memory", { content, tags: ["long"] })).status).toBe(201);
    const wide = () => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
    const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

    await page.goto(`${server.url}/dashboard/#/memories?tags=long`);
    const cut = page.getByRole("link", { name: /^a{158}/ });
    await cut.waitFor();
    expect(loneSurrogate.test((await cut.textContent())!)).toBe(false);
    expect(await wide()).toBe(false);

    await page.goto(`${server.url}/dashboard/#/search?q=${word.slice(0, 64)}`);
    await page.locator("ol.hits li", { hasText: word.slice(0, 64) }).waitFor();
    expect(await wide()).toBe(false);
    // an address that is not well-formed percent-encoding names no memory, and the page says so
    await page.goto(`${server.url}/dashboard/#/memories/%E0%A4%A`);
    await page.getByText("Memory not found").waitFor();
  });

  it("finds the memory by semantic search and by recall", async () => {
    await tab("Search & recall");
    await heading("Search & recall");
    await page.getByLabel("Query").fill("pistachio ice cream");
    await page.getByLabel("Semantic search").check();
    await page.getByRole("button", { name: "Go" }).click();
    const hit = page.locator("ol.hits li", { hasText: "pistachio ice cream" });
    await hit.waitFor();
    expect(await hit.locator(".score").textContent()).toMatch(/^score -?\d\.\d{3}$/);
    await shot("06-search");

    await page.getByLabel("Recall").check();
    await page.getByRole("button", { name: "Go" }).click();
    await page.getByTestId("query-type").waitFor();
    await page.locator("ol.hits li", { hasText: "pistachio ice cream" }).locator(".score", { hasText: "relevance" }).waitFor();
    expect(["hybrid", "profile", "semantic", "thread"]).toContain(await page.getByTestId("query-type").textContent());
    await shot("07-recall");
  });

  it("lists threads and changes a thread's status", async () => {
    // last changed long ago (an import keeps the file's times), so that the change shows in the row
    const line = { kind: "thread", title: "Dashboard thread", description: "made by the browser test", updated_at: "2025-01-02T03:04:05.000Z" };
    const imported = await user.api.post("/api/v1/import", undefined, { raw: `${JSON.stringify(line)}\n`, headers: { "content-type": "application/x-ndjson" } });
    expect(imported.body.created, imported.text).toBe(1);
    const id = imported.body.results[0].id as string;
    // a title of one long word wraps rather than widen the page
    const long = await user.api.post("/api/v1/threads", { title: "Supercalifragilistic".repeat(10) });
    expect((await user.api.patch(`/api/v1/threads/${long.body.id}`, { status: "archived" })).status).toBe(200);
    await tab("Threads");
    await heading("Threads");
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    const row = page.locator("tr", { hasText: "Dashboard thread" });
    await row.getByRole("combobox").selectOption("completed");
    await page.getByText('"Dashboard thread" is now completed.').waitFor();
    const stored = (await user.api.get(`/api/v1/threads/${id}`)).body.thread;
    expect(stored.status).toBe("completed");
    const shown = await page.evaluate((iso) => new Date(iso).toLocaleString(), stored.updated_at);
    expect(await row.locator("td").nth(2).textContent()).toBe(shown);

    // an offset past the last thread (an old address): said so, and Previous goes to the last page
    await page.goto(`${server.url}/dashboard/#/threads?offset=500`);
    await page.getByText("none here: ").waitFor();
    await page.getByRole("button", { name: "← Previous" }).click();
    await row.waitFor();

    await page.getByLabel("Filter by status").selectOption("active");
    await page.getByText("No threads.").waitFor();
    await page.getByLabel("Filter by status").selectOption("completed");
    await row.waitFor();
    await shot("08-threads");
  });

  it("signs out, clearing sessionStorage; revoking the signed-in key signs out too", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByText("You have signed out.").waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

    await page.getByLabel("API key").fill(user.key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await heading("API keys");
    const row = page.locator("tr", { hasText: "this session" });
    page.once("dialog", (dialog) => void dialog.accept());
    await row.getByRole("button", { name: "Revoke" }).click();
    await page.getByText("the server no longer accepts your API key").waitFor();
    await page.getByLabel("API key").waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await shot("09-signed-out-after-revoke");
    expect((await user.api.get("/api/v1/memory")).status).toBe(401);
  });

  it("called nothing but this server, and the page had no errors", () => {
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
  });
});
