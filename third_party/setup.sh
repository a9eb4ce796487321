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

native_arch=$(dpkg --print-architecture)

# The status and version of `pkg`. With a foreign architecture enabled, a
# Multi-Arch: same package (libabsl-dev) may be installed twice, so an
# unqualified name means the native one; an Architecture: all package
# (nlohmann-json3-dev) has no native one.
installed_status() {
  local pkg=$1 format='${Status} ${Version}'
  if [[ "$pkg" != *:* ]] &&
    dpkg-query -W -f="$format" "$pkg:$native_arch" 2>/dev/null; then
    return
  fi
  dpkg-query -W -f="$format" "$pkg" 2>/dev/null || true
}

missing=()
while read -r pkg version; do
  [[ -z "$pkg" || "$pkg" == \#* ]] && continue
  installed=$(installed_status "$pkg")
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
# A pin such as libabsl-dev:arm64 (the aarch64 cross build) needs dpkg to
# know that architecture before apt-get update reads its package lists.
foreign_archs=$(dpkg --print-foreign-architectures | tr '\n' ' ')
known_archs=" $(dpkg --print-architecture) $foreign_archs"
for pin in "${missing[@]}"; do
  pkg=${pin%%=*}
  [[ "$pkg" == *:* ]] || continue
  arch=${pkg#*:}
  if [[ "$known_archs" != *" $arch "* ]]; then
    "${sudo_cmd[@]}" dpkg --add-architecture "$arch"
    known_archs+="$arch "
  fi
done
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
  --allow-downgrades "${missing[@]}" >/dev/null
echo "llmc setup: done" >&2
