import { invalid } from "../errors.ts";

/**
 * The named inputs a route reads beside its path and its body: a URL's query string (QueryParams), or an MCP
 * tool's JSON arguments (src/mcp/tool-arguments.ts). What they give goes on to the route's GraphQL operation.
 */
export interface QueryInputs {
  /** Fails on any input outside `known`; call once per handler, with every name it reads. */
  only(known: readonly string[]): this;
  string(name: string): unknown;
  int(name: string): unknown;
  bool(name: string): unknown;
  list(name: string): unknown;
}

/**
 * A REST query string, read strictly: a parameter the route does not know, or one given twice, is an error
 * rather than something silently ignored.
 */
export class QueryParams implements QueryInputs {
  constructor(private readonly params: URLSearchParams) {}

  only(known: readonly string[]): this {
    for (const name of new Set(this.params.keys())) {
      if (!known.includes(name)) throw invalid(name, `is not a query parameter of this route (known: ${known.join(", ") || "none"})`);
    }
    return this;
  }

  string(name: string): string | undefined {
    const values = this.params.getAll(name);
    if (values.length > 1) throw invalid(name, "is given more than once");
    return values[0];
  }

  int(name: string): number | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!/^-?\d+$/.test(value.trim())) throw invalid(name, "must be a whole number");
    const number = Number(value);
    // GraphQL's Int, which the parameter becomes
    if (number > 2_147_483_647) throw invalid(name, "must be at most 2147483647");
    if (number < -2_147_483_648) throw invalid(name, "must be at least -2147483648");
    return number;
  }

  bool(name: string): boolean | undefined {
    const value = this.string(name)?.trim().toLowerCase();
    if (value === undefined) return undefined;
    if (value === "true" || value === "1") return true;
    if (value === "false" || value === "0") return false;
    throw invalid(name, "must be true or false (or 1 or 0)");
  }

  /** A comma-separated list (`tags=a,b`); empty entries are dropped. */
  list(name: string): string[] | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    return value.split(",").map((item) => item.trim()).filter(Boolean);
  }
}
