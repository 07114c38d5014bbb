import { Router } from "../router.ts";
import { addBatchRoutes } from "./batch.ts";
import { addLegacyRoutes } from "./legacy.ts";
import { addMemoryRoutes } from "./memory.ts";
import { addMemoryRecordRoutes } from "./memory-record.ts";
import { addRecallRoutes } from "./recall.ts";
import { addSearchRoutes } from "./search.ts";
import { addThreadRoutes } from "./threads.ts";
import { addWebhookRoutes } from "./webhooks.ts";

/** Every REST route the service answers. */
export function createRouter(): Router {
  const router = new Router();
  addMemoryRoutes(router);
  addSearchRoutes(router);
  addBatchRoutes(router);
  addRecallRoutes(router);
  addLegacyRoutes(router);
  addThreadRoutes(router);
  addMemoryRecordRoutes(router);
  addWebhookRoutes(router);
  return router;
}
