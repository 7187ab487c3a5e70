import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // A hang detector, not a speed check: tests that run the sentence model wait for inference, which on a machine
    // with both cores taken (CI beside a benchmark) took over 30 s.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
