-- A decentralized session token tied to a user (docs/contract.md, decision 95): account_id and
-- partner_id name the partner's master account the user was created under, and user_id the user
-- every request of the token is confined to. NULL for every other key.
ALTER TABLE api_keys ADD COLUMN user_id text REFERENCES users (id);
