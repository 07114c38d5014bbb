// npm run bench:events [-- --writes 200 --seconds 8 --warm-up 24 --settle 4 --connections 16 --rounds 3]
// Events (issue 17), on a server started in a child process on loopback (PGlite unless DATABASE_URL is set):
// 1. latency from just before a REST create is sent to an SSE subscriber's receipt of its memory.created, and to
//    a webhook receiver's receipt of its delivery (p50/p95), one write at a time;
// 2. REST create throughput with nobody listening, with 10 SSE subscribers, with 2 webhooks and with both, taking
//    turns `--rounds` times, each round in another order, each run a user of its own with its own listeners (each
//    figure is the median of a scenario's runs); target:
//    with both, at most 15% lower than with nobody, as the median of each round's drop. The listeners run in a
//    worker thread (lib/listeners-thread.ts), off the load generator's event loop, the webhook receivers counting
//    deliveries without an HTTP framework (lib/counting-receiver.ts); their CPU per 1 000 creates is printed
//    beside the server's, as they share its cores. The server is the build, as `npm start` runs it.
import autocannon from "autocannon";
import { parseArgs } from "node:util";
import { subscribe } from "../scripts/lib/sse-client.ts";
import { WebhookReceiver } from "../scripts/lib/webhook-receiver.ts";
import { positiveInt } from "./lib/args.ts";
import { chatTurns } from "./lib/corpus.ts";
import { cpuSeconds } from "./lib/cpu.ts";
import { ListenersThread } from "./lib/listeners-thread.ts";
import { machineLine } from "./lib/machine.ts";
import { startBenchServer } from "./lib/server.ts";
import { percentile, summarize } from "./lib/stats.ts";
import { LATENCY_HEADER, latencyCells, printTable, verdict } from "./lib/table.ts";

const { values } = parseArgs({
  options: {
    writes: { type: "string", default: "200" },
    seconds: { type: "string", default: "8" },
    "warm-up": { type: "string", default: "24" },
    settle: { type: "string", default: "4" },
    connections: { type: "string", default: "16" },
    rounds: { type: "string", default: "3" },
  },
});
const writes = Number(values.writes);
const duration = Number(values.seconds);
const warmUp = Number(values["warm-up"]);
const settle = Number(values.settle);
const connections = Number(values.connections);
const rounds = positiveInt("rounds", values.rounds);

const nextTurn = chatTurns();

const server = await startBenchServer({ EMBEDDER: "hash", WEBHOOK_ALLOW_PRIVATE: "true" });
const auth = { authorization: `Bearer ${server.key}`, "content-type": "application/json" };
const MEMORY_EVENTS = "subscription { memoryEvents(types: [MEMORY_CREATED]) { memoryId } }";

async function createMemory(content: string): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/memory`, { method: "POST", headers: auth, body: JSON.stringify({ content }) });
  if (res.status !== 201) throw new Error(`create answered ${res.status}`);
  return ((await res.json()) as { id: string }).id;
}

async function addWebhook(url: string, headers = auth): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/webhooks`, {
    method: "POST",
    headers,
    body: JSON.stringify({ url, events: ["memory.created"] }),
  });
  if (res.status !== 201) throw new Error(`webhook registration answered ${res.status}`);
  return ((await res.json()) as { id: string }).id;
}

const removeWebhook = (id: string, headers = auth) => fetch(`${server.url}/api/v1/webhooks/${id}`, { method: "DELETE", headers });

interface Throughput {
  rps: number;
  creates: number;
  /** The server's CPU seconds per 1 000 creates, deliveries and events sent included (NaN without /proc). */
  cpuPerThousand: number;
  /** Those of its event loop's thread alone: webhooks are sent from another (NaN without /proc). */
  loopCpuPerThousand: number;
  /** The bench's listeners' CPU seconds per 1 000 creates (0 with none): they share the server's cores. */
  listenersCpuPerThousand?: number;
  /** How long after the run's last create its receivers had its deliveries (ms): the deliveries' lag under load. */
  catchUpMs?: number;
}

async function throughput(seconds = duration, headers = auth): Promise<Throughput> {
  const cpuBefore = cpuSeconds(server.pid) ?? Number.NaN;
  const loopBefore = cpuSeconds(server.pid, server.pid) ?? Number.NaN;
  const result = await autocannon({
    url: server.url,
    connections,
    duration: seconds,
    headers,
    // a text of its own each, as a chat application's turns are (bench:http does the same)
    requests: [{ setupRequest: (req) => ({ ...req, method: "POST", path: "/api/v1/memory", body: JSON.stringify({ content: nextTurn(), tags: ["b"] }) }) }],
  });
  if (result.errors + result.non2xx > 0) throw new Error(`${result.errors + result.non2xx} failed creates`);
  const perThousand = (before: number, after: number | undefined) => (((after ?? Number.NaN) - before) * 1000) / result.requests.total;
  return {
    rps: result.requests.average,
    creates: result.requests.total,
    cpuPerThousand: perThousand(cpuBefore, cpuSeconds(server.pid)),
    loopCpuPerThousand: perThousand(loopBefore, cpuSeconds(server.pid, server.pid)),
  };
}

console.log(`bench:events  ${server.database}, EMBEDDER=hash, ${writes} timed writes, ${connections} connections, ${duration} s a run`);
console.log(machineLine());
try {
  // 1. latency, one write at a time
  const receiver = await WebhookReceiver.start();
  const hook = await addWebhook(receiver.url);
  const listener = await subscribe(server.url, server.key, MEMORY_EVENTS);
  await createMemory("warm-up");
  await receiver.waitForAccepted(1);
  const sent = new Map<string, number>();
  for (let i = 0; i < writes; i++) {
    const started = performance.now();
    sent.set(await createMemory(`timed write ${i}`), started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await receiver.waitForAccepted(writes + 1, 60_000);
  await listener.nth(writes, 60_000);
  const sse = listener.received.flatMap((payload, n) => {
    const started = sent.get((payload.data as { memoryEvents: { memoryId: string } }).memoryEvents.memoryId);
    return started === undefined ? [] : [listener.receivedAt[n]! - started];
  });
  const webhook = receiver.accepted.flatMap((delivery) => {
    const started = sent.get((JSON.parse(delivery.body) as { data: { id: string } }).data.id);
    return started === undefined ? [] : [delivery.at - started];
  });
  listener.close();
  await removeWebhook(hook);
  await receiver.close();
  printTable(
    ["from REST create to", ...LATENCY_HEADER],
    [
      ["SSE memory.created", ...latencyCells(summarize(sse, 0))],
      ["webhook receipt", ...latencyCells(summarize(webhook, 0))],
    ],
  );

  // 2. throughput, without and with listeners
  /** REST create throughput while `subscribers` SSE subscribers and `webhooks` endpoints listen. */
  let users = 0;
  const withListeners = async (subscriberCount: number, webhookCount: number): Promise<Throughput> => {
    // each run writes as a user of its own, as a chat application's many users each write a turn: one user through
    // every run passed 50 000 vectors within the first round, after which its graph was built in the background and
    // every create paid a graph insert, so later runs cost more than earlier ones whatever listened
    const key = await server.newKey(`events-${++users}@example.com`);
    const headers = { ...auth, authorization: `Bearer ${key}` };
    const listeners = await ListenersThread.start({
      url: server.url,
      key,
      query: MEMORY_EVENTS,
      subscribers: subscriberCount,
      webhooks: webhookCount,
    });
    const hooks = await Promise.all(listeners.receiverUrls.map((url) => addWebhook(url, headers)));
    // each run's listeners are new to the server (new endpoints, new streams), and its first seconds with them
    // cost more than the rest (20 s runs measured 0.16 ms of server CPU a create for 2 webhooks, 8 s runs 0.41-0.45):
    // the load runs `settle` seconds before the run is measured, as a server with lasting listeners would be
    const settled = settle > 0 ? (await throughput(settle, headers)).creates : 0;
    const measured = await throughput(duration, headers);
    // the run's deliveries are all made before the next run starts
    const ended = performance.now();
    const listenersCpu = await listeners.finish(Math.floor((settled + measured.creates) * 0.99));
    const catchUpMs = performance.now() - ended;
    await Promise.all(hooks.map((id) => removeWebhook(id, headers)));
    return { ...measured, listenersCpuPerThousand: (listenersCpu * 1000) / (settled + measured.creates), ...(webhookCount ? { catchUpMs } : {}) };
  };
  // the server's creates get faster over their first 20 s or so (after an 8 s warm-up, the first run was the
  // slowest of its scenario in each of four runs)
  await throughput(warmUp);
  // the scenarios take turns, `rounds` times: on a shared machine a run's throughput moves by a third from one run
  // to the next of the same scenario, with what else the machine runs and as the table grows, so each round starts
  // with another scenario, each figure is the median of a scenario's runs, and the drop is the median of each
  // round's (the runs of one round are the nearest in time)
  const scenarios = [
    ["nobody listening", 0, 0],
    ["10 SSE subscribers", 10, 0],
    ["2 webhooks", 0, 2],
    ["10 SSE subscribers + 2 webhooks", 10, 2],
  ] as const;
  const runs = scenarios.map((): Throughput[] => []);
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < scenarios.length; turn++) {
      const i = (round + turn) % scenarios.length;
      const [, subscriberCount, webhookCount] = scenarios[i]!;
      runs[i]![round] = await withListeners(subscriberCount, webhookCount);
    }
  }
  const medianOf = (of: readonly Throughput[], field: (run: Throughput) => number) => percentile([...of.map(field)].sort((a, b) => a - b), 50);
  printTable(
    ["REST creates (median)", "req/s", "req/s of each run", "server CPU s/1000", "event loop CPU s/1000", "listeners CPU s/1000", "deliveries done, ms after"],
    scenarios.map(([name], i) => [
      name,
      Math.round(medianOf(runs[i]!, (run) => run.rps)),
      runs[i]!.map((run) => Math.round(run.rps)).join(" "),
      medianOf(runs[i]!, (run) => run.cpuPerThousand),
      medianOf(runs[i]!, (run) => run.loopCpuPerThousand),
      medianOf(runs[i]!, (run) => run.listenersCpuPerThousand ?? Number.NaN),
      runs[i]![0]?.catchUpMs === undefined ? "-" : Math.round(medianOf(runs[i]!, (run) => run.catchUpMs ?? Number.NaN)),
    ]),
  );
  const drops = runs[3]!.map((both, round) => 1 - both.rps / runs[0]![round]!.rps);
  const drop = percentile([...drops].sort((a, b) => a - b), 50);
  const ofMedians = 1 - medianOf(runs[3]!, (run) => run.rps) / medianOf(runs[0]!, (run) => run.rps);
  const percent = (fraction: number) => `${(fraction * 100).toFixed(1)}%`;
  console.log(`throughput with both, lower by: ${drops.map(percent).join(" ")} in each round; ${percent(ofMedians)} between the medians`);
  console.log(verdict("throughput with listeners", drop <= 0.15, `${percent(drop)} lower than without, the median round (target: at most 15%)`));
  console.log(machineLine());
} finally {
  await server.stop();
}
