// The console's build: Vite (Rolldown) bundles console/src into dist/console, which the service serves at
// /console (src/http/console.ts). Vite's own transform compiles the TSX (automatic JSX runtime); no dev
// server or plugin is needed for a production build.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  // always the production build of React and urql, whatever NODE_ENV the caller has (jest sets "test")
  mode: 'production',
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  base: '/console/',
  logLevel: 'warn',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', development: false } },
  build: {
    outDir: path.join(here, '..', 'dist', 'console'),
    emptyOutDir: true,
    // the service's Content-Security-Policy allows scripts from itself only: no inline polyfill
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
    sourcemap: false,
  },
});
