// npm run bench:http [-- --seconds 8 --connections 32 --only get --same-content]
// REST create/get/list against the same operations over GraphQL, on a server started in a child process on
// loopback (PGlite unless DATABASE_URL is set). Prints req/s, p50/p99 latency, the server's CPU seconds per 1 000
// requests (the server process' user + system time, worker threads included) and the REST/GraphQL ratio, then
// the write targets of issue 14: single creates at least 0.3× the get-by-id throughput, at most 1 CPU second per
// 1 000, p99 at most 5× p50. Each create writes a text of its own; `--same-content` one text every time.
import autocannon from "autocannon";
import { parseArgs } from "node:util";
import { chatTurns } from "./lib/corpus.ts";
import { cpuSeconds } from "./lib/cpu.ts";
import { machineLine } from "./lib/machine.ts";
import { startBenchServer } from "./lib/server.ts";
import { printTable, verdict, type Cell } from "./lib/table.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "8" },
    connections: { type: "string", default: "32" },
    only: { type: "string" }, // create, get or list
    // the hashed embedder embeds as it writes, at a few µs a memory; with the sentence encoder the memories
    // created here would be embedded in the background during the next scenarios, on the same two cores
    embedder: { type: "string", default: "hash" },
    "same-content": { type: "boolean", default: false },
  },
});
const duration = Number(values.seconds);
const connections = Number(values.connections);

const server = await startBenchServer({ EMBEDDER: values.embedder });
const { url, key } = server;
const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
const FIELDS = "id content data type tags metadata threadId isArchived createdAt updatedAt";

async function seed(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${url}/api/v1/memory`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ content: `seed memory ${i}: the user likes item ${i % 97}`, tags: ["seed"], type: "observation" }),
    });
    ids.push(((await res.json()) as { id: string }).id);
  }
  return ids;
}

const ids = await seed(1000);
// what a chat application writes, a memory per turn: each create a text of its own (the corpus' memories in turn).
// `--same-content` writes one text every time: an index treats repeated identical vectors as a case of its own
const nextTurn = chatTurns();
const nextContent = () => (values["same-content"] ? "bench write" : nextTurn());
const randomId = () => ids[Math.floor(Math.random() * ids.length)]!;
const gql = (query: string, variables: object) => JSON.stringify({ query, variables });

type Scenario = { name: string; request: () => autocannon.Request };
const scenarios = {
  create: [
    {
      name: "REST POST /api/v1/memory",
      request: () => ({ method: "POST", path: "/api/v1/memory", body: JSON.stringify({ content: nextContent(), tags: ["b"] }) }),
    },
    {
      name: "GraphQL createMemory",
      request: () => ({
        method: "POST",
        path: "/graphql",
        body: gql(`mutation ($input: CreateMemoryInput!) { createMemory(input: $input) { ${FIELDS} } }`, {
          input: { content: nextContent(), tags: ["b"] },
        }),
      }),
    },
  ],
  get: [
    { name: "REST GET /api/v1/memories/{id}", request: () => ({ method: "GET", path: `/api/v1/memories/${randomId()}` }) },
    {
      name: "GraphQL memory(id)",
      request: () => ({
        method: "POST",
        path: "/graphql",
        body: gql(`query ($id: ID!) { memory(id: $id) { ${FIELDS} } }`, { id: randomId() }),
      }),
    },
  ],
  list: [
    { name: "REST GET /api/v1/memory?limit=20", request: () => ({ method: "GET", path: "/api/v1/memory?limit=20" }) },
    {
      name: "GraphQL memories(limit: 20)",
      request: () => ({
        method: "POST",
        path: "/graphql",
        body: gql(`query { memories(limit: 20) { total limit offset hasMore items { ${FIELDS} } } }`, {}),
      }),
    },
  ],
} satisfies Record<string, [Scenario, Scenario]>;

let writers = 0;

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** The server's CPU seconds per 1 000 requests (undefined without /proc). */
  cpuPerThousand: number | undefined;
}

async function run(scenario: Scenario, op: string): Promise<Figures> {
  // each create run writes as a user of its own: a run after another would otherwise write into a larger store,
  // and past 50 000 vectors a user's partition starts building its graph in the background (usearch)
  const headers = op === "create" ? { ...auth, authorization: `Bearer ${await server.newKey(`writer-${++writers}@example.com`)}` } : auth;
  const cpuBefore = cpuSeconds(server.pid);
  const result = await autocannon({
    url,
    connections,
    duration,
    headers,
    requests: [{ setupRequest: (req) => ({ ...req, ...scenario.request() }) }],
  });
  const cpuAfter = cpuSeconds(server.pid);
  const requests = result.requests.total;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    cpuPerThousand: cpuBefore === undefined || cpuAfter === undefined ? undefined : ((cpuAfter - cpuBefore) * 1000) / requests,
  };
}

console.log(
  `bench:http  ${server.database}, EMBEDDER=${values.embedder}, ${connections} connections, ${duration} s a scenario (after ${duration} s of warm-up on its REST path)`,
);
console.log(machineLine());
const measured = new Map<string, Figures>();
for (const [op, pair] of Object.entries(scenarios)) {
  if (values.only && values.only !== op) continue;
  await run(pair[0], op); // warm-up on the same path
  for (const scenario of pair) measured.set(scenario.name, await run(scenario, op));
}
const rows: Cell[][] = [...measured].map(([name, f]) => [
  name,
  Math.round(f.rps),
  f.p50,
  f.p99,
  f.p50 > 0 ? f.p99 / f.p50 : Number.NaN,
  f.cpuPerThousand ?? Number.NaN,
  f.errors,
]);
printTable(["scenario", "req/s", "p50 ms", "p99 ms", "p99/p50", "CPU s/1000", "errors"], rows);
console.log(machineLine());

const [restCreate, graphqlCreate] = scenarios.create.map((s) => measured.get(s.name));
const [restGet] = scenarios.get.map((s) => measured.get(s.name));
for (const [label, create] of [["REST", restCreate], ["GraphQL", graphqlCreate]] as const) {
  if (!create) continue;
  if (restGet) {
    const ratio = create.rps / restGet.rps;
    console.log(verdict(`${label} single create throughput`, ratio >= 0.3, `${ratio.toFixed(2)}× REST get-by-id (${Math.round(create.rps)} vs ${Math.round(restGet.rps)} req/s) >= 0.3×`));
  }
  if (create.cpuPerThousand !== undefined) {
    console.log(verdict(`${label} CPU per 1 000 single creates`, create.cpuPerThousand <= 1, `${create.cpuPerThousand.toFixed(2)} s <= 1 s`));
  }
  console.log(verdict(`${label} create tail`, create.p99 <= 5 * create.p50, `p99 ${create.p99} ms = ${(create.p99 / create.p50).toFixed(1)}× p50 ${create.p50} ms <= 5×`));
}
await server.stop();
