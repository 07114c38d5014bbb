import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The directory of the project's package.json: where schema.graphql, prisma/migrations and dashboard/dist are.
 * Found by walking up from this file, because this file runs from src/ (with tsx) or from dist/server/ (built),
 * at different depths.
 */
function findProjectRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error("memory-service: no package.json above the service's code");
  }
}

export const PROJECT_ROOT = findProjectRoot();

/** A path under the project's root. */
export const projectPath = (...parts: string[]): string => join(PROJECT_ROOT, ...parts);

/** The service's version, as its package.json gives it: in the API reference and the MCP server's handshake. */
export const SERVICE_VERSION = (JSON.parse(readFileSync(projectPath("package.json"), "utf8")) as { version: string }).version;
