import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import type { Plugin } from "graphql-yoga";

/**
 * Limits on what one GraphQL document may ask, so that a single request cannot make the server do unbounded
 * work. Generous for real use (the deepest useful query, threads → memories → thread, is depth 5), refused
 * with 400 VALIDATION_ERROR beyond. Field suggestions are hidden when introspection is off, since they would
 * reveal the schema anyway.
 */
export function useArmor(introspection: boolean): Plugin {
  return EnvelopArmorPlugin({
    maxDepth: { n: 12 },
    maxAliases: { n: 15 },
    maxTokens: { n: 3000 },
    maxDirectives: { n: 20 },
    // the cost of lists is counted by their sizes in useCostLimit
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: !introspection },
  }) as Plugin;
}
