import type { AppError } from "../errors.ts";
import { jsonReply, type Reply } from "../transport/reply.ts";

/**
 * The answer to a GraphQL request refused before Yoga saw it (no key, too large, rate-limited, the service still
 * starting, …). A module of its own, light: the server that answers while the service starts imports it.
 */
export const graphqlErrorReply = (error: AppError): Reply =>
  jsonReply(error.status, { errors: [{ message: error.message, extensions: { code: error.code } }] }, { ...error.headers });
