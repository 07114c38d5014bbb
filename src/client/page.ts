/** A page of a list route, whatever the name of its items. */
export interface Page {
  /** null for a page asked for by cursor. */
  offset: number | null;
  has_more: boolean;
  /** Lists that have cursors: where the next page starts. */
  next_cursor?: string | null;
}

/** Where a page starts: an offset, or the cursor the page before gave. */
export interface PagePosition {
  offset?: number | undefined;
  cursor?: string | undefined;
}

/**
 * The result of a list call. Awaiting it gives the first page; iterating it with `for await` gives every
 * item of every page, and `pages()` every page. Nothing is fetched until one of those starts, and the first
 * page is fetched once however it is used.
 */
export class PageRequest<P extends Page, Item> implements PromiseLike<P>, AsyncIterable<Item> {
  private first: Promise<P> | undefined;

  constructor(
    private readonly fetchPage: (at: PagePosition) => Promise<P>,
    private readonly itemsOf: (page: P) => Item[],
    private readonly start: PagePosition,
  ) {}

  then<A = P, B = never>(
    onFulfilled?: ((page: P) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<P | B> {
    return this.firstPage().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<P> {
    return this.firstPage().finally(onFinally);
  }

  /**
   * Each page in turn, from the requested offset (or cursor) to the end; each page is one request. A list that
   * gives `next_cursor` is walked by cursor, so memories added meanwhile do not shift its pages; others by offset.
   */
  async *pages(): AsyncGenerator<P, void, undefined> {
    let page = await this.firstPage();
    for (;;) {
      yield page;
      const count = this.itemsOf(page).length;
      // an empty page ends the walk even if has_more says otherwise, so a confused server cannot loop us
      if (!page.has_more || count === 0) return;
      page = await this.fetch(page.next_cursor ? { cursor: page.next_cursor } : { offset: (page.offset ?? 0) + count });
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.itemsOf(page);
  }

  private firstPage(): Promise<P> {
    return (this.first ??= this.fetch(this.start));
  }

  /** A page, its items checked to be there (itemsOf throws for a page without them), so it is the page it claims. */
  private async fetch(at: PagePosition): Promise<P> {
    const page = await this.fetchPage(at);
    this.itemsOf(page);
    return page;
  }
}
