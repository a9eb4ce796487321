#!/usr/bin/env bash
#===- third_party/setup.sh - install the pinned system packages -----------===#
#
# Installs every Debian 12 package the build and the tests need, pinned to the
# exact versions the repository rules check. Idempotent: when everything is
# already at the pinned version it does nothing and makes no network access.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pins="$here/packages.txt"

missing=()
while read -r pkg version; do
  [[ -z "$pkg" || "$pkg" == \#* ]] && continue
  installed=$(dpkg-query -W -f='${Status} ${Version}' "$pkg" 2>/dev/null || true)
  if [[ "$installed" != "install ok installed $version" ]]; then
    missing+=("$pkg=$version")
  fi
done <"$pins"

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "llmc setup: installing ${#missing[@]} pinned package(s): ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
  --allow-downgrades "${missing[@]}" >/dev/null
echo "llmc setup: done" >&2
