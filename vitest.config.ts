import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // Each file gets its own database, so files run in parallel safely.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
