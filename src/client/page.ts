/** A page of a list route, whatever the name of its items. */
export interface Page {
  offset: number;
  has_more: boolean;
}

/**
 * The result of a list call. Awaiting it gives the first page; iterating it with `for await` gives every
 * item of every page, and `pages()` every page. Nothing is fetched until one of those starts, and the first
 * page is fetched once however it is used.
 */
export class PageRequest<P extends Page, Item> implements PromiseLike<P>, AsyncIterable<Item> {
  private first: Promise<P> | undefined;

  constructor(
    private readonly fetchPage: (offset: number | undefined) => Promise<P>,
    private readonly itemsOf: (page: P) => Item[],
    private readonly offset: number | undefined,
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

  /** Each page in turn, from the requested offset to the end; each page is one request. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    let page = await this.firstPage();
    for (;;) {
      yield page;
      const count = this.itemsOf(page).length;
      // an empty page ends the walk even if has_more says otherwise, so a confused server cannot loop us
      if (!page.has_more || count === 0) return;
      page = await this.fetchPage(page.offset + count);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.itemsOf(page);
  }

  private firstPage(): Promise<P> {
    return (this.first ??= this.fetchPage(this.offset));
  }
}
