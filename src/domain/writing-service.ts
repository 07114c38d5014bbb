import type { Limits } from "../config.ts";
import type { Database } from "../db/database.ts";
import type { EventRelay } from "../events/event-relay.ts";
import type { Indexer } from "./indexer.ts";
import type { ListTotals } from "./list-totals.ts";

/**
 * What a service that writes a user's memories needs: the database, the limits its input is checked against,
 * the list totals and the indexer its writes keep current, and the relay each commit wakes.
 */
export abstract class WritingService {
  constructor(
    protected readonly db: Database,
    protected readonly limits: Limits,
    protected readonly totals: ListTotals,
    protected readonly indexer: Indexer,
    protected readonly relay: EventRelay,
  ) {}
}
