import { getOperationAST, Kind, type FragmentDefinitionNode, type SelectionSetNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import type { Context } from "./context.ts";

/**
 * Each mutation of a document counts as a request of the key's rate limit (its admission counted the first): with
 * aliases, one request could otherwise make fifteen batches of 100 creates, or fifteen webhooks, as one request.
 * Refused with 429 RATE_LIMITED (and Retry-After) before any of them runs; the answer's X-RateLimit-Remaining counts
 * them all. Queries are bounded by their cost (use-cost-limit.ts) instead.
 */
export function useMutationsCounted(): Plugin<Context> {
  return {
    async onExecute({ args }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (operation?.operation !== "mutation") return;
      const fragments = new Map<string, FragmentDefinitionNode>();
      for (const definition of args.document.definitions) {
        if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
      }
      const count = rootFields(operation.selectionSet, fragments, new Set());
      if (count > 1) await (args.contextValue as Context).charge(count - 1);
    },
  };
}

/** The fields a selection set selects at its level, through its fragments (each spread once: validation forbids cycles). */
function rootFields(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, spread: Set<string>): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value !== "__typename") count++;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      count += rootFields(selection.selectionSet, fragments, spread);
    } else if (!spread.has(selection.name.value)) {
      spread.add(selection.name.value);
      const fragment = fragments.get(selection.name.value);
      if (fragment) count += rootFields(fragment.selectionSet, fragments, spread);
    }
  }
  return count;
}
