import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";

/** graphql-js's whole message when a document exhausts its field-comparison budget. */
const ABORTED = "Validation aborted.";

const SAID =
  "The document repeats fields in one selection more than validation can compare (graphql-js's budget for checking " +
  "that same-named fields merge): ask for each field once";

/**
 * Says what graphql-js (16.13 and later) refuses as "Validation aborted.": its OverlappingFieldsCanBeMerged rule
 * meters its pairwise comparisons of a selection's fields, against documents made to exhaust it, and some 800
 * repetitions of one field reach the limit, well within the token limit. The client learned nothing of what to
 * change (outside probe).
 */
export function useOverlapBudgetMessage(): Plugin {
  return {
    onValidate() {
      return ({ result, setResult }) => {
        if (!result.some((error) => error.message === ABORTED)) return;
        setResult(result.map((error) => (error.message === ABORTED ? new GraphQLError(SAID, { extensions: error.extensions }) : error)));
      };
    },
  };
}
