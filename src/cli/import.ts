// npm run import -- --user <id|handle> [--file <file>]   (NDJSON, as npm run export writes it; stdin without --file)
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { parseArgs } from "node:util";
import { loadConfig } from "../config.ts";
import { AppError } from "../errors.ts";
import { withPortability } from "./portability.ts";
import { runCli, UsageError } from "./run.ts";

const USAGE = "usage: npm run import -- --user <id|handle> [--file <export.ndjson>]   (stdin without --file)";

/** Checks the export is a file that can be read before the database is opened: runCli reports one that is not. */
async function mustRead(path: string): Promise<void> {
  const handle = await open(path, "r");
  const directory = (await handle.stat()).isDirectory();
  await handle.close();
  if (directory) throw new UsageError(`${path} is a directory, not an export`);
}

await runCli(USAGE, async (print) => {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { user: { type: "string" }, file: { type: "string" } },
  });
  if (!values.user || positionals.length) throw new UsageError("import needs --user");
  const started = performance.now();
  if (values.file) await mustRead(values.file);
  // a stream of its own for each way withPortability tries (the running server's, then this process')
  const summary = await withPortability(loadConfig(), (portability) =>
    portability.importNdjson(values.user!, values.file ? createReadStream(values.file) : process.stdin, (result) => {
      if (result.status === "failed") console.error(`line ${result.line}: ${result.error?.code} ${result.error?.message}`);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const records = summary.created + summary.updated + summary.skipped + summary.failed;
  print(
    `Imported into ${values.user}: ${summary.created} created, ${summary.updated} updated, ${summary.skipped} skipped, ` +
      `${summary.failed} failed, in ${seconds.toFixed(1)} s (${Math.round(records / Math.max(seconds, 0.001))} records/s).`,
  );
  if (summary.failed > 0) throw new AppError("VALIDATION_ERROR", `${summary.failed} records failed (see above)`);
});
