/** A running count of the statements Prisma sends (the N+1 tests read it). */
export interface StatementCounter {
  count: number;
}

type Queryable = { queryRaw: (...args: never[]) => unknown; executeRaw: (...args: never[]) => unknown };

function counting<T extends object>(target: T, counter: StatementCounter): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== "function") return value;
      if (property === "queryRaw" || property === "executeRaw") {
        return (...args: unknown[]) => {
          counter.count++;
          return (value as (...a: unknown[]) => unknown).apply(object, args);
        };
      }
      if (property === "startTransaction") {
        return async (...args: unknown[]) =>
          counting((await (value as (...a: unknown[]) => Promise<object>).apply(object, args)) as Queryable, counter);
      }
      return (value as (...a: unknown[]) => unknown).bind(object);
    },
  });
}

/** Wraps a Prisma driver adapter factory so that every statement of its connections is counted. */
export function countStatements<F extends { connect(): Promise<object> }>(factory: F, counter: StatementCounter): F {
  return new Proxy(factory, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (property === "connect" && typeof value === "function") {
        return async () => counting(await (value as () => Promise<object>).apply(object), counter);
      }
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(object) : value;
    },
  });
}
