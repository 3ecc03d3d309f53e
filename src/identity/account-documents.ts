import { checkedDocument, type DocumentStorage } from '../documents/index.ts';
import { balancesOf } from '../ledger/index.ts';
import type { AppContext } from '../platform/context.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { forbidden, invalidValue } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { type AccountView, accountView } from './account-view.ts';
import { visibleAccount } from './accounts-service.ts';
import { updateProfileFields } from './accounts-store.ts';
import { DOCUMENT_FIELDS } from './profile-fields.ts';
import type { Scope } from './types.ts';

/** What an account upload is given: the base context and the document storage users' uploads use. */
export interface AccountDocumentsDeps extends AppContext {
  documents: DocumentStorage;
}

/** Identity documents Wyre named for a government id (docs/contract.md decision 44). */
const GOVERNMENT_ID_TYPES = ['GOVT_ID', 'DRIVING_LICENSE', 'PASSPORT_CARD', 'PASSPORT'];
const DOCUMENT_TYPE = /^[A-Z][A-Z0-9_]{0,63}$/;
const DOCUMENT_SUB_TYPES = ['FRONT', 'BACK'];

export interface AccountUpload {
  accountId: string;
  fieldId: string;
  documentType: string | undefined;
  documentSubType: string | undefined;
  contentType: string | undefined;
  body: unknown;
}

/**
 * Refuses a field that takes no document and a documentType or documentSubType that does not
 * suit it. Wyre documented only DRIVING_LICENSE / FRONT, so only a government id's type is held
 * to a list; the other document fields take any type written as Wyre wrote them (upper case).
 */
function checkDocumentField(upload: AccountUpload): string {
  const { fieldId, documentType, documentSubType } = upload;
  if (!DOCUMENT_FIELDS.includes(fieldId)) {
    throw invalidValue(
      'fieldId',
      `Field "${fieldId.slice(0, 64)}" takes no document; use ${DOCUMENT_FIELDS.join(' or ')}.`,
    );
  }
  const governmentId = fieldId === 'individualGovernmentId';
  if (documentType !== undefined) {
    const allowed = governmentId
      ? GOVERNMENT_ID_TYPES.includes(documentType)
      : DOCUMENT_TYPE.test(documentType);
    if (!allowed) {
      throw invalidValue(
        'documentType',
        governmentId
          ? `documentType must be one of ${GOVERNMENT_ID_TYPES.join(', ')} for ${fieldId}.`
          : 'documentType must be upper-case letters, digits and underscores.',
      );
    }
  }
  if (documentSubType !== undefined && !DOCUMENT_SUB_TYPES.includes(documentSubType)) {
    throw invalidValue('documentSubType', 'documentSubType must be FRONT or BACK.');
  }
  const type = documentType ?? (governmentId ? 'GOVT_ID' : 'DOCUMENT');
  return documentSubType ? `${type}/${documentSubType}` : type;
}

/**
 * POST /v3/accounts/{accountId}/{fieldId} (docs/contract.md decision 44): the raw file, checked
 * as users' documents are (documents/check.ts checkedDocument: its bytes must be what its
 * Content-Type says), stored through the same storage, and its id appended to the field, which
 * becomes PENDING; answers the Account. All in one transaction; any refusal writes nothing.
 */
export async function uploadAccountDocument(
  ctx: AccountDocumentsDeps,
  scope: Scope,
  upload: AccountUpload,
): Promise<AccountView> {
  const docType = checkDocumentField(upload);
  await visibleAccount(ctx, undefined, scope, upload.accountId, false);
  const document = await checkedDocument(upload.contentType, upload.body);
  return withTransaction(ctx.db, async (tx) => {
    const row = await visibleAccount(ctx, tx, scope, upload.accountId, true);
    if (row.status === 'CLOSED')
      throw forbidden('This account is closed; contact support.', 'accessDenied.accountClosed');
    const now = ctx.clock.now();
    const documentId = newId('DO');
    await ctx.documents.put(tx, {
      id: documentId,
      partnerId: row.partner_id,
      userId: null,
      accountId: row.id,
      fieldId: upload.fieldId,
      docType,
      mediaType: document.mediaType,
      sha256: document.sha256,
      content: document.bytes,
      createdAt: now,
    });
    const previous = row.profile_fields[upload.fieldId]?.value;
    const ids = Array.isArray(previous) ? [...previous, documentId] : [documentId];
    const fields = {
      ...row.profile_fields,
      [upload.fieldId]: { value: ids, status: 'PENDING' as const, submittedAt: now.getTime() },
    };
    const updated = await updateProfileFields(tx, row.id, fields, row.status);
    return accountView(updated, await balancesOf(tx, `account:${row.id}`));
  });
}
