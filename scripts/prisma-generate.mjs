#!/usr/bin/env node
// Runs `prisma generate` without network access.
//
// The Prisma CLI looks for its native schema engine at the start of every command and tries to download it
// when it is missing. `prisma generate` never executes that engine (it uses the WebAssembly bundled in the
// CLI), so when no engine is installed we point PRISMA_SCHEMA_ENGINE_BINARY at a stub that only explains
// itself. The generated client is the same either way; an engine that is installed (or named by the caller)
// is used as is.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

function installedEngine() {
  try {
    const enginesDir = dirname(require.resolve("@prisma/engines/package.json"));
    const binary = readdirSync(enginesDir).find((name) => name.startsWith("schema-engine"));
    return binary ? join(enginesDir, binary) : undefined;
  } catch {
    return undefined;
  }
}

const env = {
  ...process.env,
  // the Pothos generator is a package binary; npm puts it on PATH only inside npm scripts
  PATH: [join(root, "node_modules", ".bin"), process.env.PATH].join(delimiter),
  PRISMA_HIDE_UPDATE_MESSAGE: "1",
  CHECKPOINT_DISABLE: "1",
};
if (!env.PRISMA_SCHEMA_ENGINE_BINARY && !installedEngine()) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = join(root, "scripts", "schema-engine-unavailable.mjs");
}

const cli = join(dirname(require.resolve("prisma/package.json")), "build", "index.js");
const result = spawnSync(process.execPath, [cli, "generate"], { cwd: root, env, stdio: "inherit" });
process.exit(result.status ?? 1);
