import type { ServerResponse } from "node:http";
import { AppError } from "../errors.ts";
import { bodyText } from "./body.ts";

export const NDJSON = "application/x-ndjson";

/** One line of an NDJSON body (numbered from 1, blank lines counted and skipped), or why it cannot be read. */
export type BodyLine = { line: number; text: string } | { line: number; error: AppError };

export interface NdjsonLimits {
  /** A longer line fails alone: it is skipped without being held. */
  maxLineBytes: number;
  /** A longer body fails the request (PAYLOAD_TOO_LARGE) when the reading reaches the limit. */
  maxTotalBytes: number;
}

const NEWLINE = 0x0a;

/**
 * The lines of a body as they arrive, holding one line at a time: a body of any length is read in constant
 * memory, and the reader's pace (the caller storing each batch) holds the sender back.
 */
export async function* ndjsonLines(body: AsyncIterable<Uint8Array>, { maxLineBytes, maxTotalBytes }: NdjsonLimits): AsyncGenerator<BodyLine> {
  let parts: Uint8Array[] = [];
  let lineBytes = 0;
  let total = 0;
  let line = 0;
  const finish = (): BodyLine | undefined => {
    line++;
    const tooLong = lineBytes > maxLineBytes;
    const bytes = tooLong ? undefined : Buffer.concat(parts);
    parts = [];
    lineBytes = 0;
    if (tooLong) return { line, error: new AppError("PAYLOAD_TOO_LARGE", `The line must be at most ${maxLineBytes} bytes`) };
    try {
      const text = bodyText(bytes!).trim();
      return text ? { line, text } : undefined;
    } catch (error) {
      return { line, error: error as AppError };
    }
  };
  for await (const chunk of body) {
    total += chunk.length;
    if (total > maxTotalBytes) throw new AppError("PAYLOAD_TOO_LARGE", `The request body must be at most ${maxTotalBytes} bytes`);
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      keep(chunk.subarray(start, end));
      const done = finish();
      if (done) yield done;
      start = end + 1;
    }
    keep(chunk.subarray(start));
  }
  if (lineBytes > 0) {
    const done = finish();
    if (done) yield done;
  }

  // a line past the limit is counted, not kept
  function keep(part: Uint8Array): void {
    lineBytes += part.length;
    if (lineBytes <= maxLineBytes && part.length) parts.push(part);
  }
}

/**
 * Sends `items` as NDJSON, one JSON line each, as they come: a write the socket cannot take yet waits for it
 * to drain, so the producer (an export reading page by page) runs no further ahead than the client reads. A
 * failure after the first byte cannot change the status any more: it ends the stream with `errorLine(error)`
 * and is then thrown. A client that goes away ends the producer.
 */
export async function sendNdjson(
  res: ServerResponse,
  headers: Record<string, string>,
  items: AsyncIterable<unknown>,
  errorLine: (error: unknown) => unknown,
): Promise<void> {
  res.writeHead(200, { ...headers, "content-type": `${NDJSON}; charset=utf-8` });
  // a HEAD request gets the headers only: the items are never asked for, so nothing is read for them
  if (res.req.method === "HEAD") return void res.end();
  // one listener each for the whole stream (compression moves "drain" listeners to its own stream)
  let wake: (() => void) | undefined;
  const ready = () => wake?.();
  res.on("drain", ready).on("close", ready);
  try {
    for await (const item of items) {
      if (!res.write(`${JSON.stringify(item)}\n`) && !res.destroyed) await new Promise<void>((resolve) => (wake = resolve));
      if (res.destroyed) return;
    }
  } catch (error) {
    res.end(`${JSON.stringify(errorLine(error))}\n`);
    throw error;
  }
  res.end();
}
