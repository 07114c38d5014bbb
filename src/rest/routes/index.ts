import { Router } from "../router.ts";
import { addMemoryRoutes } from "./memory.ts";
import { addMemoryRecordRoutes } from "./memory-record.ts";

/** Every REST route the service answers. */
export function createRouter(): Router {
  const router = new Router();
  addMemoryRoutes(router);
  addMemoryRecordRoutes(router);
  return router;
}
