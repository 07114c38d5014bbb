import { storedKey } from "./session.ts";

// The one way the dashboard talks to the server: POST /graphql on this origin, the key as a Bearer token.
const ENDPOINT = "/graphql";

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "ApiError";
  }

  get unauthorized(): boolean {
    return this.status === 401 || this.code === "UNAUTHORIZED";
  }
}

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message?: string; extensions?: { code?: string } }[];
  /** The REST form of an error, which a proxy or an older server may answer /graphql with. */
  error?: { message?: string; code?: string };
}

let onUnauthorized: (error: ApiError) => void = () => {};

/** Called when the signed-in key stops working (revoked, deleted): the app signs out. */
export function whenUnauthorized(handler: (error: ApiError) => void): void {
  onUnauthorized = handler;
}

export interface CallOptions {
  /** A key to try instead of the signed-in one (sign-in checks the key before keeping it). */
  key?: string;
}

export async function gql<T>(query: string, variables: Record<string, unknown> = {}, options: CallOptions = {}): Promise<T> {
  const key = (options.key ?? storedKey())?.trim();
  if (!key) throw new ApiError("You are not signed in", "UNAUTHORIZED", 401);
  // no key holds other characters, and fetch refuses a header that does (as if the server could not be reached)
  if (!/^[\x21-\x7e]+$/.test(key)) throw new ApiError("That is not an API key", "UNAUTHORIZED", 401);
  let response: Response;
  try {
    response = await fetch(ENDPOINT, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, variables }),
      credentials: "omit",
      cache: "no-store",
      referrerPolicy: "no-referrer",
    });
  } catch {
    throw new ApiError("The server cannot be reached", "NETWORK", 0);
  }
  let body: GraphQLResponse<T>;
  try {
    body = (await response.json()) as GraphQLResponse<T>;
  } catch {
    throw new ApiError(`The server answered ${response.status} ${response.statusText} without a GraphQL response`, "BAD_RESPONSE", response.status);
  }
  const first = body.errors?.[0] ?? (body.error ? { message: body.error.message, extensions: { code: body.error.code } } : undefined);
  if (first || !body.data) {
    const error = new ApiError(first?.message ?? "The server sent no data", first?.extensions?.code ?? "ERROR", response.status);
    if (error.unauthorized && options.key === undefined) onUnauthorized(error);
    throw error;
  }
  return body.data;
}

/** A message for the user, with the API's code when there is one. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.code === "ERROR" ? error.message : `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}
