import { parse, type messages, type PGlite, type QueryOptions, type Results } from "@electric-sql/pglite";
import { serialize } from "pg-protocol";

/** A statement parsed once under a name of its own, with the types of its parameters and the description of its rows. */
interface Prepared {
  name: string;
  parameterTypes: number[];
  rows: messages.RowDescriptionMessage | undefined;
}

/** How a statement runs: in a transaction (which syncs its files at its end), with PGlite's options of `query`. */
export interface RunOptions extends Pick<QueryOptions, "rowMode" | "parsers"> {
  inTransaction?: boolean;
}

// statements kept prepared, the least recently used closed beyond it: the service's raw SQL and Prisma's queries are
// a few dozen texts (38 to 48 in bench:recall), some in a few variants (a group of 1 to n reads, with or without a part)
const LIMIT = 200;
// PostgreSQL's "cached plan must not change result type": a table a statement reads changed its columns
const PLAN_CHANGED = "0A000";
// statement names, unique in the process: two instances on one database never take each other's
let named = 0;

type BackendMessage = messages.BackendMessage;
const byName = <M extends BackendMessage>(replies: BackendMessage[], name: string) => replies.find((message) => message.name === name) as M | undefined;

/**
 * Statements on the embedded database, raw SQL and Prisma's, prepared once per text (as postgres.js does by
 * default), where PGlite's `query` parses, plans and describes every statement anew, in six calls into its
 * WebAssembly (measured alone: the statement recording a webhook round 0.5-0.7 ms against 1.9-3.9, a Prisma read of
 * 8 memories 0.48-0.52 ms of CPU against 0.69-0.85). After its first five runs
 * PostgreSQL keeps a statement's generic plan when that costs no more than the plans it made for the values given
 * (its plan_cache_mode auto), so a statement whose best plan depends on its values is still planned for them.
 * Callers hold PGlite's query lock (pglite-engine.ts' `queryIn` takes it).
 */
export class PreparedStatements {
  private readonly statements = new Map<string, Prepared>();

  constructor(
    private readonly pglite: PGlite,
    private readonly limit = LIMIT,
  ) {}

  /** What PGlite's `query` answers for `text` run with `params` and `options`: rows, fields and rows affected. */
  async results<R>(text: string, params: readonly unknown[] = [], options: RunOptions = {}): Promise<Results<R>> {
    const prepared = this.statements.get(text);
    if (!prepared) return this.run<R>(text, await this.prepare(text), params, options);
    try {
      return await this.run<R>(text, prepared, params, options);
    } catch (error) {
      // outside a transaction, which the error would have ended, once more with the statement prepared anew
      if ((error as { code?: string }).code !== PLAN_CHANGED || options.inTransaction) throw error;
      await this.close(text);
      return this.run<R>(text, await this.prepare(text), params, options);
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
      rows: byName<messages.RowDescriptionMessage>(replies, "rowDescription"),
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

  private async run<R>(text: string, prepared: Prepared, params: readonly unknown[], options: RunOptions): Promise<Results<R>> {
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
      { syncToFs: !options.inTransaction },
    );
    // PGlite's own reading of the replies, given the description the statement was prepared with
    const described = prepared.rows ? [prepared.rows, ...replies] : replies;
    return parse.parseResults(described, parsers, options)[0] as Results<R>;
  }
}
