#!/usr/bin/env bash
# Signed partner requests with nothing but curl and openssl (see examples/README.md for the
# variables). X-Api-Signature = hex HMAC-SHA256, keyed with the secret key, of the URL exactly as
# sent (timestamp included) followed by the raw body bytes.
set -euo pipefail

# #region sign
BASE=${RAMPART_BASE_URL:-http://localhost:3000}

# sign URL [BODY]: the signature of the URL followed by the body bytes
sign() {
  printf '%s%s' "$1" "${2:-}" | openssl dgst -sha256 -hmac "$RAMPART_SECRET_KEY" -hex | sed 's/^.* //'
}
# #endregion

# #region get
# A signed GET: the timestamp (epoch ms) goes in the query, and the query is part of what is signed.
URL="$BASE/v3/accounts/$RAMPART_ACCOUNT_ID?timestamp=$(date +%s%3N)"
curl -sS --fail-with-body "$URL" \
  -H "X-Api-Key: $RAMPART_API_KEY" -H "X-Api-Signature: $(sign "$URL")"
echo
# #endregion

# #region post
# A signed POST: sign URL + body, then send exactly those bytes (--data-raw, no reformatting).
BODY='{"type":"INDIVIDUAL","country":"US","subaccount":true}'
URL="$BASE/v3/accounts?timestamp=$(date +%s%3N)"
curl -sS --fail-with-body -X POST "$URL" \
  -H "X-Api-Key: $RAMPART_API_KEY" -H "X-Api-Signature: $(sign "$URL" "$BODY")" \
  -H 'Content-Type: application/json' -H "Idempotency-Key: $(openssl rand -hex 16)" \
  --data-raw "$BODY"
echo
# #endregion

# #region bearer
# Bearer: the secret key itself, no signature and no timestamp.
curl -sS --fail-with-body "$BASE/v3/accounts/$RAMPART_ACCOUNT_ID" \
  -H "Authorization: Bearer $RAMPART_SECRET_KEY"
echo
# #endregion
