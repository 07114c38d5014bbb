import type { Database } from "../db/database.ts";
import { insertMemories, type InsertedMemory, type NewMemory, type TaskRule } from "./memory-rows.ts";

import { StatementGroups } from "./statement-groups.ts";

// as many rows as a batch create may hold: one statement of this size costs about what four single ones do
const MAX_GROUP_ROWS = 100;

/**
 * Group commit for single creates. A create costs the database a fixed price per statement (on the embedded
 * one, most of the write's CPU) and little per row, so the creates that arrive while a statement is running
 * wait for it to end and are then stored together, in one multi-row statement: the batch path's cost, for
 * writers that each send one memory. A create that finds nothing running goes at the next turn of the event
 * loop, with whatever arrived in the same turn.
 *
 * Each caller still gets its own outcome: its row as stored, or undefined when the statement left it out (its
 * thread is not its user's); if a grouped statement fails, its rows are stored one by one (StatementGroups).
 */
export class GroupInsert {
  private readonly groups: StatementGroups<NewMemory, InsertedMemory | undefined>;

  /** `maxInFlight`: statements at once; `tasks`: which rows queue index work (TaskRule). */
  constructor(db: Database, maxInFlight: number, tasks: TaskRule) {
    this.groups = new StatementGroups(
      async (rows) => {
        const byId = new Map((await insertMemories(db, rows, tasks)).map((memory) => [memory.memory.id, memory]));
        return rows.map((row) => byId.get(row.id));
      },
      { maxInFlight, maxGroup: MAX_GROUP_ROWS, gatherTurn: true },
    );
  }

  insert(row: NewMemory): Promise<InsertedMemory | undefined> {
    return this.groups.submit(row);
  }
}
