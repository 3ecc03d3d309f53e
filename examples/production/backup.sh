#!/usr/bin/env bash
# A logical backup of the Rampart database, checked by restoring it into a scratch database.
#   DATABASE_URL       the database to back up
#   BACKUP_DIR         where the dump goes
#   RESTORE_CHECK_URL  an empty scratch database to restore into (optional, recommended)
set -euo pipefail
file="${BACKUP_DIR:?}/rampart-$(date -u +%Y%m%dT%H%M%SZ).dump"
# One consistent snapshot, taken without blocking Rampart's writes.
pg_dump --format=custom --no-owner --no-privileges --file="$file" "${DATABASE_URL:?}"
if [ -n "${RESTORE_CHECK_URL:-}" ]; then
  pg_restore --no-owner --no-privileges --exit-on-error --dbname="$RESTORE_CHECK_URL" "$file"
  migrations=$(psql "$RESTORE_CHECK_URL" -Atqc 'SELECT count(*) FROM schema_migrations')
  echo "restore check: $migrations migrations applied in the copy"
fi
echo "backup written: $file"
