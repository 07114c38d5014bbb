import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const baseEnv = () => {
  // the child reads its configuration from the environment: start from a clean one
  const env = { ...process.env };
  for (const name of ["DATABASE_URL", "DATA_DIR", "PORT", "HOST", "QDRANT_URL", "OPENAI_API_KEY", "REDIS_URL"]) delete env[name];
  return env;
};

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `npm run <script> -- <args>` as an operator would. */
export async function npmRun(script: string, args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = spawn("npm", ["run", script, "--", ...args], { cwd: root, env: { ...baseEnv(), ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  log: string[];
}

/** `npm start` in a child process on a free port; resolves once it listens. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  // what `npm start` runs, without npm in between, so that the signal reaches the server itself
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: root,
    env: { ...baseEnv(), PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
  });
  const exited = once(child, "exit").then(([code]) => code as number | null);
  const log: string[] = [];
  child.stderr?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      log.push(line);
      const match = /"url":"http:\/\/[^:]+:(\d+)"/.exec(line);
      if (match) resolve(`http://127.0.0.1:${match[1]}`);
    });
    void exited.then((code) => reject(new Error(`server exited (${code}) before listening:\n${log.join("\n")}`)));
  });
  return { url, child, exited, log };
}
