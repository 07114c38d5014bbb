import { describe, expect, it } from "vitest";
import { OrderedAttempts } from "../../src/webhooks/ordered-attempts.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("attempts ordered by keys", () => {
  it("begins an attempt once the earlier ones under any of its keys have ended, and others at once", async () => {
    const ordered = new OrderedAttempts();
    const log: string[] = [];
    const attempt = (name: string, ms: number) => async () => {
      log.push(`${name} begins`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      log.push(`${name} ends`);
      return name;
    };
    const results = await Promise.all([
      ordered.run(["hook/m1", "hook/t"], attempt("m1 created", 30)),
      ordered.run(["hook/m2"], attempt("m2 created", 5)),
      ordered.run(["hook/m1", "hook/t"], attempt("m1 deleted", 5)),
      ordered.run(["hook/t"], attempt("t deleted", 5)),
    ]);
    expect(results).toEqual(["m1 created", "m2 created", "m1 deleted", "t deleted"]);
    // m2 shares no key: it ran beside m1's first; m1's delete after its create, the thread's after both
    expect(log.indexOf("m2 ends")).toBeLessThan(log.indexOf("m1 created ends"));
    expect(log.indexOf("m1 deleted begins")).toBeGreaterThan(log.indexOf("m1 created ends"));
    expect(log.indexOf("t deleted begins")).toBeGreaterThan(log.indexOf("m1 deleted ends"));
    await tick();
    expect(ordered.size).toBe(0); // nothing kept once every attempt has ended
  });

  it("goes on after an attempt that failed", async () => {
    const ordered = new OrderedAttempts();
    const failing = ordered.run(["k"], () => Promise.reject(new Error("refused")));
    const next = ordered.run(["k"], async () => "sent");
    await expect(failing).rejects.toThrow("refused");
    expect(await next).toBe("sent");
  });
});
