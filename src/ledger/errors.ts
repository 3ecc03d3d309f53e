import { ApiError } from '../platform/errors.ts';

export const ledgerErrors = {
  insufficientFunds: () =>
    new ApiError('InsufficientFundsException', 'insufficientFunds', 'Insufficient funds for this movement.'),
  holdNotPending: () =>
    new ApiError(
      'TransferException',
      'ledger.holdNotPending',
      'This hold was already posted, voided or expired.',
    ),
};

/** PostgreSQL check_violation on the balance constraints: the movement would overdraw a customer. */
export function isOverdraft(error: unknown): boolean {
  const pgError = error as { code?: string; constraint?: string };
  return pgError.code === '23514' && (pgError.constraint ?? '').startsWith('ledger_');
}
