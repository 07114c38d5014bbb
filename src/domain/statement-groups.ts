/**
 * Requests that each need one statement, grouped: the requests that arrive while `maxInFlight` statements run wait
 * for one to end and then go together, up to `maxGroup` in one statement (`run`, which answers each request's
 * outcome in order). A statement's fixed cost (on the embedded database most of a small statement's CPU) is then
 * paid once a group rather than once a request.
 *
 * Each caller still gets its own outcome: if a grouped statement fails, its requests run one by one, so that one
 * request's error is only its own.
 *
 * Written here rather than with DataLoader (which coalesce.ts uses for reads by id) because DataLoader closes a
 * batch on a schedule, not when the statement before it ends, and cannot cap the statements in flight.
 */
export class StatementGroups<Request, Outcome> {
  private waiting: { request: Request; resolve(outcome: Outcome): void; reject(error: unknown): void }[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly run: (requests: Request[]) => Promise<Outcome[]>,
    private readonly options: {
      maxInFlight: number;
      maxGroup: number;
      /** A request that finds no statement running waits for the next turn of the event loop, with whatever arrives in this one. */
      gatherTurn: boolean;
    },
  ) {}

  submit(request: Request): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      if (this.inFlight >= this.options.maxInFlight) return;
      if (!this.options.gatherTurn) return this.start();
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.start();
      });
    });
  }

  private start(): void {
    while (this.waiting.length > 0 && this.inFlight < this.options.maxInFlight) {
      const group = this.waiting.splice(0, this.options.maxGroup);
      this.inFlight++;
      void this.settle(group).finally(() => {
        this.inFlight--;
        this.start();
      });
    }
  }

  private async settle(group: typeof this.waiting): Promise<void> {
    try {
      const outcomes = await this.run(group.map((waiting) => waiting.request));
      group.forEach((waiting, i) => waiting.resolve(outcomes[i]!));
    } catch (error) {
      if (group.length === 1) return group[0]!.reject(error);
      await Promise.all(group.map((waiting) => this.settle([waiting])));
    }
  }
}
