import { ApiError, invalidValue } from '../platform/errors.ts';
import type { WindowName } from './tables.ts';

const PERIOD: Record<WindowName, string> = { daily: 'daily', weekly: 'weekly', yearly: 'yearly' };

export const limitErrors = {
  /** Wyre's `limits.dailyLimitReached` ("You reached your daily limit.") and its siblings. */
  reached: (window: WindowName, remainingUsd: string) =>
    new ApiError(
      'ValidationException',
      `limits.${window}LimitReached`,
      `You reached your ${PERIOD[window]} limit: ${remainingUsd} USD remaining.`,
      { problematicField: 'amount' },
    ),
  unknownAccount: () => invalidValue('accountId', 'accountId is not a known account.'),
  unknownUser: (field: string) => invalidValue(field, `${field} is not one of this partner’s users.`),
};
