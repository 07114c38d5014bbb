import type { Principal } from "../auth/principal.ts";
import type { Services } from "../domain/services.ts";

/** Built once per request, by the HTTP layer, after the API key is checked. */
export interface Context {
  principal: Principal;
  services: Services;
  requestId: string;
}
