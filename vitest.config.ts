import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // Each file gets its own database, so files run in parallel safely.
    pool: 'forks',
    // Vitest's default is one fork per CPU minus one: a single fork on a 2-CPU CI machine, while
    // most files spend their time waiting on PostgreSQL, spawned servers or Chromium.
    maxWorkers: 3,
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
