import type { IncomingMessage, ServerResponse } from "node:http";
import { constants as zlibConstants } from "node:zlib";
import compression from "compression";
import { leftUncompressed } from "../transport/uncompressed.ts";

/**
 * Text answers of 1 KB or more, gzip- or brotli-compressed as the client's Accept-Encoding allows (the
 * `compression` middleware: it only wraps res.write/end, so it needs nothing of Express but the signature).
 * Brotli at quality 4: close to gzip's speed, smaller output; the default 11 costs far more CPU than it saves.
 * Answers marked by leaveUncompressed are left as they are.
 */
const compressing = compression({
  threshold: 1024,
  brotli: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 } },
  filter: (req, res) => !leftUncompressed(res) && compression.filter(req, res),
});

export const compress = (req: IncomingMessage, res: ServerResponse, next: () => void) =>
  compressing(req as Parameters<typeof compressing>[0], res as Parameters<typeof compressing>[1], next);
