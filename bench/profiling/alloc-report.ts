/**
 * Reads a heap profile written by bench/profiling/alloc-sampler.mjs:
 *   node --import tsx bench/profiling/alloc-report.ts /tmp/rampart-alloc-main.heapprofile [requests]
 * Prints the megabytes allocated in the sampled window (per request when given the number of
 * requests the server answered in it: req/s of the profile run × ALLOC_FOR_MS), then the top
 * functions by their own allocations and by everything allocated under them.
 */
import { readFileSync } from 'node:fs';
import { type CallFrame, frameName, top } from './profile-frames.ts';

interface SamplingNode {
  callFrame: CallFrame;
  selfSize: number;
  children: SamplingNode[];
}

const TOP = 30;

function tally(root: SamplingNode) {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  const visit = (node: SamplingNode, above: ReadonlySet<string>) => {
    const name = frameName(node.callFrame);
    total += node.selfSize;
    self.set(name, (self.get(name) ?? 0) + node.selfSize);
    const path = above.has(name) ? above : new Set([...above, name]);
    for (const frame of path) inclusive.set(frame, (inclusive.get(frame) ?? 0) + node.selfSize);
    for (const child of node.children) visit(child, path);
  };
  visit(root, new Set());
  return { self, inclusive, total };
}

const [file, requestsArg] = process.argv.slice(2);
if (!file)
  throw new Error('usage: bench/profiling/alloc-report.ts <file.heapprofile> [requests in the window]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: SamplingNode };
const { self, inclusive, total } = tally(profile.head);
const requests = Number(requestsArg);
const perRequest = requests > 0 ? `, ${(total / requests / 1024).toFixed(1)} KB per request` : '';
process.stdout.write(`${(total / 1e6).toFixed(1)} MB allocated${perRequest}\n\n`);
process.stdout.write(`own allocations, top ${TOP}:\n${top(self, total, TOP).join('\n')}\n\n`);
process.stdout.write(`allocated under, top ${TOP}:\n${top(inclusive, total, TOP).join('\n')}\n`);
