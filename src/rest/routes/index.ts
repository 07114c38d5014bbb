import { Router } from "../router.ts";
import { addMemoryRoutes } from "./memory.ts";
import { addMemoryRecordRoutes } from "./memory-record.ts";
import { addSearchRoutes } from "./search.ts";

/** Every REST route the service answers. */
export function createRouter(): Router {
  const router = new Router();
  addMemoryRoutes(router);
  addSearchRoutes(router);
  addMemoryRecordRoutes(router);
  return router;
}
