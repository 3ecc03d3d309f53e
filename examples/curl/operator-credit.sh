#!/usr/bin/env bash
# Funds the sandbox partner account with 1,000 USD through the operator API (a double-entry credit
# from the outside world, audited), then moves 10 USD of it to a new sub-account with a signed,
# auto-confirmed transfer.
set -euo pipefail
BASE=${RAMPART_BASE_URL:-http://localhost:3000}
sign() {
  printf '%s%s' "$1" "${2:-}" | openssl dgst -sha256 -hmac "$RAMPART_SECRET_KEY" -hex | sed 's/^.* //'
}
# signed METHOD PATH [BODY]: a signed partner call that fails on a non-2xx answer
signed() {
  local url="$BASE$2?timestamp=$(date +%s%3N)"
  curl -sS --fail-with-body -X "$1" "$url" -H "X-Api-Key: $RAMPART_API_KEY" \
    -H "X-Api-Signature: $(sign "$url" "${3:-}")" -H 'Content-Type: application/json' \
    ${3:+--data-raw "$3"}
}

curl -sS --fail-with-body -X POST "$BASE/operator/v1/ledger/credits" \
  -H "Authorization: Bearer $RAMPART_OPERATOR_TOKEN" -H 'Content-Type: application/json' \
  -d "{\"owner\":\"account:$RAMPART_ACCOUNT_ID\",\"currency\":\"USD\",\"amount\":\"1000\",\"memo\":\"sandbox float\"}"
echo

SUB=$(signed POST /v3/accounts '{"country":"US","subaccount":true}' | sed 's/^{"id":"\([^"]*\)".*/\1/')
signed POST /v3/transfers "{\"sourceCurrency\":\"USD\",\"sourceAmount\":\"10\",\"dest\":\"account:$SUB\",\"autoConfirm\":true}"
echo
