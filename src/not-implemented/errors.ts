import { ApiError } from '../platform/errors.ts';

/**
 * Wyre features Rampart does not offer (docs/contract.md, "Orders, limits and uploads (Wyre
 * surface)"): a 501 that names the feature, so a client learns what is missing instead of
 * guessing at a 404.
 */
export const notImplementedErrors = {
  feature: (feature: string, errorCode: string) =>
    new ApiError(
      'NotImplementedException',
      errorCode,
      `${feature} is not offered by this service; nothing was done.`,
    ),
};
