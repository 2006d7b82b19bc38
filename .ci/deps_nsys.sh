#!/usr/bin/env bash
# Installs Debian's own nsight-systems (non-free) and libnvtoolsext1 for the real-nsys test tier.
# Only Debian's archive is used: a separate sources file adds `contrib non-free` for the same
# mirror and suites the system already uses. Not root / not Debian 12: prints the commands instead.
set -euo pipefail
pkgs=(nsight-systems nsight-systems-target libnvtoolsext1)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
list=/etc/apt/sources.list.d/gpuflame-debian-nonfree.sources
codename=$( . /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-}")
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1 || [ "$codename" != bookworm ]; then
  cat >&2 <<MSG
deps: nsys is not installed (needed only for the real-nsys test tier, which is skipped without it).
deps: on Debian 12, as root:
  printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: contrib non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' > $list
  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}
deps: elsewhere install NVIDIA's Nsight Systems packages and put nsys on PATH (or set GF_REAL_NSYS).
MSG
  exit 1
fi
if [ ! -f "$list" ]; then
  # Same mirror and keyring as the system's own Debian source, other components only.
  uri=http://deb.debian.org/debian
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    found=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
    [ -n "$found" ] && uri=$found
  fi
  printf 'Types: deb\nURIs: %s\nSuites: bookworm bookworm-updates\nComponents: contrib non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$uri" > "$list"
fi
echo "deps: installing ${missing[*]} (Debian non-free)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
