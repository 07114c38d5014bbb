import { GraphQLError, Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from "graphql";
import type { Plugin } from "graphql-yoga";

const CONDITIONS = new Set(["skip", "include"]);

/** The @skip and @include directives of a selection set's top level, fragments' included (each fragment once). */
function conditions(selectionSet: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, seen: Set<string>): GraphQLError[] {
  return selectionSet.selections.flatMap((selection) => {
    const own = (selection.directives ?? []).filter((directive) => CONDITIONS.has(directive.name.value));
    const found = own.map((directive) => new GraphQLError(`@${directive.name.value}`, { nodes: directive }));
    if (selection.kind === Kind.INLINE_FRAGMENT) return [...found, ...conditions(selection.selectionSet, fragments, seen)];
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = fragments.get(selection.name.value);
      if (!fragment || seen.has(fragment.name.value)) return found;
      seen.add(fragment.name.value);
      return [...found, ...conditions(fragment.selectionSet, fragments, seen)];
    }
    return found;
  });
}

function subscriptionRootErrors(document: DocumentNode): GraphQLError[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return document.definitions.flatMap((definition) => {
    if (definition.kind !== Kind.OPERATION_DEFINITION || definition.operation !== "subscription") return [];
    const found = conditions(definition.selectionSet, fragments, new Set());
    if (found.length === 0) return [];
    const name = definition.name ? `Subscription "${definition.name.value}"` : "An anonymous subscription";
    const message = `${name} must not use @skip or @include on its top-level selection: it selects its one field always`;
    return [new GraphQLError(message, { nodes: found.flatMap((error) => error.nodes ?? []) })];
  });
}

/**
 * Refuses @skip and @include at a subscription's top level, as the GraphQL specification now does (its "Single
 * Root Field" rule) and graphql-js 17 will. graphql-js 16 decides them during validation without the request's
 * variables: `@include(if: $on)` was refused as "not provided a runtime value" however it was sent, and
 * `@skip(if: true)` left nothing to subscribe to, a TypeError in execution answered 500.
 */
export function useSubscriptionRootCheck(): Plugin {
  return {
    onValidate({ params, setResult }) {
      const errors = subscriptionRootErrors(params.documentAST);
      if (errors.length > 0) setResult(errors);
    },
  };
}
