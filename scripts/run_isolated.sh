#!/usr/bin/env bash
# Run a command with DDS confined to this machine: inside a fresh network
# namespace when we are root and may create one, else with discovery limited
# to localhost.  Tests also pick a random ROS_DOMAIN_ID and a private log dir.
set -euo pipefail
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null \
   && unshare -n true 2>/dev/null; then
  exec unshare -n sh -c 'ip link set lo up && exec "$@"' sh "$@"
fi
exec "$@"
