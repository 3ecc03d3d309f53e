/** Kept for src/compose.ts, which imports this path until it imports documents/index.ts. */
export { type DocumentStorage, postgresDocumentStorage } from '../documents/index.ts';
