import type { messages, PGlite } from "@electric-sql/pglite";
import { serialize } from "pg-protocol";

/** A statement parsed once under a name of its own, with the types of its parameters and of its columns. */
interface Prepared {
  name: string;
  parameterTypes: number[];
  columns: { name: string; type: number }[];
}

// statements kept prepared, the least recently used closed beyond it: the service's raw SQL is a few dozen texts,
// some in a few variants (a group of 1 to n reads, with or without a part)
const LIMIT = 200;
// PostgreSQL's "cached plan must not change result type": a table a statement reads changed its columns
const PLAN_CHANGED = "0A000";
// statement names, unique in the process: two instances on one database never take each other's
let named = 0;

type BackendMessage = messages.BackendMessage;
const isDataRow = (message: BackendMessage): message is messages.DataRowMessage => message.name === "dataRow";
const byName = <M extends BackendMessage>(replies: BackendMessage[], name: string) => replies.find((message) => message.name === name) as M | undefined;

/**
 * Raw SQL on the embedded database through statements prepared once per text (as postgres.js does by default),
 * where PGlite's `query` parses, plans and describes every statement anew, in six calls into its WebAssembly (the
 * statement recording a webhook round, measured alone: 0.5-0.7 ms against 1.9-3.9). After its first five runs
 * PostgreSQL keeps a statement's generic plan when that costs no more than the plans it made for the values given
 * (its plan_cache_mode auto), so a statement whose best plan depends on its values is still planned for them.
 * Callers hold PGlite's query lock (`query` takes it).
 */
export class PreparedStatements {
  private readonly statements = new Map<string, Prepared>();

  constructor(
    private readonly pglite: PGlite,
    private readonly limit = LIMIT,
  ) {}

  /** The rows of `text` run with `params`, as PGlite's `query` gives them. */
  async query<R>(text: string, params: readonly unknown[] = [], inTransaction = false): Promise<R[]> {
    const prepared = this.statements.get(text);
    if (!prepared) return this.run<R>(text, await this.prepare(text), params, inTransaction);
    try {
      return await this.run<R>(text, prepared, params, inTransaction);
    } catch (error) {
      // outside a transaction, which the error would have ended, once more with the statement prepared anew
      if ((error as { code?: string }).code !== PLAN_CHANGED || inTransaction) throw error;
      await this.close(text);
      return this.run<R>(text, await this.prepare(text), params, inTransaction);
    }
  }

  private async prepare(text: string): Promise<Prepared> {
    const name = `s${++named}`;
    const { messages: replies } = await this.pglite.execProtocol(
      Buffer.concat([serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()]),
      { syncToFs: false },
    );
    const prepared: Prepared = {
      name,
      parameterTypes: byName<messages.ParameterDescriptionMessage>(replies, "parameterDescription")?.dataTypeIDs ?? [],
      columns: byName<messages.RowDescriptionMessage>(replies, "rowDescription")?.fields.map((field) => ({ name: field.name, type: field.dataTypeID })) ?? [],
    };
    this.statements.set(text, prepared);
    if (this.statements.size > this.limit) await this.close(this.statements.keys().next().value!);
    return prepared;
  }

  private async close(text: string): Promise<void> {
    const prepared = this.statements.get(text);
    if (!prepared) return;
    this.statements.delete(text);
    await this.pglite.execProtocol(Buffer.concat([serialize.close({ type: "S", name: prepared.name }), serialize.sync()]), { syncToFs: false });
  }

  private async run<R>(text: string, prepared: Prepared, params: readonly unknown[], inTransaction: boolean): Promise<R[]> {
    // the most recently used last: the first is the one to close
    this.statements.delete(text);
    this.statements.set(text, prepared);
    const { serializers, parsers } = this.pglite;
    const values = params.map((value, i): string | Buffer | null => {
      if (value === null || value === undefined) return null;
      const serializer = serializers[prepared.parameterTypes[i]!];
      const serialized: unknown = serializer ? serializer(value) : String(value);
      // a byte view goes as a binary parameter (pglite-engine.ts' bytea codec), which the protocol writer takes as a Buffer
      return serialized instanceof Uint8Array ? Buffer.from(serialized.buffer, serialized.byteOffset, serialized.byteLength) : String(serialized);
    });
    const { messages: replies } = await this.pglite.execProtocol(
      Buffer.concat([serialize.bind({ statement: prepared.name, values }), serialize.execute({}), serialize.sync()]),
      { syncToFs: !inTransaction },
    );
    return replies.filter(isDataRow).map((row) => {
      const record: Record<string, unknown> = {};
      prepared.columns.forEach(({ name, type }, i) => {
        const field = row.fields[i];
        const parser = parsers[type];
        record[name] = field === null || field === undefined ? null : parser ? parser(field, type) : field;
      });
      return record as R;
    });
  }
}
