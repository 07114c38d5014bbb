import type { VectorIndex } from "../../src/vectors/vector-index.ts";

/**
 * A `wrapIndex` for the test server: the configured index with some of its methods replaced (to fail, hang or
 * record what reaches it), the rest its own. `methods` is given the index itself, to call through to.
 */
export function replacing(methods: (inner: VectorIndex) => Partial<VectorIndex>): (inner: VectorIndex) => VectorIndex {
  return (inner) => {
    const replaced = methods(inner);
    return new Proxy(inner, {
      get(target, property, receiver) {
        if (Object.hasOwn(replaced, property)) return replaced[property as keyof VectorIndex];
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
}
