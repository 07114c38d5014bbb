import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer, type TestUser } from "../support/server.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

// the dashboard's browser test prints the loud warning when Chromium is missing
describe.skipIf(!existsSync(CHROMIUM))("GraphiQL in Chromium", () => {
  let server: TestServer;
  let user: TestUser;
  let browser: Browser;
  let page: Page;
  const elsewhere: string[] = [];
  const problems: string[] = [];
  const fetched: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    user = await server.newUser("graphiql-user@example.com");
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(`${server.url}/`) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    page = await context.newPage();
    page.on("request", (request) => fetched.push(request.url()));
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error" && !/status of 401/.test(message.text())) problems.push(`console: ${message.text()}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("renders from this server's files under its content policy, and runs the example operations (the subscription too) with the key given in its Headers tab", async () => {
    await page.goto(`${server.url}/graphql`);
    await page.locator(".graphiql-container").first().waitFor();
    await page.getByText("query Recent").first().waitFor();
    expect(fetched.filter((url) => url.includes("/graphiql/")).length).toBeGreaterThanOrEqual(3);

    // the header template's placeholder is no key: the answer shown is the server's own refusal
    await page.locator(".graphiql-execute-button").click();
    await page.getByRole("menuitem", { name: "Recent" }).click();
    await page.getByText("Missing API key").first().waitFor();

    await page.getByText("Bearer <your API key>").click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.press("Backspace");
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${user.key}` }));
    // the editor may have closed the brace and quote it saw typed: whatever follows the text goes
    await page.keyboard.press("Shift+End");
    await page.keyboard.press("Delete");
    await page.locator(".graphiql-execute-button").click();
    await page.getByRole("menuitem", { name: "Recent" }).click();
    await page.getByText(`"${user.handle}"`).waitFor();

    // the subscription example listens over Server-Sent Events (given a moment to start): a write made elsewhere
    // shows up in the result
    await page.locator(".graphiql-execute-button").click();
    await page.getByRole("menuitem", { name: "Live" }).click();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const created = await user.api.post("/api/v1/memory", { content: "seen live in GraphiQL" });
    expect(created.status).toBe(201);
    await page.getByText(`"${created.body.id}"`).first().waitFor();

    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
  });
});
