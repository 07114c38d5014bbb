import { chromium, type Browser, type Page } from "playwright-core";
import { suiteServer, type TestServer } from "../support/server.ts";
import { suiteValue } from "../support/suite-value.ts";

/** Where the browser suites find Chromium. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** A page in headless Chromium that may load from `origin` only, and what it tried and reported. */
export interface OfflinePage {
  browser: Browser;
  page: Page;
  /** Every URL elsewhere the page asked for (refused). */
  elsewhere: string[];
  /** Page errors and console errors (a script or style the content policy refused is reported there too). */
  problems: string[];
  /** Every URL the page asked for. */
  fetched: string[];
}

/** `ignore` leaves out console errors that are the page's expected answers (a 401 shown to the user, say). */
export async function openOfflinePage(executablePath: string, origin: string, ignore?: RegExp): Promise<OfflinePage> {
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  const elsewhere: string[] = [];
  const problems: string[] = [];
  const fetched: string[] = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  // a violation of the page's content policy, even one a script catches (zod's test of eval), is a problem
  await context.addInitScript(() =>
    document.addEventListener("securitypolicyviolation", (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`)),
  );
  const page = await context.newPage();
  page.on("request", (request) => fetched.push(request.url()));
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && !ignore?.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  return { browser, page, elsewhere, problems, fetched };
}

/**
 * A browser suite's set-up: `suiteServer`, and an offline page of CHROMIUM on it, opened before the suite's tests
 * and closed after them. Read `server` and `opened` in the tests.
 */
export function offlinePageSuite(ignore?: RegExp): { readonly server: TestServer; readonly opened: OfflinePage } {
  const suite = suiteServer();
  const opened = suiteValue("the page", () => openOfflinePage(CHROMIUM, suite.server.url, ignore), (page) => page.browser.close());
  return {
    get server() {
      return suite.server;
    },
    get opened() {
      return opened();
    },
  };
}
