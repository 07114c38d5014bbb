// The vector index's thread (usearch-client.ts starts it): the embedded index (UsearchIndex) answering the calls of
// the event loop's thread in the order they come. usearch's inserts, graph walks and saves are synchronous native
// calls: here they leave the API's loop free, and run beside it on the machine's other core.
import { parentPort } from "node:worker_threads";
import { messageOnly, sendNotice, serveCalls, type Handlers } from "../threads/thread-calls.ts";
import type { IndexNotice, UsearchCalls } from "./usearch-calls.ts";
import { UsearchIndex, type IndexLog } from "./usearch.ts";

const port = parentPort;
if (!port) throw new Error("usearch-thread runs as a worker thread");

/** Fields as they cross: an Error by its name, message and stack (what the log shows of it). */
const crossing = (fields: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(fields).map(([name, value]) =>
      value instanceof Error ? [name, { type: value.name, message: value.message, stack: value.stack }] : [name, value],
    ),
  );
const notice = (level: IndexNotice["level"]) => (fields: Record<string, unknown>, message: string) =>
  sendNotice(port, { level, fields: crossing(fields), message } satisfies IndexNotice);
const log: IndexLog = { warn: notice("warn"), error: notice("error") };

let index: UsearchIndex | undefined;

function opened(): UsearchIndex {
  if (!index) throw new Error("the vector index is not open");
  return index;
}

const handlers: Handlers<UsearchCalls> = {
  async open({ dir }) {
    // a save (every minute, on the index's timer) leaves its files' buffers behind, as a call does
    index = await UsearchIndex.open(dir, log, () => worked());
    return index !== undefined;
  },
  ensure: ({ embedderId, dimensions }) => opened().ensure(embedderId, dimensions),
  upsert: ({ embedderId, points }) => opened().upsert(embedderId, points),
  delete: ({ embedderId, ids }) => opened().delete(embedderId, ids),
  search: ({ embedderId, vector, filter, limit }) => opened().search(embedderId, vector, filter, limit),
  scores: ({ embedderId, userId, vector, ids }) => opened().scores(embedderId, userId, vector, ids),
  clear: ({ embedderId }) => opened().clear(embedderId),
  count: ({ embedderId }) => opened().count(embedderId),
  reconcile: ({ embedderId, versions }) => opened().reconcile(embedderId, versions),
  async close() {
    await index?.close();
    index = undefined;
  },
};

// with the index saved and closed, nothing is left to do: the thread ends
const worked = serveCalls(port, handlers, messageOnly, "close");
