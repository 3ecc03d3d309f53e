import { randomChars } from '../platform/ids.ts';

/** facts §1.5's statusHistories entry; stored in the transfer row, appended with each change. */
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

export type HistoryState = 'PREVIEW' | 'INITIATED' | 'PENDING' | 'COMPLETED' | 'FAILED' | 'EXPIRED';

const STEPS: Record<HistoryState, { order: number; detail: string; failed: string | null }> = {
  PREVIEW: { order: 0, detail: 'Transfer Preview', failed: null },
  INITIATED: { order: 0, detail: 'Initiating Transfer', failed: null },
  PENDING: { order: 200, detail: 'Transfer Pending', failed: null },
  COMPLETED: { order: 400, detail: 'Transfer Completed', failed: null },
  FAILED: { order: 400, detail: 'Transfer Failed', failed: 'FAILED' },
  EXPIRED: { order: 400, detail: 'Transfer Expired', failed: 'EXPIRED' },
};

export function historyEntry(transferId: string, state: HistoryState, atMs: number): StatusHistoryEntry {
  const step = STEPS[state];
  return {
    id: randomChars(11),
    transferId,
    createdAt: atMs,
    type: 'OUTGOING',
    statusOrder: step.order,
    statusDetail: step.detail,
    state,
    failedState: step.failed,
  };
}
