// The web console: a single-page app built to console/dist/ and served by the API process
// (src/http/console.ts). `npm run build:console` builds it; `npm install` and `npm start` do too
// when the build is missing or older than these sources (scripts/build-console.mjs).
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  base: "/",
  plugins: [react()],
  // nothing from console/public: every file the server answers comes from index.html and assets/
  publicDir: false,
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "assets",
    sourcemap: false,
    // the server's content security policy allows scripts from this origin only
    modulePreload: { polyfill: false },
  },
  server: {
    // `npx vite --config console/vite.config.ts` for development: API calls go to a running Quarry
    proxy: Object.fromEntries(
      ["/auth", "/me", "/capabilities", "/collections", "/data-sources", "/documents", "/search", "/retrieve", "/api-keys"].map((p) => [
        p,
        { target: process.env.QUARRY_URL ?? "http://127.0.0.1:8000", changeOrigin: false },
      ]),
    ),
  },
});
