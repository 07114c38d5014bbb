import type { ServerResponse } from "node:http";

const leftAlone = new WeakSet<ServerResponse>();

/**
 * Keeps the compression middleware (http/compression.ts) off an answer: one sent in encodings made ahead of time
 * (which a client accepting none of them gets uncompressed, rather than a 5 MB script deflated again at each
 * request), or an event stream (which compression would hold back).
 */
export const leaveUncompressed = (res: ServerResponse): void => void leftAlone.add(res);

export const leftUncompressed = (res: ServerResponse): boolean => leftAlone.has(res);
