import { ApiError, notFound } from '../platform/errors.ts';

/** Refusals of the console's support pages; shown as pages by setupConsoleRoutes. */
export const consoleErrors = {
  notFound: (what: string) => notFound(what),
  /** The stored bytes are not the accepted kind the row says they are (docs/contract.md, decision 149). */
  documentRefused: () =>
    new ApiError(
      'UnsupportedMediaTypeException',
      'console.documentRefused',
      'This file is not shown: its bytes are not the accepted document type it was stored as.',
    ),
};
