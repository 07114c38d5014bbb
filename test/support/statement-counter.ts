/** A driver adapter factory as Prisma takes it: the part the counter needs to see. */
type AdapterFactory = { connect(): Promise<object> };

/**
 * Counts the statements Prisma sends (the N+1 tests read it): give `wrap` to the server as its
 * `wrapPrismaAdapter`, and every connection of its PrismaClient, in a transaction or not, counts here.
 */
export class StatementCounter {
  count = 0;

  readonly wrap = <F extends AdapterFactory>(factory: F): F =>
    new Proxy(factory, {
      get: (object, property, receiver) => {
        const value = Reflect.get(object, property, receiver) as unknown;
        if (property === "connect" && typeof value === "function") {
          return async () => this.counting(await (value as () => Promise<object>).apply(object));
        }
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(object) : value;
      },
    });

  /** A connection (or a transaction on one) whose queryRaw and executeRaw count. */
  private counting<T extends object>(target: T): T {
    return new Proxy(target, {
      get: (object, property, receiver) => {
        const value = Reflect.get(object, property, receiver) as unknown;
        if (typeof value !== "function") return value;
        if (property === "queryRaw" || property === "executeRaw") {
          return (...args: unknown[]) => {
            this.count++;
            return (value as (...a: unknown[]) => unknown).apply(object, args);
          };
        }
        if (property === "startTransaction") {
          return async (...args: unknown[]) => this.counting(await (value as (...a: unknown[]) => Promise<object>).apply(object, args));
        }
        return (value as (...a: unknown[]) => unknown).bind(object);
      },
    });
  }
}
