// The webhook sender's thread (sender.ts starts it): signs the deliveries of each batch the event loop's thread
// posts, sends them over connections it keeps open, and answers with their outcomes in order. The address guard
// runs here as well, in the DNS lookup of each connection (send.ts).
import { setMaxListeners } from "node:events";
import { parentPort, workerData } from "node:worker_threads";
import { deliveryAgent, send, type Attempt } from "./send.ts";
import type { SendBatch, SenderSettings, SentBatch, Sendable } from "./sender.ts";
import { signature } from "./signature.ts";

const port = parentPort;
if (!port) throw new Error("sender-thread runs as a worker thread");
const settings = workerData as SenderSettings;

const agent = deliveryAgent(settings);

function attempt(delivery: Sendable, signal: AbortSignal): Promise<Attempt> {
  // the delivery's id is the message id: the same at every attempt, so that a receiver can drop repeats; after
  // a rotation, a signature by each secret (space-separated, as Standard Webhooks allows) until the old one lapses
  const seconds = Math.floor(Date.now() / 1000);
  const secrets = delivery.previous_secret ? [delivery.secret, delivery.previous_secret] : [delivery.secret];
  const headers = {
    "webhook-id": delivery.id,
    "webhook-timestamp": String(seconds),
    "webhook-signature": secrets.map((secret) => signature(secret, delivery.id, seconds, delivery.payload)).join(" "),
  };
  return send(agent, delivery.url, delivery.payload, headers, { allowPrivate: settings.allowPrivate, signal });
}

port.on("message", ({ batch, deliveries }: SendBatch) => {
  // a batch's attempts end together within timeoutMs, each listening to the one timer
  const signal = AbortSignal.timeout(settings.timeoutMs);
  setMaxListeners(deliveries.length, signal);
  // send() never rejects: every delivery has an outcome
  const timed = (delivery: Sendable) => attempt(delivery, signal).then((outcome) => ({ ...outcome, at: Date.now() }));
  void Promise.all(deliveries.map(timed)).then((outcomes) => port.postMessage({ batch, outcomes } satisfies SentBatch));
});
