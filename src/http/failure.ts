import type { ServerResponse } from "node:http";
import { asAppError, logUnavailable, type AppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { closeIfBodyUnread, send, type Reply } from "../transport/reply.ts";

/**
 * Answers a request that failed, in its protocol's form (`errorReply`); an unexpected failure is logged and
 * shows only as INTERNAL.
 */
export function answerFailure(res: ServerResponse, error: unknown, errorReply: (error: AppError) => Reply, logger: Logger, requestId: string): void {
  if (res.destroyed) {
    // the client went away (mid-body, say): nobody to answer, and nothing wrong with the server
    logger.debug({ err: error, requestId }, "client closed the connection");
    return;
  }
  const appError = asAppError(error);
  if (appError.code === "INTERNAL") logger.error({ err: appError.cause ?? error, requestId }, "request failed");
  logUnavailable(logger, appError, { requestId });
  if (res.headersSent) {
    res.destroy();
    return;
  }
  closeIfBodyUnread(res);
  send(res, errorReply(appError));
}
