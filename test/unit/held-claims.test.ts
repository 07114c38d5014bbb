import { describe, expect, it } from "vitest";
import { HeldClaims } from "../../src/webhooks/held-claims.ts";

describe("claims held in memory", () => {
  it("has a round read past the highest seq taken and the lapsed claims, and forgets events that left the outbox", () => {
    const held = new HeldClaims();
    expect(held.scope()).toEqual({ after: "0", lapsed: [] });
    held.took(["7", "8", "9"], ["8", "9"], 60_000);
    expect(held.scope()).toEqual({ after: "9", lapsed: [] });
    expect([held.wasTaken("7"), held.wasTaken("8"), held.wasTaken("9")]).toEqual([false, true, true]);

    held.took(["10"], ["10"], 0); // a claim already lapsed: taken again by the next round
    expect(held.scope()).toEqual({ after: "10", lapsed: ["10"] });
    // taken again, and no endpoint wants it any more: it left the outbox, and its claim goes
    held.took(["10"], [], 60_000);
    expect(held.wasTaken("10")).toBe(false);
    expect(held.scope()).toEqual({ after: "10", lapsed: [] });

    held.release(["8"]);
    expect([held.wasTaken("8"), held.wasTaken("9")]).toEqual([false, true]);
  });
});
