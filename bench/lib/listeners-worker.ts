// The listeners of one bench:events run, in a thread of their own (see listeners-thread.ts): started with the
// thread, they answer once listening; told how many deliveries to wait for, they wait, close and answer again.
import { parentPort, workerData } from "node:worker_threads";
import { subscribe } from "../../scripts/lib/sse-client.ts";
import { CountingReceiver } from "./counting-receiver.ts";
import { threadCpuSeconds } from "./cpu.ts";
import type { ListenersReport, ListenersSpec } from "./listeners-thread.ts";

const port = parentPort!;
const { url, key, query, subscribers, webhooks } = workerData as ListenersSpec;
const report = (message: ListenersReport) => port.postMessage(message);

try {
  const receivers = await Promise.all(Array.from({ length: webhooks }, () => CountingReceiver.start()));
  const streams = await Promise.all(Array.from({ length: subscribers }, () => subscribe(url, key, query)));
  const listeningCpu = threadCpuSeconds() ?? Number.NaN;
  port.once("message", (accepted: number) => {
    Promise.all(receivers.map((receiver) => receiver.waitForAccepted(accepted, 300_000)))
      .then(async () => {
        for (const stream of streams) stream.close();
        await Promise.all(receivers.map((receiver) => receiver.close()));
        report({ kind: "done", cpuSeconds: (threadCpuSeconds() ?? Number.NaN) - listeningCpu });
      })
      .catch((error: Error) => report({ kind: "failed", message: error.message }));
  });
  report({ kind: "listening", receiverUrls: receivers.map((receiver) => receiver.url) });
} catch (error) {
  report({ kind: "failed", message: (error as Error).message });
}
