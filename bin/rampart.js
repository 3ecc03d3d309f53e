#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx's loader: no build step between edit and run.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
await main(process.argv.slice(2));
