/** The public face of documents/: what routes and other domains use. Inside documents/, files import each other directly. */

export { checkedDocument, MAX_DOCUMENT_BYTES } from './check.ts';
export { type DocumentInfoRow, documentInfo, documentsOfUser } from './console-store.ts';
export { ACCEPTED_MEDIA_TYPES, detectDocumentType } from './media-type.ts';
export { type DocumentStorage, postgresDocumentStorage } from './store.ts';
