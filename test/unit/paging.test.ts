import { describe, expect, it } from "vitest";
import { pageFrom } from "../../src/domain/paging.ts";

// a page's rows and its total are read apart (another statement, or a cache): pageFrom makes them agree
describe("pageFrom", () => {
  const page = { limit: 3, offset: 0 };

  it("says more follow only when a row was read past the page, and counts at least one of them", () => {
    expect(pageFrom(["a", "b", "c", "d"], 4, page)).toEqual({ items: ["a", "b", "c"], total: 4, hasMore: true, limit: 3, offset: 0 });
    // the count came before creates: the rows say at least one more
    expect(pageFrom(["a", "b", "c", "d"], 2, page)).toMatchObject({ total: 4, hasMore: true });
  });

  it("on the last page, counts what it and the pages before it hold, whatever was counted apart", () => {
    // counted before a delete: 34 counted, 33 rows read
    expect(pageFrom(Array.from({ length: 33 }, (_, i) => i), 34, { limit: 100, offset: 0 })).toMatchObject({ total: 33, hasMore: false });
    expect(pageFrom(["x"], 9, { limit: 3, offset: 5 })).toMatchObject({ total: 6, hasMore: false });
    expect(pageFrom([], 5, page)).toMatchObject({ total: 0, hasMore: false });
  });

  it("past the end, keeps a count no larger than the offset", () => {
    expect(pageFrom([], 12, { limit: 3, offset: 10 })).toMatchObject({ items: [], total: 10, hasMore: false });
    expect(pageFrom([], 4, { limit: 3, offset: 10 })).toMatchObject({ total: 4, hasMore: false });
  });
});
