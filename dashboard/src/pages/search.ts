import { gql } from "../api.ts";
import { busy, field, h, show, tagList, truncate } from "../dom.ts";
import { memoryHash, routeHash, type PageContext, type Route } from "../page.ts";
import { RECALL, SEARCH, type Memory, type RecallHit, type RecallPath, type SearchHit } from "../queries.ts";

type Mode = "search" | "recall";

const PATHS: Record<RecallPath, string> = {
  profile: "profile — a question about you, answered from preference memories",
  thread: "thread — lexical and semantic within a thread",
  hybrid: "hybrid — lexical (BM25) and semantic fused",
  semantic: "semantic — no lexical match",
};

/** One query box for semantic search and for recall; the query is kept in the address (`#/search?mode=…&q=…`). */
export async function renderSearch(ctx: PageContext, route: Route): Promise<void> {
  const { view, notices, navigate } = ctx;
  const mode: Mode = route.params.get("mode") === "recall" ? "recall" : "search";
  const query = route.params.get("q") ?? "";

  const input = h("input", { type: "search", name: "q", value: query, required: true, placeholder: "What are you looking for?", autocomplete: "off" });
  const radio = (value: Mode, label: string) =>
    h("label", { class: "check" }, h("input", { type: "radio", name: "mode", value, checked: value === mode }), ` ${label}`);
  const button = h("button", { type: "submit", class: "primary" }, "Go");
  const results = h("div", { "aria-live": "polite" });
  const form = h(
    "form",
    {
      class: "card search",
      onsubmit: (event) => {
        event.preventDefault();
        const chosen = form.querySelector<HTMLInputElement>('input[name="mode"]:checked')?.value === "recall" ? "recall" : "search";
        navigate(routeHash("search", new URLSearchParams({ mode: chosen, q: input.value.trim() })));
      },
    },
    h("div", { class: "row" }, field("Query", input), button),
    h("div", { class: "row" }, radio("search", "Semantic search"), radio("recall", "Recall")),
  );
  show(view, h("h2", {}, "Search & recall"), form, results);
  input.focus();
  if (!query) return;

  show(results, h("p", { class: "muted" }, "Searching…"));
  await busy(button, async () => {
    try {
      if (mode === "search") {
        const { searchMemories } = await gql<{ searchMemories: { total: number; results: SearchHit[] } }>(SEARCH, { query, limit: 20 });
        show(results, h("p", { class: "muted" }, `${searchMemories.total} result(s), nearest first.`), hitList(searchMemories.results.map((hit) => ({ memory: hit.memory, label: `score ${hit.score.toFixed(3)}` }))));
      } else {
        const { recall } = await gql<{ recall: { queryType: RecallPath; total: number; results: RecallHit[] } }>(RECALL, { query, limit: 20 });
        show(
          results,
          h("p", { class: "muted" }, `${recall.total} result(s). Query type: `, h("strong", { "data-testid": "query-type" }, recall.queryType), ` (${PATHS[recall.queryType] ?? recall.queryType}).`),
          hitList(recall.results.map((hit) => ({ memory: hit.memory, label: `relevance ${hit.relevance.toFixed(3)}` }))),
        );
      }
    } catch (error) {
      results.replaceChildren();
      notices.error(error, mode === "search" ? "Search failed" : "Recall failed");
    }
  });
}

function hitList(hits: { memory: Memory; label: string }[]): HTMLElement {
  if (hits.length === 0) return h("p", {}, "Nothing found.");
  return h(
    "ol",
    { class: "hits" },
    ...hits.map(({ memory, label }) =>
      h(
        "li",
        { "data-memory-id": memory.id },
        h("div", { class: "hit-head" }, h("span", { class: "score" }, label), memory.type ? h("span", { class: "badge" }, memory.type) : null, tagList(memory.tags)),
        h("a", { href: memoryHash(memory.id) }, truncate(memory.content, 300)),
      ),
    ),
  );
}
