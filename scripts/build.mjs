#!/usr/bin/env node
/**
 * Bundles src/ into dist/ for `npm start`. Running the bundle on plain Node starts much faster
 * than running the sources through tsx: tsx's loader hooks handle every file imported, including
 * each of typebox's ~700 modules, which alone cost ~0.8 s of start-up. Dependencies stay external
 * (loaded from node_modules as usual); the runtime is split into its own chunk so the CLI can
 * start PostgreSQL while the app's modules load. Tests and the CLI keep using tsx on src/.
 */
import { build } from 'esbuild';

await build({
  // The worker thread's entry (src/worker-thread-host.ts starts dist/worker-thread.js).
  entryPoints: ['src/main.ts', 'src/worker-thread.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
