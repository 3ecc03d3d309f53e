import { invalidValue } from '../platform/errors.ts';

/** Refusals of an uploaded document, users' and accounts' alike. */
export const documentErrors = {
  emptyDocument: () =>
    invalidValue(
      'body',
      'The document is empty; send the file as the raw request body.',
      'validation.emptyDocument',
    ),
  unsupportedDocument: () =>
    invalidValue(
      'body',
      'The file is not a PDF, JPEG, PNG, DOC or DOCX document.',
      'validation.unsupportedDocumentType',
    ),
  contentTypeMismatch: (declared: string, detected: string) =>
    invalidValue(
      'Content-Type',
      `Content-Type ${declared.slice(0, 100)} does not match the file, which is ${detected}.`,
      'validation.contentTypeMismatch',
    ),
};
