#!/bin/sh
# As the official image: redis-server as the redis user, listening on every interface without protected mode.
set -eu
if [ "$1" = redis-server ]; then
  shift
  cd /var/lib/redis
  exec setpriv --reuid=redis --regid=redis --init-groups redis-server --bind '*' --protected-mode no "$@"
fi
exec "$@"
