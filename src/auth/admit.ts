import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiKeyService } from "../domain/api-key.ts";
import { unauthorized } from "../errors.ts";
import { clientAddress } from "./client-address.ts";
import { presentedKey } from "./credentials.ts";
import type { Principal } from "../domain/principal.ts";
import type { RateLimit } from "./rate-limit.ts";

/**
 * The caller of a request, once their key is good and within its rate limit; throws UNAUTHORIZED or
 * RATE_LIMITED otherwise. The count goes on `res` at once, so that every later answer carries it.
 */
export type Admit = (req: IncomingMessage, res: ServerResponse) => Promise<Principal>;

/**
 * The one check of API keys, for GraphQL, REST and MCP alike. An address that has sent too many bad keys is
 * refused before its key is looked up (`trustProxyHops`: see client-address.ts).
 */
export function createAdmit(apiKeys: ApiKeyService, rateLimit: RateLimit, trustProxyHops: number): Admit {
  return async (req, res) => {
    const key = presentedKey(req.headers);
    if (!key) throw unauthorized("Missing API key");
    const address = clientAddress(req, trustProxyHops);
    await rateLimit.admitAddress(address);
    const principal = await apiKeys.authenticate(key);
    if (!principal) {
      await rateLimit.authenticationFailed(address);
      throw unauthorized("Invalid or revoked API key");
    }
    const { headers } = await rateLimit.consume(principal.keyId);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    return principal;
  };
}
