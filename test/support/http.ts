export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  /** Sent as JSON unless `raw` is given. */
  json?: unknown;
  raw?: string | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
}

/** A small HTTP client for the tests: JSON in and out, the API key as a Bearer token. */
export class HttpClient {
  constructor(
    readonly baseUrl: string,
    readonly key?: string,
  ) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...(this.key ? { authorization: `Bearer ${this.key}` } : {}) };
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["content-type"] = "application/json";
    }
    const response = await fetch(this.baseUrl + path, { method, headers: { ...headers, ...options.headers }, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: the text is the body
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get = <T = any>(path: string, options?: RequestOptions) => this.request<T>("GET", path, options);
  post = <T = any>(path: string, json?: unknown, options?: RequestOptions) => this.request<T>("POST", path, { json, ...options });
  patch = <T = any>(path: string, json?: unknown, options?: RequestOptions) => this.request<T>("PATCH", path, { json, ...options });
  put = <T = any>(path: string, json?: unknown, options?: RequestOptions) => this.request<T>("PUT", path, { json, ...options });
  delete = <T = any>(path: string, options?: RequestOptions) => this.request<T>("DELETE", path, options);

  /** POST /graphql; resolves with the HTTP status and the GraphQL response body. */
  graphql<T = any>(query: string, variables?: Record<string, unknown>, options?: RequestOptions) {
    return this.request<{ data?: T; errors?: { message: string; extensions?: { code?: string } }[] }>("POST", "/graphql", {
      json: { query, variables },
      ...options,
    });
  }
}
