import { Router } from "../router.ts";
import { addBatchRoutes } from "./batch.ts";
import { addExportRoutes } from "./export.ts";
import { addLegacyRoutes } from "./legacy.ts";
import { addMemoryRoutes } from "./memory.ts";
import { addMemoryHistoryRoutes } from "./memory-history.ts";
import { addMemoryRecordRoutes } from "./memory-record.ts";
import { addRecallRoutes } from "./recall.ts";
import { addSearchRoutes } from "./search.ts";
import { addThreadRoutes } from "./thread.ts";
import { addWebhookRoutes } from "./webhook.ts";

/** Every REST route the service answers; `now` is the clock that decides the legacy routes' sunset. */
export function createRouter(now?: () => Date): Router {
  const router = new Router(now);
  addMemoryRoutes(router);
  addSearchRoutes(router);
  addBatchRoutes(router);
  addRecallRoutes(router);
  addLegacyRoutes(router);
  addThreadRoutes(router);
  addMemoryRecordRoutes(router);
  addMemoryHistoryRoutes(router);
  addWebhookRoutes(router);
  addExportRoutes(router);
  return router;
}
