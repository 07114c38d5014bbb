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

  /** The user with this external handle (e.g. an e-mail address), created on first use. */
  async ensure(handle: string): Promise<User> {
    const clean = handle.trim();
    if (!clean || exceedsCharacters(clean, MAX_HANDLE_CHARS) || !clean.isWellFormed() || clean.includes("\0")) {
      throw invalid("user", `must be a non-empty handle of at most ${MAX_HANDLE_CHARS} characters`);
    }
    return this.db.prisma.user.upsert({ where: { handle: clean }, create: { handle: clean }, update: {} });
  }

  /** The signed-in user. */
  me(principal: Principal, query: { select?: Prisma.UserSelect; include?: Prisma.UserInclude } = {}): Promise<User> {
    return this.db.prisma.user.findUniqueOrThrow({ ...query, where: { id: principal.userId } });
  }

  /** The user an operator names: by id, or by handle; NOT_FOUND when there is none. */
  async find(idOrHandle: string): Promise<User> {
    const byId = isUuid(idOrHandle) ? await this.db.prisma.user.findUnique({ where: { id: idOrHandle.toLowerCase() } }) : null;
    const user = byId ?? (await this.findByHandle(idOrHandle));
    if (!user) throw new AppError("NOT_FOUND", `No user ${idOrHandle} (by id or handle)`);
    return user;
  }

  findByHandle(handle: string): Promise<User | null> {
    return this.db.prisma.user.findUnique({ where: { handle: handle.trim() } });
  }
}
