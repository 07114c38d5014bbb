import { describe, expect, it } from "vitest";
import { HeldClaims } from "../../src/webhooks/held-claims.ts";

describe("claims held in memory", () => {
  it("has a round read past the highest seq taken, and forgets the events that left the outbox", () => {
    const held = new HeldClaims(60_000);
    expect(held.scope()).toEqual({ after: "0", lapsed: [] });
    held.took(["7", "8", "9"], ["8", "9"]);
    expect(held.scope()).toEqual({ after: "9", lapsed: [] });
    expect([held.wasTaken("7"), held.wasTaken("8"), held.wasTaken("9")]).toEqual([false, true, true]);
    held.release(["8"]);
    expect([held.wasTaken("8"), held.wasTaken("9")]).toEqual([false, true]);
  });

  it("has a round take the lapsed claims again; one taken and dropped (no endpoint wants it any more) goes", () => {
    const held = new HeldClaims(0); // every claim lapses at once
    held.took(["10", "11", "12"], ["10", "11", "12"]);
    expect(held.scope()).toEqual({ after: "12", lapsed: ["10", "11", "12"] });
    held.took(["10", "11"], ["11"]);
    expect(held.wasTaken("10")).toBe(false);
    expect(held.scope()).toEqual({ after: "12", lapsed: ["12", "11"] });
  });
});
