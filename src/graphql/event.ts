import { isUuid } from "../domain/ids.ts";
import { unknownThread } from "../domain/memory-input.ts";
import { invalid } from "../errors.ts";
import {
  EVENT_TYPES,
  eventTypeName,
  MEMORY_EVENT_TYPES,
  THREAD_EVENT_TYPES,
  type ChangeEvent,
  type EventType,
} from "../events/change-event.ts";
import { builder } from "./builder.ts";
import type { Context } from "./context.ts";

const enumValues = Object.fromEntries(EVENT_TYPES.map((type) => [eventTypeName(type), { value: type }])) as Record<
  string,
  { value: EventType }
>;

export const EventTypeEnum = builder.enumType("EventType", {
  description: "What changed: memory.created is MEMORY_CREATED, and so on (webhook bodies carry the dotted name).",
  values: enumValues,
});

const ChangeEventRef = builder.interfaceRef<ChangeEvent>("ChangeEvent").implement({
  description: "A committed change to one of your memories or threads.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The event's own id: the same for every subscriber that receives it." }),
    type: t.field({ type: EventTypeEnum, resolve: (event) => event.type }),
    timestamp: t.field({ type: "DateTime", description: "When the change was made.", resolve: (event) => new Date(event.timestamp) }),
    data: t.field({
      type: "JSONObject",
      nullable: true,
      description: "The object after the change, with the fields its GraphQL type has (by the same names); null for a delete.",
      resolve: (event) => event.data,
    }),
  }),
});

const MemoryEvent = builder.objectRef<ChangeEvent>("MemoryEvent").implement({
  interfaces: [ChangeEventRef],
  fields: (t) => ({
    memoryId: t.exposeID("objectId"),
    threadId: t.exposeID("threadId", {
      nullable: true,
      description: "The memory's thread after the change, or before it when the change took the memory out of it.",
    }),
    previousThreadId: t.exposeID("previousThreadId", {
      nullable: true,
      description: "The memory's thread before the change, when the change moved it to another thread or out of any.",
    }),
  }),
});

const ThreadEvent = builder.objectRef<ChangeEvent>("ThreadEvent").implement({
  interfaces: [ChangeEventRef],
  fields: (t) => ({ threadId: t.exposeID("objectId") }),
});

/**
 * The caller's events of the types asked for (all of `family` when none are), optionally of one of their threads
 * only (another's, or none, is refused as writes refuse it: such a stream carried nothing, and said nothing).
 */
async function eventsOf(
  { principal, services }: Context,
  family: readonly EventType[],
  types: readonly EventType[] | null | undefined,
  threadId: string | null | undefined,
): Promise<AsyncIterable<ChangeEvent>> {
  const wanted = new Set<EventType>(types?.length ? types : family);
  const stray = [...wanted].find((type) => !family.includes(type));
  if (stray) throw invalid("types", `${stray} is not one of ${family.join(", ")}`);
  if (threadId != null && !isUuid(threadId)) throw invalid("threadId", "must be a thread id");
  if (threadId != null && !(await services.threads.get(principal, threadId, { select: { id: true } }))) throw unknownThread();
  const events = services.events.subscribe(principal.userId, (event) => wanted.has(event.type) && (threadId == null || event.threadId === threadId || event.previousThreadId === threadId));
  return whileStanding(events, () => services.apiKeys.stands(principal.keyId));
}

/**
 * `source` until `stands` answers no at an event: a stream opened with a key that is revoked ends at its next event,
 * which it does not carry. Written as an iterator rather than an async generator, whose return() would wait for
 * the event being awaited: a subscriber that leaves ends its feed at once.
 */
function whileStanding(source: AsyncIterable<ChangeEvent>, stands: () => Promise<boolean>): AsyncIterable<ChangeEvent> {
  return {
    [Symbol.asyncIterator]() {
      const events = source[Symbol.asyncIterator]();
      const finished = (): Promise<IteratorResult<ChangeEvent>> =>
        (events.return?.() ?? Promise.resolve({ done: true, value: undefined })).then(() => ({ done: true, value: undefined }));
      return {
        async next() {
          const next = await events.next();
          if (next.done || (await stands())) return next;
          return finished();
        },
        return: finished,
      };
    },
  };
}

builder.subscriptionFields((t) => {
  const eventsOfFamily = (type: typeof MemoryEvent, family: readonly EventType[], description: string, ofThread: string) =>
    t.field({
      type,
      description,
      args: {
        types: t.arg({ type: [EventTypeEnum], description: `Only these of ${family.join(", ")}; all of them when absent.` }),
        threadId: t.arg.id({ description: ofThread }),
      },
      subscribe: (_root, { types, threadId }, context) => eventsOf(context, family, types, threadId),
      resolve: (event) => event,
    });
  return {
    memoryEvents: eventsOfFamily(
      MemoryEvent,
      MEMORY_EVENT_TYPES,
      "Changes to your memories as they are committed (over Server-Sent Events: POST /graphql with Accept: text/event-stream).",
      "Only memories of this thread, and those a change moved out of it (previousThreadId).",
    ),
    threadEvents: eventsOfFamily(ThreadEvent, THREAD_EVENT_TYPES, "Changes to your threads as they are committed.", "Only this thread."),
  };
});
