import { detectDocumentType, documentInfo } from '../documents/index.ts';
import { isId } from '../platform/ids.ts';
import type { UsersDeps } from '../users/index.ts';
import { consoleErrors } from './errors.ts';

/**
 * A user's or an account's uploaded document for the console (docs/contract.md, decision 149):
 * served only when the stored bytes are, by their magic bytes, the accepted type the row says,
 * so a file that passed the upload check under other rules, or was altered since, is never
 * handed to the browser. Images and PDFs are shown inline, Word files downloaded.
 */

const EXTENSIONS: Record<string, string> = {
  'application/pdf': 'pdf',
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
};
const INLINE = new Set(['application/pdf', 'image/jpeg', 'image/png']);

export interface ServedDocument {
  bytes: Buffer;
  mediaType: string;
  headers: Record<string, string>;
}

export async function consoleDocument(deps: UsersDeps, id: string): Promise<ServedDocument> {
  const info = isId(id, 'DO') ? await documentInfo(deps.db, id) : undefined;
  if (!info) throw consoleErrors.notFound('Document');
  const bytes = await deps.documents.get(deps.db, info.partner_id, id);
  if (!bytes) throw consoleErrors.notFound('Document');
  const detected = await detectDocumentType(bytes);
  const extension = EXTENSIONS[info.media_type];
  if (!detected || detected !== info.media_type || !extension) throw consoleErrors.documentRefused();
  // The name is built from the id (letters, digits, `_`) and a fixed extension: nothing the
  // uploader chose reaches the header.
  const disposition = `${INLINE.has(detected) ? 'inline' : 'attachment'}; filename="${info.id}.${extension}"`;
  return {
    bytes,
    mediaType: detected,
    headers: {
      'content-security-policy': 'sandbox',
      'x-content-type-options': 'nosniff',
      'content-disposition': disposition,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    },
  };
}
