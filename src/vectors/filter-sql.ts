import type { FilterClause, MetadataTest, RangeOperator } from "./filter-clause.ts";

const COMPARISON: Record<RangeOperator, string> = { gt: ">", gte: ">=", lt: "<", lte: "<=" };

/**
 * A checked filter as a SQL condition on the memories table's columns (prefixed by `alias.` when given),
 * appending its parameters to `params`. Metadata conditions are SQL/JSON path predicates on the value at the
 * path (lax mode tests an array by its elements, a comparison of mismatched types is false rather than an
 * error, and the path text is made of fixed fragments only: every value a client sends travels in the
 * variables), except date ranges, which compare memory_instant() of each string there.
 */
export function filterSql(clause: FilterClause, params: unknown[], alias?: string): string {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const sql = (node: FilterClause): string => {
    switch (node.kind) {
      case "and":
      case "or":
        return `(${node.clauses.map(sql).join(node.kind === "and" ? " AND " : " OR ")})`;
      case "not":
        return `NOT ${sql(node.clause)}`;
      case "type":
        return `coalesce(${column("type")} = ${param(node.type)}, false)`;
      case "tags":
        return `${column("tags")} @> ${param(node.tags)}::text[]`;
      case "thread":
        return `coalesce(${column("thread_id")} = ${param(node.threadId)}::uuid, false)`;
      case "metadata": {
        const value = `${column("metadata")} #> ${param(node.path)}::text[]`;
        const { test } = node;
        if (test.op === "range" && test.kind === "date") {
          const bounds = Object.entries(test.bounds).map(([operator, bound]) => `memory_instant(e.v #>> '{}') ${COMPARISON[operator as RangeOperator]} ${param(bound)}::timestamptz`);
          return `EXISTS (SELECT 1 FROM jsonb_array_elements(CASE jsonb_typeof(${value}) WHEN 'array' THEN ${value} ELSE jsonb_build_array(${value}) END) AS e(v)
                          WHERE jsonb_typeof(e.v) = 'string' AND ${bounds.join(" AND ")})`;
        }
        const [path, vars] = jsonPath(test);
        const holds = `coalesce(jsonb_path_exists(${value}, ${param(path)}::jsonpath, ${param(JSON.stringify(vars))}::jsonb, true), false)`;
        return test.op === "exists" && !test.exists ? `NOT ${holds}` : holds;
      }
    }
  };
  return sql(clause);
}

/** The predicate and its variables; every comparison is true when one value at the path passes it. */
function jsonPath(test: Exclude<MetadataTest, { kind: "date" }>): [string, Record<string, unknown>] {
  switch (test.op) {
    case "exists":
      return ["$ ? (@ != null)", {}];
    case "equals": {
      const vars = Object.fromEntries(test.values.map((value, i) => [`v${i}`, value]));
      return [`$ ? (${test.values.map((_, i) => `@ == $v${i}`).join(" || ")})`, vars];
    }
    case "range": {
      const operators = Object.keys(test.bounds) as RangeOperator[];
      return [`$ ? (${operators.map((operator) => `@ ${COMPARISON[operator]} $${operator}`).join(" && ")})`, test.bounds];
    }
  }
}
