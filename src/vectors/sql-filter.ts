import { filterSql } from "./filter-sql.ts";
import type { VectorFilter } from "./vector-index.ts";

/**
 * The WHERE clause of a vector search, for tables with the memories' column names (the memories table itself
 * and pgvector's copies, which hold no metadata), prefixed by `alias.` when given, appending its parameters
 * to `params`.
 */
export function filterConditions(filter: VectorFilter, params: unknown[], alias?: string): string {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const conditions = [`${column("user_id")} = ${param(filter.userId)}::uuid`, `NOT ${column("is_archived")}`];
  if (filter.type !== undefined) conditions.push(`${column("type")} = ${param(filter.type)}`);
  if (filter.tags?.length) conditions.push(`${column("tags")} @> ${param(filter.tags)}::text[]`);
  if (filter.threadId !== undefined) conditions.push(`${column("thread_id")} = ${param(filter.threadId)}::uuid`);
  if (filter.fromDate) conditions.push(`${column("created_at")} >= ${param(filter.fromDate.toISOString())}::timestamptz`);
  if (filter.toDate) conditions.push(`${column("created_at")} <= ${param(filter.toDate.toISOString())}::timestamptz`);
  if (filter.where) conditions.push(filterSql(filter.where, params, alias));
  return conditions.join(" AND ");
}
