import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { rawRequest } from '../helpers/http.ts';
import { type PartnerCredentials, sign, withTimestamp } from '../helpers/partner.ts';
import { expectError } from '../identity/support.ts';
import { DOCX, doc, EXE, JPEG, MEDIA, otherCompoundFile, PLAIN_ZIP, PNG, pdf } from './fixtures.ts';
import {
  asUser,
  createUser,
  operatorCall,
  readUser,
  startUsersApp,
  type UserBody,
  userState,
} from './support.ts';

const LIMIT = 8_126_464;

let t: TestApp;
let partner: PartnerCredentials;
let other: PartnerCredentials;
let user: UserBody;

beforeAll(async () => {
  ({ t, partner, other } = await startUsersApp());
  user = await createUser(t, partner, { fields: { firstName: 'Ada' } });
});
afterAll(async () => t?.close());

const upload = (
  body: Buffer,
  contentType: string,
  { fieldId = 'governmentIdFront', docType = 'PASSPORT', as = user.id, by = partner, target = user.id } = {},
) => asUser(t, by, as, 'POST', `/v3/users/${target}/${fieldId}?docType=${docType}`, body, { contentType });

async function documents(userId: string) {
  const { rows } = await t.database.db.query(
    'SELECT field_id, doc_type, media_type, size_bytes, sha256, content FROM user_documents WHERE user_id = $1 ORDER BY created_at',
    [userId],
  );
  return rows;
}

describe('accepted documents', () => {
  for (const [name, body, type, fieldId, docType] of [
    ['PDF', pdf(), MEDIA.pdf, 'governmentIdFront', 'PASSPORT'],
    ['PNG', PNG, MEDIA.png, 'governmentIdBack', 'DRIVING_LICENSE'],
    ['JPEG', JPEG, MEDIA.jpeg, 'governmentIdFront', 'GOVT_ID'],
    ['DOC', doc(), MEDIA.doc, 'governmentIdBack', 'PASSPORT_CARD'],
    ['DOCX', DOCX, MEDIA.docx, 'governmentIdFront', 'DRIVING_LICENSE'],
  ] as const) {
    it(`${name}: 204, stored with SHA-256, size and real type; the field becomes SUBMITTED`, async () => {
      const fresh = await createUser(t, partner, {});
      const response = await upload(body, type, { fieldId, docType, as: fresh.id, target: fresh.id });
      expect(response.status, await response.text()).toBe(204);
      const [stored] = await documents(fresh.id);
      expect(stored).toEqual({
        field_id: fieldId,
        doc_type: docType,
        media_type: type,
        size_bytes: body.length,
        sha256: createHash('sha256').update(body).digest('hex'),
        content: body,
      });
      const read = await readUser(t, partner, fresh.id);
      expect(read.fields[fieldId]).toMatchObject({
        status: 'SUBMITTED',
        value: { docType, mediaType: type },
      });
    });
  }

  it('exactly 7.75 MiB is accepted', async () => {
    const fresh = await createUser(t, partner, {});
    const response = await upload(pdf(LIMIT), MEDIA.pdf, { as: fresh.id, target: fresh.id });
    expect(response.status).toBe(204);
    expect((await documents(fresh.id))[0]?.size_bytes).toBe(LIMIT);
  });
});

describe('refused uploads leave the user exactly as before', () => {
  async function refused(
    send: () => Promise<Response>,
    status: number,
    type: string,
    extra: { errorCode?: string; problematicField?: string } = {},
  ) {
    const before = await userState(t);
    await expectError(await send(), status, type, extra);
    expect(await userState(t)).toEqual(before);
  }

  it('a PNG labelled application/pdf', () =>
    refused(() => upload(PNG, MEDIA.pdf), 400, 'ValidationException', {
      errorCode: 'validation.contentTypeMismatch',
      problematicField: 'Content-Type',
    }));

  it('an executable renamed .pdf', () =>
    refused(() => upload(EXE, MEDIA.pdf), 400, 'ValidationException', {
      errorCode: 'validation.unsupportedDocumentType',
    }));

  it('a plain zip labelled as DOCX', () =>
    refused(() => upload(PLAIN_ZIP, MEDIA.docx), 400, 'ValidationException', {
      errorCode: 'validation.unsupportedDocumentType',
    }));

  it('a compound file that is not a Word document, labelled as DOC', () =>
    refused(() => upload(otherCompoundFile(), MEDIA.doc), 400, 'ValidationException', {
      errorCode: 'validation.unsupportedDocumentType',
    }));

  it('an empty body', () =>
    refused(() => upload(Buffer.alloc(0), MEDIA.pdf), 400, 'ValidationException', {
      errorCode: 'validation.emptyDocument',
    }));

  it('a media type no document has', () =>
    refused(() => upload(pdf(), 'application/octet-stream'), 415, 'UnsupportedMediaTypeException'));

  it('7.75 MiB + 1 byte (Content-Length) → 413', () =>
    refused(() => upload(pdf(LIMIT + 1), MEDIA.pdf), 413, 'PayloadTooLargeException'));

  it('7.75 MiB + 1 byte, chunked with no Content-Length → 413 once the limit is passed', async () => {
    const before = await userState(t);
    const path = withTimestamp(
      `/v3/users/${user.id}/governmentIdFront?docType=PASSPORT&masqueradeAs=user:${user.id}`,
      undefined,
    );
    const body = pdf(LIMIT + 1);
    const head =
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/pdf\r\nTransfer-Encoding: chunked\r\n` +
      `X-Api-Key: ${partner.apiKey}\r\nX-Api-Signature: ${sign(partner.secretKey, `${t.baseUrl}${path}`, body)}\r\n\r\n`;
    const chunks: (string | Buffer)[] = [head];
    for (let at = 0; at < body.length; at += 65536) {
      const piece = body.subarray(at, at + 65536);
      chunks.push(`${piece.length.toString(16)}\r\n`, piece, '\r\n');
    }
    chunks.push('0\r\n\r\n');
    const answer = await rawRequest(Number(new URL(t.baseUrl).port), chunks);
    expect(answer.status).toBe(413);
    expect(answer.json).toMatchObject({ type: 'PayloadTooLargeException' });
    expect(await userState(t)).toEqual(before);
  });

  it('docType PASSPORT on governmentIdBack', () =>
    refused(
      () => upload(pdf(), MEDIA.pdf, { fieldId: 'governmentIdBack', docType: 'PASSPORT' }),
      400,
      'ValidationException',
      {
        problematicField: 'docType',
      },
    ));

  it('an unknown fieldId', () =>
    refused(() => upload(pdf(), MEDIA.pdf, { fieldId: 'selfie' }), 400, 'ValidationException', {
      problematicField: 'fieldId',
    }));

  it('a field that is not a document', () =>
    refused(() => upload(pdf(), MEDIA.pdf, { fieldId: 'firstName' }), 400, 'ValidationException', {
      problematicField: 'fieldId',
    }));

  it('masqueradeAs a different user than the path', async () => {
    const second = await createUser(t, partner, {});
    await refused(() => upload(pdf(), MEDIA.pdf, { as: second.id }), 403, 'AccessDeniedException');
  });

  it("masquerading as another partner's user", () =>
    refused(() => upload(pdf(), MEDIA.pdf, { by: other }), 403, 'AccessDeniedException'));

  it('no docType', () =>
    refused(
      () =>
        asUser(t, partner, user.id, 'POST', `/v3/users/${user.id}/governmentIdFront`, pdf(), {
          contentType: MEDIA.pdf,
        }),
      400,
      'FieldRequiredException',
      { problematicField: 'docType' },
    ));

  it('a CLOSED user', async () => {
    const closed = await createUser(t, partner, {});
    await operatorCall(t, 'POST', `/operator/v1/users/${closed.id}/scopes/TRANSFER/review`, {
      decision: 'CLOSE',
    });
    await refused(
      () => upload(pdf(), MEDIA.pdf, { as: closed.id, target: closed.id }),
      403,
      'AccessDeniedException',
      {
        errorCode: 'accessDenied.userClosed',
      },
    );
  });
});
