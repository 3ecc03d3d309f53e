import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundException, RampartClient } from '../../sdk/src/index.js';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createPartner, type PartnerCredentials, signedFetch } from '../helpers/partner.ts';
import { snapshot } from '../orders/support.ts';
import { EXE, JPEG, MEDIA, PNG, pdf } from '../users/fixtures.ts';

/**
 * POST /v3/accounts/{accountId}/{fieldId} (docs/contract.md decision 44): a raw image or PDF,
 * checked and stored as users' documents are, answering the Account. Signed over the real bytes.
 */
let t: TestApp;
let partner: PartnerCredentials;
let client: RampartClient;
let subAccountId: string;

beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
  client = clientOf(partner);
  subAccountId = (await client.accounts.create({ country: 'US', subaccount: true })).id;
});
afterAll(async () => t.close());

function clientOf(credentials: PartnerCredentials) {
  return new RampartClient({
    baseUrl: t.baseUrl,
    auth: { type: 'signature', apiKey: credentials.apiKey, secretKey: credentials.secretKey },
  });
}

async function storedDocuments(accountId: string) {
  const { rows } = await t.database.db.query(
    `SELECT id, user_id, field_id, doc_type, media_type, size_bytes, sha256, content FROM user_documents
     WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
  return rows;
}

const fieldOf = (account: { profileFields: { fieldId: string }[] }, fieldId: string) =>
  account.profileFields.find((field) => field.fieldId === fieldId);

describe('account document upload', () => {
  it('stores a PNG signed byte for byte, puts its id in the field (PENDING) and answers the Account', async () => {
    const account = await client.accounts.uploadDocument(subAccountId, 'individualGovernmentId', {
      documentType: 'DRIVING_LICENSE',
      documentSubType: 'FRONT',
      contentType: MEDIA.png,
      data: PNG,
    });
    expect(account.id).toBe(subAccountId);
    const [stored] = await storedDocuments(subAccountId);
    expect(stored).toMatchObject({
      user_id: null,
      field_id: 'individualGovernmentId',
      doc_type: 'DRIVING_LICENSE/FRONT',
      media_type: 'image/png',
      size_bytes: PNG.length,
      sha256: createHash('sha256').update(PNG).digest('hex'),
    });
    expect(Buffer.compare(stored.content, PNG)).toBe(0);
    expect(fieldOf(account, 'individualGovernmentId')).toEqual({
      fieldId: 'individualGovernmentId',
      fieldType: 'DOCUMENT',
      value: [stored.id],
      note: null,
      status: 'PENDING',
    });
    expect(String(stored.id)).toMatch(/^DO_[2-9A-HJ-NP-Z]{11}$/);
  });

  it('appends a second document (a PDF, the back) and a proof of address, for the account itself', async () => {
    const own = await createPartner(t, { name: 'Self uploader' });
    const ownClient = clientOf(own);
    await ownClient.accounts.uploadDocument(own.accountId, 'individualGovernmentId', {
      contentType: MEDIA.jpeg,
      data: JPEG,
    });
    const account = await ownClient.accounts.uploadDocument(own.accountId, 'individualGovernmentId', {
      documentType: 'PASSPORT_CARD',
      documentSubType: 'BACK',
      contentType: MEDIA.pdf,
      data: pdf(2048),
    });
    const proof = await ownClient.accounts.uploadDocument(own.accountId, 'individualProofOfAddress', {
      documentType: 'UTILITY_BILL',
      contentType: MEDIA.pdf,
      data: pdf(),
    });
    const stored = await storedDocuments(own.accountId);
    expect(stored.map((row) => [row.field_id, row.doc_type, row.media_type])).toEqual([
      ['individualGovernmentId', 'GOVT_ID', 'image/jpeg'],
      ['individualGovernmentId', 'PASSPORT_CARD/BACK', 'application/pdf'],
      ['individualProofOfAddress', 'UTILITY_BILL', 'application/pdf'],
    ]);
    expect(fieldOf(account, 'individualGovernmentId')).toMatchObject({ value: [stored[0].id, stored[1].id] });
    expect(fieldOf(proof, 'individualProofOfAddress')).toMatchObject({
      value: [stored[2].id],
      status: 'PENDING',
    });
  });

  it('verifies a raw signed request whose URL carries Wyre’s query (documentType before timestamp)', async () => {
    const body = pdf(512);
    const answer = await signedFetch(t, partner, {
      method: 'POST',
      path: `/v3/accounts/${subAccountId}/individualProofOfAddress?documentType=BANK_STATEMENT&masqueradeAs=${subAccountId}`,
      body,
      contentType: 'application/pdf',
    });
    const text = await answer.text();
    expect(answer.status, text).toBe(200);
    expect(fieldOf(JSON.parse(text), 'individualProofOfAddress')).toMatchObject({ status: 'PENDING' });
    const tampered = await signedFetch(t, partner, {
      method: 'POST',
      path: `/v3/accounts/${subAccountId}/individualProofOfAddress`,
      body,
      contentType: 'application/pdf',
      headers: { 'x-api-signature': 'ab'.repeat(32) },
    });
    expect(tampered.status).toBe(401);
  });
});

describe('refused uploads change nothing', () => {
  const upload = (path: string, body: Buffer, contentType: string) =>
    signedFetch(t, partner, { method: 'POST', path, body, contentType });

  it.each([
    [
      'bytes that are not the declared type',
      'individualGovernmentId',
      PNG,
      MEDIA.jpeg,
      400,
      'validation.contentTypeMismatch',
    ],
    ['an executable', 'individualGovernmentId', EXE, MEDIA.pdf, 400, 'validation.unsupportedDocumentType'],
    ['an empty file', 'individualGovernmentId', Buffer.alloc(0), MEDIA.png, 400, 'validation.emptyDocument'],
    ['a field that takes no document', 'individualLegalName', PNG, MEDIA.png, 400, 'validation.invalidValue'],
    [
      'a Word file (accounts take PNG, JPEG, PDF)',
      'individualGovernmentId',
      PNG,
      MEDIA.docx,
      415,
      'validation.unsupportedMediaType',
    ],
  ])('%s', async (_name, fieldId, body, contentType, status, errorCode) => {
    const before = await snapshot(t);
    const answer = await upload(`/v3/accounts/${subAccountId}/${fieldId}`, body, contentType);
    expect(answer.status).toBe(status);
    expect(await answer.json()).toMatchObject({ errorCode });
    expect(await snapshot(t)).toEqual(before);
  });

  it('refuses a documentType a government id does not take, and a documentSubType other than FRONT or BACK', async () => {
    const before = await snapshot(t);
    for (const query of [
      'documentType=UTILITY_BILL',
      'documentSubType=SIDE',
      'documentType=driving_license',
    ]) {
      const answer = await upload(
        `/v3/accounts/${subAccountId}/individualGovernmentId?${query}`,
        PNG,
        MEDIA.png,
      );
      expect(answer.status, query).toBe(400);
      expect(await answer.json(), query).toMatchObject({ problematicField: query.split('=')[0] });
    }
    expect(await snapshot(t)).toEqual(before);
  });

  it('hides another partner’s account (404) and needs credentials', async () => {
    const other = await createPartner(t, { name: 'Other partner' });
    const before = await snapshot(t);
    const error = await clientOf(other)
      .accounts.uploadDocument(subAccountId, 'individualGovernmentId', { contentType: MEDIA.png, data: PNG })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundException);
    const anonymous = await fetch(`${t.baseUrl}/v3/accounts/${subAccountId}/individualGovernmentId`, {
      method: 'POST',
      headers: { 'content-type': MEDIA.png },
      body: PNG,
    });
    expect(anonymous.status).toBe(401);
    expect(await snapshot(t)).toEqual(before);
  });
});
