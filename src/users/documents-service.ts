import { checkedDocument } from '../documents/index.ts';
import type { Scope } from '../identity/index.ts';
import { type Tx, withTransaction } from '../platform/db/pool.ts';
import { newId } from '../platform/ids.ts';
import { actingUser } from './access.ts';
import type { UsersDeps } from './deps.ts';
import { userErrors } from './errors.ts';
import { advanceScopes } from './scopes-service.ts';
import { listScopes, saveUserFields, type UserRow } from './users-store.ts';

/** docs/contract.md, Users and KYC: which identity documents each uploadable field takes. */
export const DOC_TYPES_BY_FIELD: Record<string, readonly string[]> = {
  governmentIdFront: ['GOVT_ID', 'DRIVING_LICENSE', 'PASSPORT_CARD', 'PASSPORT'],
  governmentIdBack: ['GOVT_ID', 'DRIVING_LICENSE', 'PASSPORT_CARD'],
};

export interface UploadInput {
  userId: string;
  fieldId: string;
  docType: string;
  contentType: string | undefined;
  body: unknown;
}

/**
 * POST /v3/users/{userId}/{fieldId}: checks the field, the masquerade, the docType and the
 * bytes (their real type must be the declared one), then stores the document and marks the
 * field SUBMITTED in one transaction. Nothing is written when any check fails.
 */
export async function uploadDocument(ctx: UsersDeps, scope: Scope, input: UploadInput): Promise<void> {
  checkUploadableField(input.fieldId);
  await actingUser(ctx.db, scope, input.userId);
  await storeUserDocument(ctx, (tx) => actingUser(tx, scope, input.userId, true), input);
}

export function checkUploadableField(fieldId: string): readonly string[] {
  const allowedDocTypes = DOC_TYPES_BY_FIELD[fieldId];
  if (!Object.hasOwn(DOC_TYPES_BY_FIELD, fieldId) || !allowedDocTypes)
    throw userErrors.notUploadable(fieldId);
  return allowedDocTypes;
}

/**
 * The document checks and the write, for a user already known to the caller: the API's
 * masquerade, or the hosted onboarding page's signed link. `lockUser` reads the user row for
 * update inside the transaction.
 */
export async function storeUserDocument(
  ctx: UsersDeps,
  lockUser: (tx: Tx) => Promise<UserRow>,
  input: Omit<UploadInput, 'userId'>,
): Promise<void> {
  const allowedDocTypes = checkUploadableField(input.fieldId);
  if (!allowedDocTypes.includes(input.docType)) {
    throw userErrors.docTypeNotAllowed(input.fieldId, input.docType, allowedDocTypes);
  }
  const { bytes, mediaType: detected, sha256 } = await checkedDocument(input.contentType, input.body);
  await withTransaction(ctx.db, async (tx) => {
    const user = await lockUser(tx);
    const scopes = await listScopes(tx, user.partner_id, user.id);
    if (scopes.some((row) => row.status === 'CLOSED')) throw userErrors.userClosed();
    const now = ctx.clock.now();
    const documentId = newId('DO');
    await ctx.documents.put(tx, {
      id: documentId,
      partnerId: user.partner_id,
      userId: user.id,
      accountId: null,
      fieldId: input.fieldId,
      docType: input.docType,
      mediaType: detected,
      sha256,
      content: bytes,
      createdAt: now,
    });
    const fields = {
      ...user.fields,
      [input.fieldId]: {
        value: { documentId, docType: input.docType, mediaType: detected, sizeBytes: bytes.length, sha256 },
        status: 'SUBMITTED' as const,
        error: null,
        submittedAt: now.getTime(),
      },
    };
    await saveUserFields(tx, user.partner_id, user.id, fields, now.getTime());
    await advanceScopes(ctx, tx, { ...user, fields }, 'document.uploaded');
  });
}
