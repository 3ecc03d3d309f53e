#!/usr/bin/env bash
# Proves that `npm test` exits non-zero when a test fails, on both of its paths: the embedded
# PostgreSQL that test/helpers/global-setup.ts starts when DATABASE_URL is unset (the README's
# path; it once exited 0 there), and DATABASE_URL's server. Runs in a scratch project holding the
# repository's package.json, vitest config, global setup and sources, and one failing test.
# Run from .ci/run, or alone: `bash .ci/failing-test-exits.sh [DATABASE_URL]` (needs node_modules).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)
database_url=${1:-postgres://postgres@127.0.0.1:5432/test}

scratch=$(mktemp -d -t rampart-failing-test.XXXXXX)
# Under root the embedded server runs as the `postgres` user, which must reach data/test-pg.
chmod 0755 "$scratch"
cleanup() {
  local rc=$?
  # The run stops its embedded server; should it not have, the postmaster must not outlive this.
  local pid_file="$scratch/data/test-pg/pg/postmaster.pid"
  [ -f "$pid_file" ] && kill -KILL "$(head -n 1 "$pid_file")" 2>/dev/null || true
  rm -rf "$scratch"
  exit "$rc"
}
trap cleanup EXIT

ln -s "$repo/node_modules" "$repo/src" "$scratch/"
cp "$repo/package.json" "$repo/tsconfig.json" "$repo/vitest.config.ts" "$scratch/"
mkdir "$scratch/test"
ln -s "$repo/test/helpers" "$scratch/test/helpers"
cat >"$scratch/test/deliberately-failing.test.ts" <<'EOF'
import { expect, it } from 'vitest';

it('fails on purpose', () => {
  expect(1 + 1).toBe(3);
});
EOF

free_port() {
  node -e 'const s = require("net").createServer();
    s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => console.log(port)); });'
}

# expect_failure LABEL ENV…: `npm test` in the scratch project must exit non-zero, and because the
# test failed (vitest's summary says so), not because the run itself broke.
expect_failure() {
  local label=$1 rc=0
  shift
  (cd "$scratch" && env "$@" npm test >"$scratch/$label.log" 2>&1) || rc=$?
  if [ "$rc" -eq 0 ] || ! sed 's/\x1b\[[0-9;]*m//g' "$scratch/$label.log" | grep -Eq '^ +Tests +1 failed \(1\)'; then
    tail -n 40 "$scratch/$label.log" >&2
    echo "failing-test: FAILED: npm test with a failing test ($label) exited $rc" >&2
    exit 1
  fi
  echo "failing-test: npm test with a failing test ($label) exited $rc"
}

expect_failure embedded -u DATABASE_URL RAMPART_TEST_PG_PORT="$(free_port)"
[ ! -e "$scratch/data/test-pg/pg/postmaster.pid" ] ||
  { echo 'failing-test: FAILED: the embedded server outlived npm test' >&2; exit 1; }
expect_failure database-url DATABASE_URL="$database_url"
