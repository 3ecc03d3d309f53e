-- Accounts upload identity documents too (POST /v3/accounts/{id}/{fieldId}), through the same
-- storage as users' (src/users/documents-store.ts): a document now belongs to a user or to an
-- account, exactly one of them, and account profile fields of type DOCUMENT are uploadable.
ALTER TABLE user_documents
  ALTER COLUMN user_id DROP NOT NULL,
  ADD COLUMN account_id text REFERENCES accounts (id),
  ADD CONSTRAINT user_documents_one_owner CHECK (num_nonnulls(user_id, account_id) = 1),
  DROP CONSTRAINT user_documents_field_id_check,
  ADD CONSTRAINT user_documents_field_id_check CHECK (field_id IN (
    'governmentIdFront', 'governmentIdBack', 'individualGovernmentId', 'individualProofOfAddress'));
CREATE INDEX user_documents_account ON user_documents (account_id, field_id) WHERE account_id IS NOT NULL;
