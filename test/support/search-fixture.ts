import memories from "./search-fixture.json" with { type: "json" };

/** Thirty-six memories of distinct wording, typed and tagged, for the search tests (data: search-fixture.json). */
export const SEARCH_FIXTURE: { content: string; type: string; tags: string[] }[] = memories;
