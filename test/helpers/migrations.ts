import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A migrations directory of its own, holding `files` (name → SQL), for migrate(db, dir). */
export async function migrationDir(
  files: Record<string, string>,
): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rampart-migrations-'));
  for (const [name, sql] of Object.entries(files)) await writeFile(path.join(dir, name), sql);
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
