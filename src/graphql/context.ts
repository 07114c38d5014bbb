import type { Admit, Admitted } from "../auth/admit.ts";
import type { Principal } from "../domain/principal.ts";
import type { Services } from "../domain/services.ts";
import type { Exchange } from "../transport/exchange.ts";

/** What every resolver gets: who asks, the services, and the request's id for the log. */
export interface Context extends Admitted {
  principal: Principal;
  services: Services;
  requestId: string;
}

/** The context of a request whose caller is admitted: how GraphQL, REST and MCP requests all reach the services. */
export type ContextFor = (exchange: Exchange) => Promise<Context>;

export const contextFor =
  (services: Services, admit: Admit): ContextFor =>
  async ({ req, res, requestId }) => ({ ...(await admit(req, res)), services, requestId });
