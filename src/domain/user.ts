import type { Principal } from "./principal.ts";
import type { Database } from "../db/database.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import { AppError, invalid } from "../errors.ts";
import { isUuid } from "./ids.ts";
import { exceedsCharacters } from "../text/characters.ts";

const MAX_HANDLE_CHARS = 320;

export interface User {
  id: string;
  handle: string;
  createdAt: Date;
}

export class UserService {
  constructor(private readonly db: Database) {}

  /**
   * The user an operator names, by id or by external handle (e.g. an e-mail address), created on first use of a
   * handle. A user id names an existing user only: taken for a new user's handle, it would make a second account
   * that the operator took for the first.
   */
  async ensure(idOrHandle: string): Promise<User> {
    const clean = idOrHandle.trim();
    if (!clean || exceedsCharacters(clean, MAX_HANDLE_CHARS) || !clean.isWellFormed() || clean.includes("\0")) {
      throw invalid("user", `must be a non-empty handle of at most ${MAX_HANDLE_CHARS} characters`);
    }
    if (isUuid(clean)) return this.find(clean);
    return this.db.prisma.user.upsert({ where: { handle: clean }, create: { handle: clean }, update: {} });
  }

  /** The signed-in user. */
  me(principal: Principal, query: { select?: Prisma.UserSelect; include?: Prisma.UserInclude } = {}): Promise<User> {
    return this.db.prisma.user.findUniqueOrThrow({ ...query, where: { id: principal.userId } });
  }

  /** The user an operator names: by id, or by handle; NOT_FOUND when there is none. */
  async find(idOrHandle: string): Promise<User> {
    const clean = idOrHandle.trim();
    const byId = isUuid(clean) ? await this.db.prisma.user.findUnique({ where: { id: clean.toLowerCase() } }) : null;
    // a handle that looks like an id: made before ids were taken here
    const user = byId ?? (await this.db.prisma.user.findUnique({ where: { handle: clean } }));
    if (!user) throw new AppError("NOT_FOUND", `No user ${idOrHandle} (by id or handle)`);
    return user;
  }
}
