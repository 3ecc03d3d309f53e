import type { Queryable } from '../platform/db/pool.ts';

/**
 * The SQL of `user_documents`: the bytes of every uploaded document, a user's or an account's.
 */

/** A document of a user or of an account: exactly one of userId and accountId is set. */
export interface NewDocument {
  id: string;
  partnerId: string;
  userId: string | null;
  accountId: string | null;
  fieldId: string;
  docType: string;
  mediaType: string;
  sha256: string;
  content: Buffer;
  createdAt: Date;
}

/**
 * Where document bytes live. PostgreSQL today (a table of its own, so user reads never touch the
 * bytes); an object store can take its place behind the same two calls.
 */
export interface DocumentStorage {
  put(q: Queryable, document: NewDocument): Promise<void>;
  get(q: Queryable, partnerId: string, documentId: string): Promise<Buffer | undefined>;
}

export const postgresDocumentStorage: DocumentStorage = {
  async put(q, d) {
    await q.query(
      `INSERT INTO user_documents (id, user_id, account_id, partner_id, field_id, doc_type, media_type, size_bytes, sha256, content, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        d.id,
        d.userId,
        d.accountId,
        d.partnerId,
        d.fieldId,
        d.docType,
        d.mediaType,
        d.content.length,
        d.sha256,
        d.content,
        d.createdAt,
      ],
    );
  },
  async get(q, partnerId, documentId) {
    const { rows } = await q.query<{ content: Buffer }>(
      'SELECT content FROM user_documents WHERE partner_id = $1 AND id = $2',
      [partnerId, documentId],
    );
    return rows[0]?.content;
  },
};
