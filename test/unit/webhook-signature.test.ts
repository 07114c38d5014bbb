import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { signature } from "../../src/webhooks/signature.ts";

describe("a delivery's signature", () => {
  const secret = `whsec_${randomBytes(24).toString("base64")}`;
  const at = new Date("2026-11-24T12:00:00.750Z");
  const seconds = Math.floor(at.getTime() / 1000);

  it("is the one standardwebhooks makes, for bodies ASCII or not", () => {
    for (const body of ['{"type":"memory.created"}', '{"content":"é ✓ 𝄞"}', ""]) {
      expect(signature(secret, "msg_1", seconds, body)).toBe(new Webhook(secret).sign("msg_1", at, body));
    }
  });

  it("verifies with standardwebhooks, and not with another secret", () => {
    const body = '{"type":"memory.created","data":{"id":"m1"}}';
    const headers = { "webhook-id": "msg_2", "webhook-timestamp": String(Math.floor(Date.now() / 1000)) };
    const signed = { ...headers, "webhook-signature": signature(secret, "msg_2", Number(headers["webhook-timestamp"]), body) };
    expect(new Webhook(secret).verify(body, signed)).toEqual({ type: "memory.created", data: { id: "m1" } });
    expect(() => new Webhook(`whsec_${randomBytes(24).toString("base64")}`).verify(body, signed)).toThrow();
  });
});
