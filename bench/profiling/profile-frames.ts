/**
 * Naming and ranking of V8 profile frames, shared by the CPU profile (profile.ts) and the
 * allocation report (alloc-report.ts): both profile formats carry the same call frames.
 */
import path from 'node:path';
import { repoRoot } from '../harness/server-process.ts';

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

/** `src/identity/authenticate.ts`, `pg-protocol`, `node:internal/…`: where a frame's code lives. */
export function moduleOf(url: string): string {
  if (url === '') return '(native/V8)';
  const local = url.replace(/^file:\/\//, '');
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(local);
  if (inModules?.[1]) return inModules[1];
  if (local.startsWith(repoRoot)) return path.relative(repoRoot, local);
  return local.replace(/^(node:internal\/[^/]+).*/, '$1');
}

/** `insertOrders dist/chunk-….js:5484`: a frame's function and where it is (1-based line). */
export function frameName({ functionName, url, lineNumber }: CallFrame): string {
  const where = url ? `${moduleOf(url)}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
}

/** The `limit` largest entries of `counts`, each as its share of `total` and its name. */
export function top(counts: Map<string, number>, total: number, limit: number): string[] {
  return [...counts.entries()]
    .sort((left, right) => right[1] - left[1])
    .slice(0, limit)
    .map(([name, count]) => `${((count / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
}
