// npm run keys -- create --user <id|handle> --name <label> [--json]
// npm run keys -- list --user <id|handle> [--json]
// npm run keys -- revoke <id> [--json]
import { parseArgs } from "node:util";
import { loadConfig, type Config } from "../config.ts";
import { remoteKeyAdmin } from "../control/client.ts";
import { openDatabase } from "../db/open.ts";
import { keyAdmin, type KeyAdmin, type KeyRecord } from "../domain/key-admin.ts";
import { ApiKeyService } from "../domain/api-key.ts";
import { UserService } from "../domain/user.ts";
import { runCli, UsageError, viaServerOr } from "./run.ts";

const USAGE = `usage:
  npm run keys -- create --user <id|handle> --name <label> [--json]
  npm run keys -- list --user <id|handle> [--json]
  npm run keys -- revoke <key id> [--json]`;

/**
 * Runs `fn` with whoever may touch the keys: PostgreSQL directly; on the embedded database, the server that
 * holds it (through its control socket) or, when no server runs, the database itself.
 */
function withKeyAdmin<T>(config: Config, fn: (admin: KeyAdmin) => Promise<T>): Promise<T> {
  return viaServerOr(
    config,
    () => fn(remoteKeyAdmin(config.dataDir)),
    async () => {
      const db = await openDatabase(config, "command");
      try {
        return await fn(keyAdmin({ users: new UserService(db), apiKeys: new ApiKeyService(db) }));
      } finally {
        await db.close();
      }
    },
  );
}

const describe = (key: KeyRecord) =>
  `${key.id}  ${key.prefix}…  ${key.name}  created ${key.createdAt}` +
  (key.lastUsedAt ? `  last used ${key.lastUsedAt}` : "") +
  (key.revokedAt ? `  REVOKED ${key.revokedAt}` : "");

await runCli(USAGE, async (print) => {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { user: { type: "string" }, name: { type: "string" }, json: { type: "boolean", default: false } },
  });
  const [command, ...rest] = positionals;
  const config = loadConfig();
  const output = (json: unknown, text: string) => print(values.json ? JSON.stringify(json) : text);

  switch (command) {
    case "create": {
      if (!values.user || !values.name || rest.length) throw new UsageError("create needs --user and --name");
      const created = await withKeyAdmin(config, (admin) => admin.create(values.user!, values.name!));
      output(
        { id: created.id, key: created.key, name: created.name, userId: created.userId },
        `Created key "${created.name}" (${created.id}) for ${values.user}:\n\n  ${created.key}\n\n` +
          "Store it now: it is not shown again.",
      );
      return;
    }
    case "list": {
      if (!values.user || rest.length) throw new UsageError("list needs --user");
      const keys = await withKeyAdmin(config, (admin) => admin.list(values.user!));
      output(keys, keys.length ? keys.map(describe).join("\n") : `${values.user} has no keys.`);
      return;
    }
    case "revoke": {
      if (rest.length !== 1) throw new UsageError("revoke needs the id of one key");
      const key = await withKeyAdmin(config, (admin) => admin.revoke(rest[0]!));
      output(key, `Revoked: ${describe(key)}`);
      return;
    }
    default:
      throw new UsageError(command ? `unknown command ${command}` : "no command");
  }
});
