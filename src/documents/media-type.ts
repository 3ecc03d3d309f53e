import { fileTypeFromBuffer } from 'file-type';

/** The media types documents may have (docs/contract.md, Users and KYC), by what the bytes really are. */
export const DOCUMENT_MEDIA_TYPES = {
  pdf: 'application/pdf',
  jpg: 'image/jpeg',
  png: 'image/png',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
} as const;

export const ACCEPTED_MEDIA_TYPES: string[] = Object.values(DOCUMENT_MEDIA_TYPES);

// A legacy Word file is an OLE2 compound file with a stream named "WordDocument"; Excel and
// installer files share the container, so the container alone is not enough.
const WORD_STREAM_NAME = Buffer.from('WordDocument', 'utf16le');

/**
 * What the file is, read from its bytes (never from the name or the declared type), or
 * undefined when it is none of the accepted kinds. file-type tells a DOCX from any other zip by
 * its [Content_Types].xml and word/ parts; a zip that is not a Word document stays 'zip'.
 */
export async function detectDocumentType(bytes: Buffer): Promise<string | undefined> {
  const detected = await fileTypeFromBuffer(bytes);
  if (!detected) return undefined;
  if (detected.ext === 'cfb') return bytes.includes(WORD_STREAM_NAME) ? DOCUMENT_MEDIA_TYPES.doc : undefined;
  return Object.hasOwn(DOCUMENT_MEDIA_TYPES, detected.ext)
    ? DOCUMENT_MEDIA_TYPES[detected.ext as keyof typeof DOCUMENT_MEDIA_TYPES]
    : undefined;
}

/** `image/jpeg; charset=x` → `image/jpeg`; image/jpg is a common misspelling clients send. */
export function declaredMediaType(header: string | undefined): string {
  const mediaType = (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'image/jpg' ? 'image/jpeg' : mediaType;
}
