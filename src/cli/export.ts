// npm run export -- --user <id|handle> [--out <file>] [--history] [--embeddings]
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { withPortability } from "./portability.ts";
import { runCli, UsageError } from "./run.ts";

const USAGE = "usage: npm run export -- --user <id|handle> [--out <file>] [--history] [--embeddings]";

/** The file the export goes to, made now: a path it cannot be made at fails here, as an error runCli reports. */
async function created(path: string): Promise<NodeJS.WritableStream> {
  const stream = createWriteStream(path, { mode: 0o600 });
  await once(stream, "open");
  return stream;
}

/**
 * Whether stdout's reader has gone (`npm run export | head`): the export then ends quietly, as Unix tools do,
 * rather than with EPIPE's stack. Any other failure of stdout is thrown.
 */
function stdoutReader(): { gone(): boolean } {
  let failure: NodeJS.ErrnoException | undefined;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => (failure ??= error));
  return {
    gone() {
      if (failure && failure.code !== "EPIPE") throw failure;
      return failure !== undefined;
    },
  };
}

/** Writes a line, waiting while the stream is full; false once stdout's reader has gone. */
async function written(out: NodeJS.WritableStream, line: string, reader: { gone(): boolean }): Promise<boolean> {
  try {
    if (!out.write(line)) await once(out, "drain");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPIPE") throw error;
  }
  return !reader.gone();
}

await runCli(USAGE, async (print) => {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      user: { type: "string" },
      out: { type: "string" },
      history: { type: "boolean", default: false },
      embeddings: { type: "boolean", default: false },
    },
  });
  if (!values.user || positionals.length) throw new UsageError("export needs --user");
  const started = performance.now();
  const counts = { thread: 0, memory: 0 };
  const reader = stdoutReader();
  await withPortability(loadConfig(), async (portability) => {
    // the file is made once the first line is there: a user that does not exist leaves none behind
    let out: NodeJS.WritableStream | undefined;
    for await (const line of portability.exportLines(values.user!, { history: values.history, embeddings: values.embeddings })) {
      out ??= values.out ? await created(values.out) : process.stdout;
      const kind = (line as { kind?: string }).kind;
      if (kind === "thread" || kind === "memory") counts[kind]++;
      if (!(await written(out, `${JSON.stringify(line)}\n`, reader))) return;
    }
    if (values.out) {
      out ??= await created(values.out);
      await new Promise<void>((resolve, reject) => out!.end(() => resolve()).on("error", reject));
    }
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const summary = `Exported ${counts.thread} threads and ${counts.memory} memories of ${values.user} in ${seconds} s.`;
  // with no file, stdout is the export itself
  if (values.out) print(summary);
  else if (!reader.gone()) console.error(summary);
});
