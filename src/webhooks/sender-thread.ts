// The webhook sender's thread (sender.ts starts it): signs the deliveries of each batch the event loop's thread
// posts, sends them over connections it keeps open, and answers with their outcomes in order. The address guard
// runs here as well, in the DNS lookup of each connection (send.ts).
import { setMaxListeners } from "node:events";
import { parentPort, workerData } from "node:worker_threads";
import { AttemptClock } from "./attempt-clock.ts";
import { OrderedAttempts } from "./ordered-attempts.ts";
import { OriginTurns } from "./origin-turns.ts";
import { CONNECTIONS_PER_ORIGIN, deliveryAgent, send } from "./send.ts";
import type { Outcome, SendBatch, SenderSettings, SentBatch, Sendable } from "./sender.ts";
import { signature } from "./signature.ts";

const port = parentPort;
if (!port) throw new Error("sender-thread runs as a worker thread");
const settings = workerData as SenderSettings;

const agent = deliveryAgent(settings);
const turns = new OriginTurns(CONNECTIONS_PER_ORIGIN);
const clock = new AttemptClock(settings.timeoutMs);
// an object's deliveries to an endpoint in the order of its changes, on their first attempts (take-out.ts)
const ordered = new OrderedAttempts();

const originOf = (url: string) => URL.parse(url)?.origin ?? url;

/**
 * One attempt at `delivery` once its origin has a connection for it, timed from then; unsent when none came before
 * `deadline` (the endpoint's connections busy with the deliveries ahead of it).
 */
async function attempt(delivery: Sendable, deadline: AbortSignal): Promise<Outcome> {
  const origin = originOf(delivery.url);
  if (!(await turns.take(origin, deadline))) return { ok: false, unsent: true, at: Date.now() };
  try {
    // the delivery's id is the message id: the same at every attempt, so that a receiver can drop repeats; after
    // a rotation, a signature by each secret (space-separated, as Standard Webhooks allows) until the old one lapses
    const seconds = Math.floor(Date.now() / 1000);
    const secrets = delivery.previous_secret ? [delivery.secret, delivery.previous_secret] : [delivery.secret];
    const headers = {
      "webhook-id": delivery.id,
      "webhook-timestamp": String(seconds),
      "webhook-signature": secrets.map((secret) => signature(secret, delivery.id, seconds, delivery.payload)).join(" "),
    };
    // send() never rejects: every delivery has an outcome
    const outcome = await send(agent, delivery.url, delivery.payload, headers, { allowPrivate: settings.allowPrivate, signal: clock.signal(), timeoutMs: settings.timeoutMs });
    return { ...outcome, at: Date.now() };
  } finally {
    turns.release(origin);
  }
}

port.on("message", ({ batch, deliveries }: SendBatch) => {
  // what has not begun within timeoutMs of the batch is handed back unsent: a batch ends within twice timeoutMs
  // (DeliveryWorker's lease)
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  setMaxListeners(0, deadline); // a listener for each delivery waiting its turn
  void Promise.all(deliveries.map((delivery) => ordered.run(delivery.after ?? [], () => attempt(delivery, deadline)))).then((outcomes) =>
    port.postMessage({ batch, outcomes } satisfies SentBatch),
  );
});
