import { idPath, newId } from "./ids.ts";
import { PageRequest } from "./page.ts";
import { listIn } from "./shape.ts";
import type { CallOptions, Transport } from "./transport.ts";
import type {
  CreateThreadInput,
  DeleteThreadParams,
  GetThreadParams,
  GetThreadResponse,
  ListThreadsParams,
  Thread,
  ThreadPage,
  UpdateThreadInput,
} from "./types.ts";

/** `client.threads`: conversation threads that memories can belong to. */
export class Threads {
  constructor(private readonly transport: Transport) {}

  /** POST /api/v1/threads, with an Idempotency-Key like every create. */
  create(input: CreateThreadInput, options: CallOptions = {}): Promise<Thread> {
    return this.transport.request({ method: "POST", path: "/api/v1/threads", body: input, idempotencyKey: newId(), signal: options.signal });
  }

  /** GET /api/v1/threads: await for one page, `for await` for every thread across pages. */
  list(params: ListThreadsParams = {}, options: CallOptions = {}): PageRequest<ThreadPage, Thread> {
    return new PageRequest(
      ({ offset }) => this.transport.request<ThreadPage>({ method: "GET", path: "/api/v1/threads", query: { ...params, offset }, signal: options.signal }),
      (page) => listIn(page, "threads"),
      { offset: params.offset },
    );
  }

  /** `{thread}`, with `thread.memories` when include_memories is true. */
  async get(id: string, params: GetThreadParams = {}, options: CallOptions = {}): Promise<GetThreadResponse> {
    return this.transport.request({ method: "GET", path: threadPath(id), query: { ...params }, signal: options.signal });
  }

  async update(id: string, input: UpdateThreadInput, options: CallOptions = {}): Promise<Thread> {
    return this.transport.request({ method: "PATCH", path: threadPath(id), body: input, signal: options.signal });
  }

  /** Without delete_memories the thread's memories stay, detached from it. */
  async delete(id: string, params: DeleteThreadParams = {}, options: CallOptions = {}): Promise<void> {
    await this.transport.request({ method: "DELETE", path: threadPath(id), query: { ...params }, signal: options.signal });
  }
}

const threadPath = (id: string) => idPath("/api/v1/threads", id);
