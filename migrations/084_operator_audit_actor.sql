-- The operator behind an audited operator call: the named operator (OP_…) of a console action or
-- of a call with a personal token; NULL for the shared operator token and anonymous refusals.
-- `actor` stays the readable name (`operator-token`, `OP_… ada@example.com`, `anonymous`).
ALTER TABLE operator_audit ADD COLUMN operator_id text;
CREATE INDEX operator_audit_by_operator ON operator_audit (operator_id, at DESC) WHERE operator_id IS NOT NULL;
