import { existsSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import type { TestUser } from "../support/server.ts";
import { CHROMIUM, offlinePageSuite } from "./offline-page.ts";

// the dashboard's browser test prints the loud warning when Chromium is missing
describe.skipIf(!existsSync(CHROMIUM))("GraphiQL in Chromium", () => {
  const suite = offlinePageSuite(/status of 401/);
  let user: TestUser;

  beforeAll(async () => {
    user = await suite.server.newUser("graphiql-user@example.com");
  });

  it("renders from this server's files under its content policy, and runs the example operations (the subscription too) with the key given in its Headers tab", async () => {
    const { page, elsewhere, problems, fetched } = suite.opened;
    await page.goto(`${suite.server.url}/graphql`);
    await page.locator(".graphiql-container").first().waitFor();
    await page.getByText("query Recent").first().waitFor();
    expect(fetched.filter((url) => url.includes("/graphiql/")).length).toBeGreaterThanOrEqual(3);

    // the header template's placeholder is no key: the answer shown is the server's own refusal
    await page.locator(".graphiql-execute-button").click();
    await page.getByRole("menuitem", { name: "Recent" }).click();
    await page.getByText("The Authorization header holds no API key").first().waitFor();

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
