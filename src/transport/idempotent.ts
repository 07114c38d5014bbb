import type { IncomingMessage } from "node:http";
import type { Principal } from "../domain/principal.ts";
import { requestHash, type IdempotencyService } from "../domain/idempotency.ts";
import type { Reply } from "./reply.ts";

/**
 * What a key keeps of a request that was refused (4xx). `written` for a protocol where a refusal can follow writes
 * (a GraphQL document's earlier mutations): its answer is kept, so that a retry does not write them again.
 * `nothing` where a refusal means that nothing was written (a REST request): the key is then left free, so that
 * the request corrected can be sent with it.
 */
export type RefusalWrites = "written" | "nothing";

/**
 * Runs a POST that carries an Idempotency-Key at most once per user and key: a repeat of the same request gets
 * the stored reply (marked Idempotent-Replayed); an unexpected failure (5xx), and a refusal that wrote nothing,
 * are forgotten so that a retry runs.
 */
export async function idempotent(
  idempotency: IdempotencyService,
  req: IncomingMessage,
  principal: Principal,
  body: Buffer,
  refusals: RefusalWrites,
  run: () => Promise<Reply>,
): Promise<Reply> {
  const header = req.headers["idempotency-key"];
  if (req.method !== "POST" || header === undefined) return run();
  const key = idempotency.checkKey(Array.isArray(header) ? header.join(",") : header);
  const start = await idempotency.begin(principal.userId, key, requestHash("POST", req.url ?? "", body));
  if (start.kind === "replay") {
    return { ...start.response, headers: { ...start.response.headers, "idempotent-replayed": "true" } };
  }
  let reply: Reply;
  try {
    reply = await run();
  } catch (error) {
    await idempotency.abandon(principal.userId, key);
    throw error;
  }
  if (reply.status >= 500 || (reply.status >= 400 && refusals === "nothing")) await idempotency.abandon(principal.userId, key);
  else await idempotency.complete(principal.userId, key, reply);
  return reply;
}
