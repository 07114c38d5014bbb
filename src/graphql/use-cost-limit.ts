import { complexityFromQuery } from "@pothos/plugin-complexity";
import { PothosValidationError } from "@pothos/core";
import { getOperationAST, GraphQLError, Kind, type DocumentNode, type ExecutionArgs } from "graphql";
import type { Plugin } from "graphql-yoga";

/**
 * The most a document may cost: each field selected counts 1, and what is selected under a list counts as many
 * times as the list may hold (its `limit`, `first` or `last`, defaults applied; see `fieldCost` in builder.ts).
 * 100 memories of ten fields cost about 1 100, 100 threads each with its 100 memories about 31 000; three nested
 * pages of 100 (a million memories in one answer) do not pass.
 */
export const MAX_COST = 50_000;

/**
 * The cost of the operation a request runs, from its own variables; undefined when the request cannot run (no
 * such operation, variables of the wrong types), which execution then reports in its own words.
 */
function costOf({ schema, document, contextValue, variableValues, operationName }: ExecutionArgs): number | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  // the plugin measures a document's first operation: this one, with the fragments it may spread
  const alone: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...document.definitions.filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION)] };
  try {
    return complexityFromQuery(alone, { schema, ctx: contextValue as object, variables: variableValues ?? {} }).complexity;
  } catch (error) {
    if (error instanceof GraphQLError || error instanceof PothosValidationError) return undefined;
    throw error;
  }
}

/**
 * Refuses, before anything runs, a document whose cost (by @pothos/plugin-complexity) passes MAX_COST:
 * graphql-armor's cost limit counts each field once whatever the lists' sizes, so one nested query could make the
 * server build an answer of millions of objects. Checked at execution rather than by a validation rule because
 * the cost depends on the variables, and Yoga caches validation by document alone (and a rule's visit of the
 * document cost 30 µs a request, this 7). Subscriptions are not checked: their events hold the object as JSON,
 * with no list to nest.
 */
export function useCostLimit(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const cost = costOf(args);
      if (cost === undefined || cost <= MAX_COST) return;
      const message =
        `This document costs ${cost}, above the most one request may cost, ${MAX_COST}: each field counts 1 and ` +
        "a list's selection once per item its limit asks; ask for fewer items or fewer nested lists";
      setResultAndStopExecution({ errors: [new GraphQLError(message, { extensions: { cost: { max: MAX_COST, actual: cost } } })] });
    },
  };
}
