import { createApp, type App } from "../../src/app.ts";
import type { Principal } from "../../src/domain/principal.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";

export interface InProcessApp {
  app: App;
  /** The owner of `key`, as the HTTP layer would resolve it. */
  principal: Principal;
  close(): Promise<void>;
}

/**
 * The app in this process on a database a bench server left behind (same settings, so the same index kind and
 * the same files), for timing the services without HTTP in between. It does not listen.
 */
export async function openInProcess(env: Record<string, string>, key: string): Promise<InProcessApp> {
  const config = loadConfig({ ...env, PORT: "0", HOST: "127.0.0.1" });
  const app = await createApp(config, createLogger(config.logLevel));
  const principal = await app.services.apiKeys.authenticate(key);
  if (!principal) {
    await app.close();
    throw new Error("the bench key does not authenticate in process");
  }
  return { app, principal, close: () => app.close() };
}
