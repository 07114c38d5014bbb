import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// Built at install time (`npm run build:dashboard`) into dashboard/dist, which the server serves at /dashboard/.
// Everything is bundled: the page loads nothing from anywhere but this server.
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here("."),
  base: "/dashboard/",
  publicDir: false,
  logLevel: "warn",
  build: {
    outDir: here("./dist"),
    emptyOutDir: true,
    target: "es2022",
    // no inline scripts or styles: the page's Content-Security-Policy allows 'self' only
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
