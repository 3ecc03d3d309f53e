import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { MAX_DOCUMENT_BYTES } from '../documents/index.ts';
import { errorResponses, PARTNER_SECURITY, withExample } from '../platform/http/openapi.ts';
import { scopeOf } from './access.ts';
import { type AccountDocumentsDeps, uploadAccountDocument } from './account-documents.ts';
import { documentUploadedAnswer } from './examples.ts';
import { Account } from './schemas.ts';

/** What Wyre's clients send an account document as (docs/contract.md decision 44). */
const UPLOAD_MEDIA_TYPES = ['image/png', 'image/jpeg', 'application/pdf'];

const UploadParams = Type.Object({
  accountId: Type.String({ minLength: 1, maxLength: 64 }),
  fieldId: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'individualGovernmentId or individualProofOfAddress',
  }),
});
const UploadQuery = Type.Object({
  documentType: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'e.g. DRIVING_LICENSE, PASSPORT, GOVT_ID' }),
  ),
  documentSubType: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: 'FRONT or BACK' })),
});

export const accountDocumentRoutes: FastifyPluginAsync<{ ctx: AccountDocumentsDeps }> = async (
  app,
  { ctx },
) => {
  app.post<{
    Params: { accountId: string; fieldId: string };
    Querystring: { documentType?: string; documentSubType?: string };
  }>(
    '/v3/accounts/:accountId/:fieldId',
    {
      // As for users' uploads: over the limit Fastify answers 413 before holding the body whole.
      bodyLimit: MAX_DOCUMENT_BYTES,
      config: { rawBodyTypes: [...UPLOAD_MEDIA_TYPES, 'image/jpg'] },
      schema: {
        tags: ['Accounts'],
        security: PARTNER_SECURITY,
        summary:
          'Upload an account document (raw PNG, JPEG or PDF body, at most 7.75 MiB); answers the Account',
        description:
          'The account itself, or its master for a sub-account (masqueradeAs as for GET /v3/accounts/{accountId}). The body is the file itself with its Content-Type (image/png, image/jpeg or application/pdf); the bytes must be that type (400 `validation.contentTypeMismatch`), an empty file is refused. `fieldId` is a DOCUMENT profile field (individualGovernmentId, individualProofOfAddress; others 400); `documentType` for a government id is GOVT_ID, DRIVING_LICENSE, PASSPORT_CARD or PASSPORT, `documentSubType` FRONT or BACK. The document’s id is appended to the field’s value, which becomes PENDING. Larger than 7.75 MiB: 413; other media types: 415. A closed account: 403.',
        params: UploadParams,
        querystring: UploadQuery,
        // Documentation of the raw body only: the service checks the bytes themselves.
        body: {
          content: Object.fromEntries(
            UPLOAD_MEDIA_TYPES.map((type) => [
              type,
              { schema: { description: 'The document file, as is', format: 'binary' } },
            ]),
          ),
        },
        response: {
          200: withExample(Account, documentUploadedAnswer),
          ...errorResponses(400, 401, 403, 404, 413, 415, 429),
        },
      },
    },
    async (request) =>
      uploadAccountDocument(ctx, scopeOf(request), {
        accountId: request.params.accountId,
        fieldId: request.params.fieldId,
        documentType: request.query.documentType,
        documentSubType: request.query.documentSubType,
        contentType: request.headers['content-type'],
        body: request.body,
      }),
  );
};
