import type { Database } from "../db/database.ts";
import { insertMemories, type InsertedMemory, type NewMemory, type TaskRule } from "./memory-rows.ts";

interface Waiting {
  row: NewMemory;
  resolve(inserted: InsertedMemory | undefined): void;
  reject(error: unknown): void;
}

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
 * thread is not its user's); if a grouped statement fails, its rows are stored one by one, so that one bad
 * row fails only its own create.
 *
 * Written here rather than with DataLoader (which coalesce.ts uses for reads) because DataLoader closes a
 * batch on a schedule, not when the statement before it ends, and cannot cap the statements in flight.
 */
export class GroupInsert {
  private waiting: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;

  /** `maxInFlight`: statements at once; `tasks`: which rows queue index work (TaskRule). */
  constructor(
    private readonly db: Database,
    private readonly maxInFlight: number,
    private readonly tasks: TaskRule,
  ) {}

  insert(row: NewMemory): Promise<InsertedMemory | undefined> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ row, resolve, reject });
      if (this.inFlight < this.maxInFlight && !this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.start();
        });
      }
    });
  }

  private start(): void {
    while (this.waiting.length > 0 && this.inFlight < this.maxInFlight) {
      const group = this.waiting.splice(0, MAX_GROUP_ROWS);
      this.inFlight++;
      void this.store(group).finally(() => {
        this.inFlight--;
        this.start();
      });
    }
  }

  private async store(group: Waiting[]): Promise<void> {
    try {
      const inserted = await insertMemories(this.db, group.map((waiting) => waiting.row), this.tasks);
      const byId = new Map(inserted.map((memory) => [memory.memory.id, memory]));
      for (const waiting of group) waiting.resolve(byId.get(waiting.row.id));
    } catch (error) {
      if (group.length === 1) return group[0]!.reject(error);
      await Promise.all(group.map((waiting) => this.store([waiting])));
    }
  }
}
