import type { Queryable } from '../platform/db/pool.ts';
import { recordKeysUsed } from './keys-store.ts';

/** A key's "last used" moves at most this often: a busy key costs one row update a minute. */
export const KEY_USE_INTERVAL_MS = 60_000;
/** Uses noted within this delay go to the database in one statement. */
const FLUSH_DELAY_MS = 1_000;
/** Bounds the per-process memory: past it the notes start over (a few extra writes, never more keys). */
const MAX_TRACKED_KEYS = 100_000;

export interface KeyUse {
  apiKey: string;
  atMs: number;
}

/**
 * When each API key was last used (docs/contract.md, decision 163), recorded off the request
 * path. `used` runs on every authenticated request, so it is a Map lookup and a compare; a key
 * not noted in the last minute is queued, and a timer writes the queue as one statement. The
 * write is never awaited by a request, and its failure is reported, never thrown: a partner's
 * call must not fail because a bookkeeping column could not be written. A key whose write failed
 * is forgotten, so its next use tries again.
 */
export class KeyUsage {
  private readonly noted = new Map<string, number>();
  private queued = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly write: (uses: KeyUse[]) => Promise<void>,
    private readonly onFailure: (error: unknown) => void,
    private readonly flushDelayMs = FLUSH_DELAY_MS,
  ) {}

  used(apiKey: string, nowMs: number): void {
    const last = this.noted.get(apiKey);
    if (last !== undefined && nowMs - last < KEY_USE_INTERVAL_MS) return;
    if (this.noted.size >= MAX_TRACKED_KEYS) this.noted.clear();
    this.noted.set(apiKey, nowMs);
    this.queued.set(apiKey, nowMs);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => void this.flush(), this.flushDelayMs);
      this.timer.unref();
    }
  }

  /** Writes what is queued now (the timer's work; also at close, so a stopping process loses nothing). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queued.size === 0) return this.writing;
    const uses = [...this.queued].map(([apiKey, atMs]) => ({ apiKey, atMs }));
    this.queued = new Map();
    // One write at a time: a slow database gets one statement per flush, not a pile of them.
    this.writing = this.writing.then(() =>
      this.write(uses).catch((error: unknown) => {
        for (const use of uses) if (this.noted.get(use.apiKey) === use.atMs) this.noted.delete(use.apiKey);
        this.onFailure(error);
      }),
    );
    return this.writing;
  }
}

/** The recorder of one process's requests, writing on `q` (the async-commit pool: losing a last instant is harmless). */
export function keyUsageOn(q: Queryable, onFailure: (error: unknown) => void): KeyUsage {
  return new KeyUsage((uses) => recordKeysUsed(q, uses), onFailure);
}
