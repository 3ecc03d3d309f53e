import { sha256Hex } from '../platform/crypto.ts';
import { documentErrors } from './errors.ts';
import { declaredMediaType, detectDocumentType } from './media-type.ts';

/** docs/contract.md, decision 1: 7.75 MiB. */
export const MAX_DOCUMENT_BYTES = 8_126_464;

/** An uploaded file after checkedDocument: its bytes, what they really are, and their digest. */
export interface CheckedDocument {
  bytes: Buffer;
  mediaType: string;
  sha256: string;
}

/**
 * The checks every document upload makes, users' and accounts' alike: a non-empty body whose
 * bytes are one of the accepted kinds (never trusting the declared type or a name) and whose
 * declared Content-Type says the same. The size limit is the route's (MAX_DOCUMENT_BYTES, 413).
 */
export async function checkedDocument(
  contentType: string | undefined,
  body: unknown,
): Promise<CheckedDocument> {
  const bytes = Buffer.isBuffer(body) ? body : undefined;
  if (!bytes || bytes.length === 0) throw documentErrors.emptyDocument();
  const mediaType = await detectDocumentType(bytes);
  if (!mediaType) throw documentErrors.unsupportedDocument();
  const declared = declaredMediaType(contentType);
  if (declared !== mediaType) throw documentErrors.contentTypeMismatch(declared, mediaType);
  return { bytes, mediaType, sha256: sha256Hex(bytes) };
}
