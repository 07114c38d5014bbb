// Part of `npm run build`: writes dist/word-vectors.bin, the sentence encoder's vectors of single words from which
// drafts of memories' vectors are made (src/embeddings/word-vectors.ts), unless the one there is current. Runs the
// built code, so it comes after tsc.
import { buildWordVectors } from "../dist/server/embeddings/word-vectors-build.js";

const started = performance.now();
const embedded = await buildWordVectors();
if (embedded > 0) console.log(`wrote dist/word-vectors.bin (${embedded} words) in ${Math.round(performance.now() - started)} ms`);
