import type { Schemas } from "@qdrant/js-client-rest";
import { MAX_PATH_KEYS, PATH_KEY, type FilterClause, type MetadataTest, type Scalar } from "./filter-clause.ts";
import { isoInstant } from "./iso-instant.ts";
import type { VectorFilter } from "./vector-index.ts";

type Condition = Schemas["Condition"];
type Tree = { [key: string]: Tree | Scalar[] };

/**
 * What a point's payload holds of the memory's metadata, shaped so that each filter operator is one plain
 * Qdrant condition with the meaning the SQL and in-memory evaluations give it, whatever Qdrant does with
 * nulls, objects inside lists or datetime strings:
 * - `metadata`: the objects as they are, each other value as the list of its strings, numbers and booleans
 *   (a value alone is a list of one; nulls, lists of lists and objects inside lists are left out, as no
 *   path reaches into them), for `eq`, `in` and number ranges;
 * - `metadata_instants`: the same tree holding, for each ISO 8601 date string, its instant in ms, for date
 *   ranges (read as memory_instant() reads them in SQL);
 * - `metadata_paths`: every path (dot-separated) whose value `exists` holds for.
 * Keys a filter path cannot name are left out.
 */
export function metadataPayload(metadata: unknown): { metadata: Tree; metadata_instants: Tree; metadata_paths: string[] } {
  const paths: string[] = [];
  const walk = (value: unknown, path: string[]): { values: Tree; instants: Tree } | { values: Scalar[]; instants: number[] } => {
    if (isObject(value)) {
      // an object is a value there too: `exists` holds for it
      if (path.length > 0) paths.push(path.join("."));
      const children = Object.entries(value)
        .filter(([key]) => PATH_KEY.test(key) && path.length < MAX_PATH_KEYS)
        .map(([key, child]) => [key, walk(child, [...path, key])] as const);
      // fromEntries defines own properties: a key may be `__proto__`
      return {
        values: Object.fromEntries(children.map(([key, walked]) => [key, walked.values])),
        instants: Object.fromEntries(children.map(([key, walked]) => [key, walked.instants])),
      };
    }
    const items = (Array.isArray(value) ? value : [value]).filter((item) => item !== null);
    if (items.length > 0) paths.push(path.join("."));
    const scalars = items.filter(isScalar);
    const instants = scalars.flatMap((item) => (typeof item === "string" ? (isoInstant(item) ?? []) : []));
    return { values: scalars, instants };
  };
  const walked = walk(isObject(metadata) ? metadata : {}, []);
  return { metadata: walked.values as Tree, metadata_instants: walked.instants as Tree, metadata_paths: paths };
}

/** The search conditions as a Qdrant filter; the user condition is always there. */
export function qdrantFilter(filter: VectorFilter): Schemas["Filter"] {
  const must: Condition[] = [{ key: "user_id", match: { value: filter.userId } }];
  if (filter.type !== undefined) must.push(qdrantCondition({ kind: "type", type: filter.type }));
  must.push(...tagConditions(filter.tags ?? []));
  if (filter.threadId !== undefined) must.push(qdrantCondition({ kind: "thread", threadId: filter.threadId }));
  if (filter.fromDate || filter.toDate) {
    must.push({ key: "created_at", range: { gte: filter.fromDate?.toISOString(), lte: filter.toDate?.toISOString() } });
  }
  if (filter.where) must.push(qdrantCondition(filter.where));
  return { must, must_not: [{ key: "is_archived", match: { value: true } }] };
}

/** A checked filter as one Qdrant condition on the payload that `filterFields` and `metadataPayload` make. */
function qdrantCondition(clause: FilterClause): Condition {
  switch (clause.kind) {
    case "and":
      return { must: clause.clauses.map(qdrantCondition) };
    case "or":
      return { should: clause.clauses.map(qdrantCondition) };
    case "not":
      return { must_not: [qdrantCondition(clause.clause)] };
    case "type":
      return { key: "type", match: { value: clause.type } };
    case "tags":
      return { must: tagConditions(clause.tags) };
    case "thread":
      return { key: "thread_id", match: { value: clause.threadId } };
    case "metadata":
      return metadataCondition(clause.path.join("."), clause.test);
  }
}

/** One condition per tag: a point must carry every one (a single `match.any` would accept any one). */
const tagConditions = (tags: readonly string[]): Condition[] => tags.map((tag) => ({ key: "tags", match: { value: tag } }));

function metadataCondition(path: string, test: MetadataTest): Condition {
  switch (test.op) {
    case "exists": {
      const listed = { key: "metadata_paths", match: { value: path } };
      return test.exists ? listed : { must_not: [listed] };
    }
    case "equals":
      return { should: test.values.map((value) => equals(`metadata.${path}`, value)) };
    case "range":
      if (test.kind === "number") return { key: `metadata.${path}`, range: test.bounds };
      return {
        key: `metadata_instants.${path}`,
        range: Object.fromEntries(Object.entries(test.bounds).map(([operator, bound]) => [operator, Date.parse(bound)])),
      };
  }
}

/**
 * Numbers by value, as a range of one point: Qdrant matches integers only, and an integer match would not
 * take 3.0 for 3.
 */
function equals(key: string, value: Scalar): Condition {
  return typeof value === "number" ? { key, range: { gte: value, lte: value } } : { key, match: { value } };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isScalar = (value: unknown): value is Scalar =>
  typeof value === "string" || typeof value === "boolean" || typeof value === "number";
