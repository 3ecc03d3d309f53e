import type { Queryable } from '../platform/db/pool.ts';

/** The operator console's reads of `user_documents` (docs/contract.md, decision 148). */

export interface DocumentInfoRow {
  id: string;
  partner_id: string;
  user_id: string | null;
  account_id: string | null;
  field_id: string;
  doc_type: string;
  media_type: string;
  size_bytes: number;
  created_at: Date;
}

const INFO = 'id, partner_id, user_id, account_id, field_id, doc_type, media_type, size_bytes, created_at';

/** What a user uploaded, without the bytes, oldest first (user_documents_user). */
export async function documentsOfUser(q: Queryable, userId: string, limit: number) {
  const { rows } = await q.query<DocumentInfoRow>(
    `SELECT ${INFO} FROM user_documents WHERE user_id = $1 ORDER BY created_at, id LIMIT $2`,
    [userId, limit],
  );
  return rows;
}

/**
 * One document's description, whoever's it is: the console serves every partner's. The bytes
 * come through the storage port (DocumentStorage.get), wherever they are kept.
 */
export async function documentInfo(q: Queryable, id: string) {
  const { rows } = await q.query<DocumentInfoRow>(`SELECT ${INFO} FROM user_documents WHERE id = $1`, [id]);
  return rows[0];
}
