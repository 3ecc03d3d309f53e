import type { AppContext } from '../platform/context.ts';

/** What the console's routes are given: the composed context (compose.ts) satisfies it. */
export type ConsoleDeps = AppContext;
