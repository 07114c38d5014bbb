import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Method, OpenApiDocument } from "../../src/rest/openapi/types.ts";
import { CHROMIUM, offlinePageSuite } from "./offline-page.ts";

const METHODS: Method[] = ["get", "post", "put", "patch", "delete"];
const ARTIFACTS = join(import.meta.dirname, "..", "artifacts");

// the dashboard's browser test prints the loud warning when Chromium is missing
describe.skipIf(!existsSync(CHROMIUM))("the API reference at /docs in Chromium", () => {
  const suite = offlinePageSuite();
  let document: OpenApiDocument;

  beforeAll(async () => {
    document = (await suite.server.client().get("/openapi.json")).body as OpenApiDocument;
  });

  it("renders /openapi.json from this server's files under its content policy: every operation, the MCP tools, links that land", async () => {
    const { page, elsewhere, problems, fetched } = suite.opened;
    await page.goto(`${suite.server.url}/docs`);
    await page.getByRole("heading", { name: "Memory service API" }).waitFor();
    expect(fetched.filter((url) => url.includes("/docs/assets/")).length).toBe(2);
    expect(fetched).toContain(`${suite.server.url}/openapi.json`);

    // every operation is in the sidebar, under its tag, by its summary
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of METHODS.filter((m) => item[m])) {
        const operation = item[method]!;
        const link = page.locator(`a[href$="/${method.toUpperCase()}${path}"]`).first();
        await expect(link.count(), `${method} ${path}`).resolves.toBe(1);
        await expect(link.innerText(), `${method} ${path}`).resolves.toContain(operation.summary);
      }
    }

    // the MCP section: each tool, with its arguments, and a link to the operation it runs
    for (const tool of ["remember", "recall", "search_memories", "list_memories", "get_memory", "update_memory", "forget"]) {
      await page.getByRole("heading", { name: tool, exact: true }).waitFor();
    }
    await page.getByRole("listitem").filter({ hasText: /^content \(string or object, required\): The text/ }).first().waitFor();
    await page.getByRole("heading", { name: "remember", exact: true }).scrollIntoViewIfNeeded();
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "docs-mcp-tools.png") });
    await page.getByRole("link", { name: "POST /api/v1/memory", exact: true }).first().click();
    await page.locator('[id$="/tag/memories/POST/api/v1/memory"]').first().waitFor();
    expect(page.url()).toContain("#tag/memories/POST/api/v1/memory");

    // a deprecated route says so
    await page.goto(`${suite.server.url}/docs#tag/legacy-deprecated/POST/api/v1/memories`);
    await page.locator('[id$="/tag/legacy-deprecated/POST/api/v1/memories"]').getByText("Deprecated").first().waitFor();

    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
  });
});
