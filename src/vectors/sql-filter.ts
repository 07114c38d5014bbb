import { filterSql } from "./filter-sql.ts";
import type { VectorFilter } from "./vector-index.ts";

/**
 * The WHERE clause of a vector search, for tables with the memories' column names (the memories table itself
 * and pgvector's copies), appending its parameters to `params`.
 */
export function filterConditions(filter: VectorFilter, params: unknown[]): string {
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const conditions = [`user_id = ${param(filter.userId)}::uuid`, "NOT is_archived"];
  if (filter.type !== undefined) conditions.push(`type = ${param(filter.type)}`);
  if (filter.tags?.length) conditions.push(`tags @> ${param(filter.tags)}::text[]`);
  if (filter.threadId !== undefined) conditions.push(`thread_id = ${param(filter.threadId)}::uuid`);
  if (filter.fromDate) conditions.push(`created_at >= ${param(filter.fromDate.toISOString())}::timestamptz`);
  if (filter.toDate) conditions.push(`created_at <= ${param(filter.toDate.toISOString())}::timestamptz`);
  if (filter.where) conditions.push(filterSql(filter.where, params));
  return conditions.join(" AND ");
}
