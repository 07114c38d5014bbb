import { invalid } from "../errors.ts";
import type { QueryInputs } from "../rest/query-params.ts";

/**
 * An MCP tool's arguments where its REST route reads a query string. JSON carries its own types, so values are
 * handed on as given: the route's GraphQL operation checks them as it checks a JSON body (`limit: "5"` fails
 * there with the message REST gives), rather than being converted here by rules of their own.
 */
export class ToolArguments implements QueryInputs {
  constructor(private readonly args: Readonly<Record<string, unknown>>) {}

  only(known: readonly string[]): this {
    for (const name of Object.keys(this.args)) {
      if (!known.includes(name)) throw invalid(name, `is not an argument of this tool (known: ${known.join(", ") || "none"})`);
    }
    return this;
  }

  string(name: string): unknown {
    return this.args[name];
  }

  int(name: string): unknown {
    return this.args[name];
  }

  bool(name: string): unknown {
    return this.args[name];
  }

  list(name: string): unknown {
    return this.args[name];
  }
}
