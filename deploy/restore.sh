#!/bin/sh
# Restores a directory written by deploy/backup.sh into a NEW deployment of deploy/compose.yaml: start only the stores
# first (`docker compose -f deploy/compose.yaml --env-file deploy/.env up -d postgres redis minio minio-bucket`), put the
# backup's keys.env lines into deploy/.env, run this from the repository root, then start the rest (`… up -d`).
#   deploy/restore.sh backups/2026-11-28
# The database must be empty (a fresh volume): pg_restore stops at the first conflict rather than mix two states.
# RUN_IN=host and SKIP_MEDIA=1 as in deploy/backup.sh.
set -eu
from="${1:?usage: deploy/restore.sh <directory>}"
env_file="${ENV_FILE:-deploy/.env}"
in_service() {
  service="$1"
  shift
  if [ "${RUN_IN:-containers}" = host ]; then "$@"; else docker compose -f deploy/compose.yaml --env-file "$env_file" exec -T "$service" "$@"; fi
}

# The keys first: a database whose secrets were sealed with another SECRET_KEY is refused at start anyway.
while IFS= read -r line; do
  grep -qxF "$line" "$env_file" || {
    echo "deploy/.env lacks the backup's ${line%%=*}: copy it from $from/keys.env first" >&2
    exit 2
  }
done <"$from/keys.env"

in_service postgres pg_restore --no-owner --no-privileges --exit-on-error --username="${PGUSER:-showsuite}" --dbname="${PGDATABASE:-showsuite}" <"$from/showsuite.dump"

if [ "${SKIP_MEDIA:-0}" != 1 ]; then
  in_service minio sh -c 'mc alias set backup http://localhost:9000 "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" >/dev/null &&
    rm -rf /tmp/media-restore && mkdir -p /tmp/media-restore && tar -C /tmp/media-restore -xz &&
    mc mirror --quiet /tmp/media-restore backup/showsuite-media >/dev/null && rm -rf /tmp/media-restore' <"$from/media.tar.gz"
fi
echo "restored from $from; start the nodes now"
