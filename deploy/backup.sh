#!/bin/sh
# Backs up the deployment of deploy/compose.yaml into one directory: the database (pg_dump inside the postgres
# service), the media bucket (mc inside the minio service) and the two keys (from the env file). From the repository
# root, while the site runs:
#   deploy/backup.sh backups/$(date +%F)
# RUN_IN=host runs the very same commands on this machine instead of inside the services (PG* variables say where the
# database is; SKIP_MEDIA=1 when the media are backed up another way): how the test suite runs this file.
set -eu
out="${1:?usage: deploy/backup.sh <directory>}"
env_file="${ENV_FILE:-deploy/.env}"
in_service() {
  service="$1"
  shift
  if [ "${RUN_IN:-containers}" = host ]; then "$@"; else docker compose -f deploy/compose.yaml --env-file "$env_file" exec -T "$service" "$@"; fi
}
umask 077
mkdir -p "$out"

# 1. The database: a consistent snapshot while the nodes keep serving.
in_service postgres pg_dump --format=custom --no-owner --no-privileges --username="${PGUSER:-showsuite}" --dbname="${PGDATABASE:-showsuite}" >"$out/showsuite.dump"

# 2. The media bucket, as one tar stream out of the minio service.
if [ "${SKIP_MEDIA:-0}" != 1 ]; then
  in_service minio sh -c 'mc alias set backup http://localhost:9000 "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" >/dev/null &&
    rm -rf /tmp/media-backup && mc mirror --quiet backup/showsuite-media /tmp/media-backup >/dev/null &&
    tar -C /tmp/media-backup -cz . && rm -rf /tmp/media-backup' >"$out/media.tar.gz"
fi

# 3. The keys: without JWT_SECRET every session ends; without SECRET_KEY no sealed secret can be read.
grep -E '^(JWT_SECRET|SECRET_KEY)=' "$env_file" >"$out/keys.env"
echo "backed up into $out: showsuite.dump, media.tar.gz, keys.env (keep keys.env off shared storage)"
