import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import { ApiKeyService } from "./api-keys.ts";
import { ListTotals } from "./list-totals.ts";
import { MemoryService } from "./memories.ts";
import { UserService } from "./users.ts";

/** The business rules, free of any transport; GraphQL resolvers (and through them REST) call these. */
export interface Services {
  db: Database;
  users: UserService;
  apiKeys: ApiKeyService;
  memories: MemoryService;
}

export function createServices(db: Database, config: Config): Services {
  return {
    db,
    users: new UserService(db),
    apiKeys: new ApiKeyService(db),
    memories: new MemoryService(db, config.limits, new ListTotals(db.singleWriter)),
  };
}
