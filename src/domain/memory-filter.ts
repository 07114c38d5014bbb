import { invalid } from "../errors.ts";
import { MAX_PATH_KEYS, PATH_KEY, RANGE_OPERATORS, type FilterClause, type MetadataTest, type RangeOperator, type Scalar } from "../vectors/filter-clause.ts";
import { isoInstant, isStorableInstant, STORABLE_INSTANTS } from "../vectors/iso-instant.ts";
import { isUuid } from "./ids.ts";
import { unstorableText } from "./json.ts";

/**
 * A filter on memories with boolean logic and conditions on metadata, as clients send it (GraphQL's
 * `MemoryFilter`; REST's `filter` JSON, its `thread_id` read as `threadId`). The fields of one node all hold
 * (AND); `and`, `or` and `not` combine nodes.
 */
export interface MemoryFilterInput {
  and?: readonly MemoryFilterInput[] | null;
  or?: readonly MemoryFilterInput[] | null;
  not?: MemoryFilterInput | null;
  type?: string | null;
  tags?: readonly string[] | null;
  threadId?: string | null;
  metadata?: readonly MetadataConditionInput[] | null;
}

/**
 * A test of the values at `path` (dot-separated keys) in a memory's metadata. An array there is tested by its
 * elements: the condition holds when one of them passes. `eq`/`in` compare strings, numbers and booleans;
 * `gt`/`gte`/`lt`/`lte` compare numbers with a number, or ISO 8601 dates with a date; `exists` asks for a value
 * other than null.
 */
export interface MetadataConditionInput {
  path: string;
  // as sent: JSON of any kind, checked here
  eq?: unknown;
  in?: unknown;
  gt?: unknown;
  gte?: unknown;
  lt?: unknown;
  lte?: unknown;
  exists?: unknown;
}

export interface FilterLimits {
  /** How many levels deep and/or/not may nest within the filter (the filter itself is level 0). */
  maxDepth: number;
  /** How many conditions (type, tags, thread, metadata) one filter may hold in all. */
  maxConditions: number;
  /** The most values of one `in`. */
  maxInValues: number;
}

export const FILTER_LIMITS: FilterLimits = { maxDepth: 5, maxConditions: 32, maxInValues: 100 };

/** A filter's thread id, as the index and SQL compare it (lower case). */
export function checkFilterThreadId(raw: unknown, at: string): string {
  if (typeof raw !== "string" || !isUuid(raw)) throw invalid(at, "must be a thread id");
  return raw.toLowerCase();
}

/**
 * Checks a client's filter against the rules and limits and answers it as clauses (AND of the top node's
 * fields), or undefined when it holds nothing. Errors name the field at fault by its path in the filter.
 */
export function checkMemoryFilter(input: MemoryFilterInput, limits: FilterLimits = FILTER_LIMITS): FilterClause | undefined {
  let conditions = 0;
  const count = (field: string) => {
    if (++conditions > limits.maxConditions) throw invalid(field, `makes the filter hold more than ${limits.maxConditions} conditions`);
  };
  const node = (value: MemoryFilterInput, field: string, depth: number): FilterClause[] => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid(field, "must be an object");
    if (depth > limits.maxDepth) throw invalid(field, `nests and/or/not deeper than ${limits.maxDepth} levels`);
    const clauses: FilterClause[] = [];
    const nested = (list: unknown, at: string, name: "and" | "or") => {
      if (!Array.isArray(list) || list.length === 0) throw invalid(at, "must be a non-empty list of filters");
      const parts = (list as MemoryFilterInput[]).map((item, i) => some(node(item, `${at}[${i}]`, depth + 1), `${at}[${i}]`));
      clauses.push({ kind: name, clauses: parts });
    };
    for (const [key, raw] of Object.entries(value)) {
      if (raw === undefined || raw === null) continue;
      const at = field ? `${field}.${key}` : key;
      switch (key) {
        case "and":
        case "or":
          nested(raw, at, key);
          break;
        case "not":
          clauses.push({ kind: "not", clause: some(node(raw as MemoryFilterInput, at, depth + 1), at) });
          break;
        case "type":
          count(at);
          if (typeof raw !== "string" || raw.length === 0) throw invalid(at, "must be a non-empty string");
          checkComparable(raw, at);
          clauses.push({ kind: "type", type: raw });
          break;
        case "tags":
          count(at);
          if (!Array.isArray(raw) || raw.length === 0 || !raw.every((tag) => typeof tag === "string")) {
            throw invalid(at, "must be a non-empty list of strings");
          }
          (raw as string[]).forEach((tag, i) => checkComparable(tag, `${at}[${i}]`));
          clauses.push({ kind: "tags", tags: [...(raw as string[])] });
          break;
        case "threadId":
          count(at);
          clauses.push({ kind: "thread", threadId: checkFilterThreadId(raw, at) });
          break;
        case "metadata":
          if (!Array.isArray(raw) || raw.length === 0) throw invalid(at, "must be a non-empty list of conditions");
          (raw as MetadataConditionInput[]).forEach((condition, i) => {
            count(`${at}[${i}]`);
            clauses.push(metadataClause(condition, `${at}[${i}]`, limits));
          });
          break;
        default:
          throw invalid(at, "is not a filter field (known: and, or, not, type, tags, threadId, metadata)");
      }
    }
    return clauses;
  };
  const clauses = node(input, "", 0);
  return clauses.length === 0 ? undefined : all(clauses);
}

function all(clauses: FilterClause[]): FilterClause {
  return clauses.length === 1 ? clauses[0]! : { kind: "and", clauses };
}

/** A nested filter must say something: an empty one under `not` or `or` would be a riddle. */
function some(clauses: FilterClause[], field: string): FilterClause {
  if (clauses.length === 0) throw invalid(field, "must hold at least one condition");
  return all(clauses);
}

function metadataClause(input: MetadataConditionInput, field: string, limits: FilterLimits): FilterClause {
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw invalid(field, "must be an object");
  if (typeof input.path !== "string") throw invalid(`${field}.path`, "must be a string");
  const path = input.path.split(".");
  if (path.length > MAX_PATH_KEYS || !path.every((key) => PATH_KEY.test(key))) {
    throw invalid(`${field}.path`, `must be up to ${MAX_PATH_KEYS} dot-separated keys of letters, digits, _ and - (not digits alone)`);
  }
  const given = Object.entries(input).filter(([key, value]) => key !== "path" && value !== undefined && value !== null);
  const unknown = given.find(([key]) => !["eq", "in", "exists", ...RANGE_OPERATORS].includes(key));
  if (unknown) throw invalid(`${field}.${unknown[0]}`, "is not an operator (eq, in, gt, gte, lt, lte, exists)");
  // `eq: null` read as no operator at all said "needs an operator" of a condition that gave one (outside probe)
  if (input.eq === null) throw invalid(`${field}.eq`, "must be a string, a number or a boolean: for a value that is null or not there, use exists: false");
  if (given.length === 0) throw invalid(field, "needs an operator: eq, in, gt, gte, lt, lte or exists");
  const ranges = given.filter(([key]) => (RANGE_OPERATORS as readonly string[]).includes(key));
  if (ranges.length > 0 && ranges.length < given.length) {
    throw invalid(field, "may combine gt, gte, lt and lte, but not a range with eq, in or exists");
  }
  if (ranges.length === 0 && given.length > 1) throw invalid(field, "takes one of eq, in and exists");
  const test = ranges.length > 0 ? rangeTest(ranges, field) : singleTest(given[0]!, field, limits);
  return { kind: "metadata", path, test };
}

function singleTest([operator, value]: [string, unknown], field: string, limits: FilterLimits): MetadataTest {
  const at = `${field}.${operator}`;
  if (operator === "exists") {
    if (typeof value !== "boolean") throw invalid(at, "must be true or false");
    return { op: "exists", exists: value };
  }
  const values = operator === "in" ? value : [value];
  if (!Array.isArray(values) || values.length === 0) throw invalid(at, "must be a non-empty list");
  if (values.length > limits.maxInValues) throw invalid(at, `must hold at most ${limits.maxInValues} values`);
  if (!values.every(isScalar)) throw invalid(at, operator === "in" ? "must hold strings, numbers or booleans" : "must be a string, a number or a boolean");
  values.forEach((item, i) => typeof item === "string" && checkComparable(item, operator === "in" ? `${at}[${i}]` : at));
  return { op: "equals", values: values as Scalar[] };
}

function rangeTest(ranges: [string, unknown][], field: string): MetadataTest {
  if (ranges.every(([, value]) => typeof value === "number" && Number.isFinite(value))) {
    return { op: "range", kind: "number", bounds: Object.fromEntries(ranges) as Partial<Record<RangeOperator, number>> };
  }
  const bounds: Partial<Record<RangeOperator, string>> = {};
  for (const [operator, value] of ranges) {
    const instant = typeof value === "string" ? isoInstant(value) : undefined;
    if (instant === undefined) throw invalid(`${field}.${operator}`, "must be a number or an ISO 8601 date, like the other bounds");
    if (!isStorableInstant(instant)) throw invalid(`${field}.${operator}`, `must be a date ${STORABLE_INSTANTS}`);
    bounds[operator as RangeOperator] = new Date(instant).toISOString();
  }
  return { op: "range", kind: "date", bounds };
}

/** A string the database can compare: one it could not store (NUL, a lone surrogate) fails its statement. */
function checkComparable(value: string, at: string): void {
  const reason = unstorableText(value);
  if (reason) throw invalid(at, reason);
}

const isScalar = (value: unknown): value is Scalar =>
  typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value));
