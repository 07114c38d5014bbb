// Part of `npm run build`: writes dist/pglite-template/ and dist/pglite-template.tar.gz, the migrated empty
// database new embedded databases start from (src/db/pglite-template.ts). Runs the built code, so it comes after
// tsc. Owner-only files, as a data directory's are: they are copied into one with their modes.
import { buildTemplate } from "../dist/server/db/pglite-engine.js";
import { TEMPLATE_DIR, TEMPLATE_FILE } from "../dist/server/db/pglite-template.js";

process.umask(0o077);
const started = performance.now();
await buildTemplate();
console.log(`wrote ${TEMPLATE_DIR} and ${TEMPLATE_FILE} in ${Math.round(performance.now() - started)} ms`);
