import type { ApiKey } from "./api-key.ts";
import type { Services } from "./services.ts";

/** A key as the operator sees it (never the key itself). */
export interface KeyRecord {
  id: string;
  name: string;
  prefix: string;
  userId: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface NewKey {
  id: string;
  key: string;
  name: string;
  userId: string;
}

/** What the operator does with keys (the `keys` CLI), naming users by id or handle rather than as a signed-in user. */
export interface KeyAdmin {
  /** A key for the user, who is made when named by a handle no user has yet. */
  create(user: string, name: string): Promise<NewKey>;
  list(user: string): Promise<KeyRecord[]>;
  revoke(id: string): Promise<KeyRecord>;
}

export const keyRecord = (key: ApiKey): KeyRecord => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  userId: key.userId,
  createdAt: key.createdAt.toISOString(),
  lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  revokedAt: key.revokedAt?.toISOString() ?? null,
});

export function keyAdmin(services: Pick<Services, "users" | "apiKeys">): KeyAdmin {
  return {
    async create(named, name) {
      const user = await services.users.ensure(named);
      const { key, apiKey } = await services.apiKeys.create(user.id, name);
      return { id: apiKey.id, key, name: apiKey.name, userId: user.id };
    },
    async list(named) {
      const user = await services.users.find(named);
      return (await services.apiKeys.list(user.id)).map(keyRecord);
    },
    async revoke(id) {
      return keyRecord(await services.apiKeys.revoke(id));
    },
  };
}
