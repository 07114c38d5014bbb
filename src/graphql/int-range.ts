/**
 * The extension of an Int input field whose values the service bounds more narrowly than GraphQL's Int: its refusal
 * in the domain's words, for a whole number beyond Int's 32 bits, which GraphQL refuses before the domain sees it
 * (a REST body's ttl_seconds of 1e20 was told Int's range, not the field's).
 */
export const OUT_OF_INT_RANGE = "outOfIntRange";
