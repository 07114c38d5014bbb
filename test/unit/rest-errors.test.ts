import { describe, expect, it } from "vitest";
import { AppError, invalid } from "../../src/errors.ts";
import { restError, restErrorReply } from "../../src/rest/errors.ts";

describe("a failure as REST shows it", () => {
  it.each([
    ["threadId", "must be a thread id", "thread_id must be a thread id"],
    ["and[0].threadId", "must be a thread id", "and[0].thread_id must be a thread id"],
    ["filter.or[1].not.threadId", "must be a thread id", "filter.or[1].not.thread_id must be a thread id"],
    ["memories[3].data", "must be an object", "memories[3].content must be an object"],
    ["memories[3].threadId", "must be a thread id", "memories[3].thread_id must be a thread id"],
    // keys inside metadata or a record are the caller's own
    ["metadata.dueDate", "is too long", "metadata.dueDate is too long"],
    ["data.firstName", "is too long", "content.firstName is too long"],
    ["metadata[0].fromNow", "is not an operator (eq, in)", "metadata[0].fromNow is not an operator (eq, in)"],
    // a name the service does not know is echoed as the caller sent it; the names it knows are listed the REST way
    ["and[0].colourName", "is not a field here (known: and, isArchived, threadId)", "and[0].colourName is not a field here (known: and, is_archived, thread_id)"],
    ["or[1].threadId.fooBar", "is not a field here (known: data, expiresAt)", "or[1].thread_id.fooBar is not a field here (known: content, expires_at)"],
    // ...a filter's as REST names it, which the filter renamed before GraphQL found a list's filter has no such field
    ["not.fromDate", "is not a field here (known: isArchived)", "not.from_date is not a field here (known: is_archived)"],
    ["or[0].isArchived", "is not a filter field (known: and, or, threadId)", "or[0].is_archived is not a filter field (known: and, or, thread_id)"],
    ["threadId", "is not a query parameter of this route (known: limit, thread_id)", "threadId is not a query parameter of this route (known: limit, thread_id)"],
    // a route's query parameters as it reads them: the legacy scope's are camelCase
    ["workspace_id", "is not a query parameter of this route (known: workspaceId, userId)", "workspace_id is not a query parameter of this route (known: workspaceId, userId)"],
    ["colour_name", "is not a field of a memory", "colour_name is not a field of a memory"],
  ])("names %s the REST way", (field, reason, message) => {
    expect(restError(invalid(field, reason))).toEqual({ code: "VALIDATION_ERROR", message });
  });

  it("leaves a message about no field as it is", () => {
    const error = new AppError("VALIDATION_ERROR", "a GraphQL document names isArchived");
    expect(restError(error).message).toBe("a GraphQL document names isArchived");
  });

  it("names the first field the legacy routes' way on them, camelCase with kind for type", () => {
    const reply = restErrorReply(invalid("type", "must be a string"), { camelCaseFields: true });
    expect(JSON.parse(reply.body)).toEqual({ error: { code: "VALIDATION_ERROR", message: "kind must be a string" } });
    const nested = restErrorReply(invalid("threadId", "must be a thread id"), { camelCaseFields: true });
    expect(JSON.parse(nested.body)).toEqual({ error: { code: "VALIDATION_ERROR", message: "threadId must be a thread id" } });
  });
});
