// npm run bench:http [-- --seconds 8 --connections 32 --only get]
// REST create/get/list against the same operations over GraphQL, on a server started in a child process on
// loopback (PGlite unless DATABASE_URL is set). Prints req/s, p50/p99 latency and the REST/GraphQL ratio.
import autocannon from "autocannon";
import { parseArgs } from "node:util";
import { startBenchServer } from "./lib/server.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "8" },
    connections: { type: "string", default: "32" },
    only: { type: "string" }, // create, get or list
  },
});
const duration = Number(values.seconds);
const connections = Number(values.connections);

const server = await startBenchServer();
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
const randomId = () => ids[Math.floor(Math.random() * ids.length)]!;
const gql = (query: string, variables: object) => JSON.stringify({ query, variables });

type Scenario = { name: string; request: () => autocannon.Request };
const scenarios: Record<string, [Scenario, Scenario]> = {
  create: [
    {
      name: "REST POST /api/v1/memory",
      request: () => ({ method: "POST", path: "/api/v1/memory", body: JSON.stringify({ content: "bench write", tags: ["b"] }) }),
    },
    {
      name: "GraphQL createMemory",
      request: () => ({
        method: "POST",
        path: "/graphql",
        body: gql(`mutation ($input: CreateMemoryInput!) { createMemory(input: $input) { ${FIELDS} } }`, {
          input: { content: "bench write", tags: ["b"] },
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
};

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function run(scenario: Scenario): Promise<Figures> {
  const result = await autocannon({
    url,
    connections,
    duration,
    headers: auth,
    requests: [{ setupRequest: (req) => ({ ...req, ...scenario.request() }) }],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

const rows: string[] = [];
const line = (name: string, f: Figures) =>
  `${name.padEnd(36)} ${f.rps.toFixed(0).padStart(8)} req/s   p50 ${f.p50.toFixed(1).padStart(6)} ms   p99 ${f.p99
    .toFixed(1)
    .padStart(6)} ms${f.errors ? `   ${f.errors} errors` : ""}`;

console.log(`server: ${server.database}, ${connections} connections, ${duration}s per scenario\n`);
for (const [op, [rest, graphql]] of Object.entries(scenarios)) {
  if (values.only && values.only !== op) continue;
  await run(rest); // warm-up on the same path
  const r = await run(rest);
  const g = await run(graphql);
  rows.push(line(rest.name, r), line(graphql.name, g));
  const overhead = ((g.rps / r.rps - 1) * 100).toFixed(1);
  rows.push(`  ${op}: REST/GraphQL throughput ratio ${(r.rps / g.rps).toFixed(2)} (REST costs ${overhead}% vs GraphQL)\n`);
  console.log(rows.slice(-3).join("\n"));
}
await server.stop();
