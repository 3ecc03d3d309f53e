import { randomChars } from '../platform/ids.ts';

/** The statusHistories entry of docs/contract.md (Transfers), as a transfer answer shows it. */
export interface StatusHistoryEntry {
  id: string;
  transferId: string;
  createdAt: number;
  type: 'OUTGOING';
  statusOrder: number;
  statusDetail: string;
  state: string;
  failedState: string | null;
}

export type HistoryState =
  | 'PREVIEW'
  | 'INITIATED'
  | 'PENDING'
  | 'COMPLETED'
  | 'FAILED'
  | 'EXPIRED'
  | 'REVERSED';

/**
 * What a transfer row stores per status change: the entry's id, its state and when. Everything
 * else the answer shows follows from the state (STEPS) or is the transfer's own id: a fraction of
 * the whole entry's jsonb, in a row written at every change (a card order's delivery transfer
 * twice). Rows written before keep
 * their whole entries, which historyView shows as they are.
 */
export type StoredHistoryEntry = [id: string, state: HistoryState, atMs: number];

const STEPS: Record<HistoryState, { order: number; detail: string; failed: string | null }> = {
  PREVIEW: { order: 0, detail: 'Transfer Preview', failed: null },
  INITIATED: { order: 0, detail: 'Initiating Transfer', failed: null },
  PENDING: { order: 200, detail: 'Transfer Pending', failed: null },
  COMPLETED: { order: 400, detail: 'Transfer Completed', failed: null },
  FAILED: { order: 400, detail: 'Transfer Failed', failed: 'FAILED' },
  EXPIRED: { order: 400, detail: 'Transfer Expired', failed: 'EXPIRED' },
  REVERSED: { order: 600, detail: 'Transfer Reversed', failed: 'REVERSED' },
};

/** A new status change's entry, as stored. */
export function historyEntry(state: HistoryState, atMs: number): StoredHistoryEntry {
  return [randomChars(11), state, atMs];
}

/** A stored entry as the answer shows it (an entry stored whole, before compact ones, as it is). */
export function historyView(
  transferId: string,
  stored: StoredHistoryEntry | StatusHistoryEntry,
): StatusHistoryEntry {
  if (!Array.isArray(stored)) return stored;
  const [id, state, atMs] = stored;
  const step = STEPS[state];
  return {
    id,
    transferId,
    createdAt: atMs,
    type: 'OUTGOING',
    statusOrder: step.order,
    statusDetail: step.detail,
    state,
    failedState: step.failed,
  };
}
