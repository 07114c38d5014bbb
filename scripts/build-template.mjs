// Part of `npm run build`: writes dist/pglite-template.tar.gz, the migrated empty database new embedded databases
// start from (src/db/pglite-template.ts). Runs the built code, so it comes after tsc.
import { buildTemplate } from "../dist/server/db/pglite.js";
import { TEMPLATE_FILE } from "../dist/server/db/pglite-template.js";

const started = performance.now();
await buildTemplate();
console.log(`wrote ${TEMPLATE_FILE} in ${Math.round(performance.now() - started)} ms`);
