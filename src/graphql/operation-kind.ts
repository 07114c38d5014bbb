import { getOperationAST, parse, type OperationTypeNode } from "graphql";

/**
 * The kind of operation a POST body asks for (query, mutation or subscription); undefined when the body does not
 * say one (not JSON, no document, a document that does not parse or names no operation), which Yoga then answers.
 * Read for requests that carry an Idempotency-Key only: Yoga parses the document again, from its cache.
 */
export function operationKind(body: string): OperationTypeNode | undefined {
  try {
    const { query, operationName } = JSON.parse(body) as { query?: unknown; operationName?: unknown };
    if (typeof query !== "string") return undefined;
    return getOperationAST(parse(query), typeof operationName === "string" ? operationName : undefined)?.operation;
  } catch {
    return undefined;
  }
}
