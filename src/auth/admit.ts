import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiKeyService } from "../domain/api-key.ts";
import { AppError, unauthorized } from "../errors.ts";
import { clientAddress } from "./client-address.ts";
import { bearerToken, presentedKey } from "./credentials.ts";
import type { Principal } from "../domain/principal.ts";
import type { RateLimit } from "./rate-limit.ts";

/** A request's caller, and how to count more of it against the key's rate limit (a GraphQL document's mutations). */
export interface Admitted {
  principal: Principal;
  /** Counts `points` more requests of the key, the answer's headers saying what is left; throws RATE_LIMITED past the limit. */
  charge(points: number): Promise<void>;
}

/**
 * The caller of a request, once their key is good and within its rate limit; throws UNAUTHORIZED or
 * RATE_LIMITED otherwise. The count goes on `res` at once, so that every later answer carries it.
 */
export type Admit = (req: IncomingMessage, res: ServerResponse) => Promise<Admitted>;

/**
 * The one check of API keys, for GraphQL, REST and MCP alike. An address that has sent too many bad keys is
 * refused before its key is looked up (`trustProxyHops`: see client-address.ts).
 */
export function createAdmit(apiKeys: ApiKeyService, rateLimit: RateLimit, trustProxyHops: number): Admit {
  return async (req, res) => {
    const key = presentedKey(req);
    // a header sent but not read as a key (GraphiQL's placeholder "Bearer <your API key>", another scheme) is not "missing"
    if (!key) throw unauthorized(req.headers.authorization ? 'The Authorization header holds no API key: send "Bearer <key>"' : "Missing API key");
    const address = clientAddress(req, trustProxyHops);
    await rateLimit.admitAddress(address);
    const principal = await apiKeys.authenticate(key);
    if (!principal) {
      await rateLimit.authenticationFailed(address);
      throw unauthorized("Invalid or revoked API key");
    }
    const count = async (points: number) => {
      const { headers } = await rateLimit.consume(principal.keyId, points);
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    };
    await count(1);
    return { principal, charge: count };
  };
}

/**
 * `check()` of a Bearer secret other than an API key (METRICS_TOKEN) under the same limit of failures per address:
 * an address that has failed too often is refused before the secret is compared, and each UNAUTHORIZED that
 * `check` throws for a secret sent counts against it (wrong tokens could be tried without end). A request that
 * sends none is not counted, as for API keys: a scraper set up without the token, or /metrics opened in a browser,
 * locked every client at its address out.
 */
export function createSecretGuard(rateLimit: RateLimit, trustProxyHops: number) {
  return async <T>(req: IncomingMessage, check: () => Promise<T>): Promise<T> => {
    const address = clientAddress(req, trustProxyHops);
    await rateLimit.admitAddress(address);
    try {
      return await check();
    } catch (error) {
      const tried = bearerToken(req.headers) !== undefined;
      if (tried && error instanceof AppError && error.code === "UNAUTHORIZED") await rateLimit.authenticationFailed(address);
      throw error;
    }
  };
}
