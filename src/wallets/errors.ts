import { ApiError, type ErrorEnvelope, type ItemError, invalidValue, notFound } from '../platform/errors.ts';

/** One refused wallet of a batch, as the batch's answer lists it. */
export type ItemRefusal = ItemError;

/**
 * A refused batch (docs/contract.md, decision 32): the envelope names the first bad wallet in
 * `problematicField`, and `errors` lists every bad one, so a client fixes them all in one go.
 */
export class BatchRefusal extends ApiError {
  constructor(readonly items: ItemRefusal[]) {
    const first = items[0]!;
    super(
      'ValidationException',
      first.errorCode,
      `${items.length} of the wallets cannot be created; nothing was created. First: ${first.message}`,
      { problematicField: first.problematicField },
    );
  }

  override toEnvelope(exceptionId: string): ErrorEnvelope {
    return { ...super.toEnvelope(exceptionId), errors: this.items };
  }
}

/** The wallets module's refusals. */
export const walletErrors = {
  notFound: () => notFound('Wallet'),
  nameTaken: (field: string) =>
    invalidValue(field, 'You already have a wallet with this name.', 'validation.walletNameTaken'),
  text: (field: string, max: number) =>
    invalidValue(
      field,
      `Field ${field} must be text of at most ${max} characters, without control characters.`,
    ),
  type: (field: string) => invalidValue(field, `Field ${field} must be DEFAULT, ENTERPRISE or SAVINGS.`),
  holdsBalance: () =>
    new ApiError(
      'ValidationException',
      'validation.walletHasBalance',
      'This wallet still holds funds; transfer them out before deleting it.',
      { problematicField: 'walletId' },
    ),
  batchSize: (max: number) => invalidValue('wallets', `Send between 1 and ${max} wallets in one batch.`),
};
