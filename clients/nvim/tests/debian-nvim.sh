#!/usr/bin/env bash
# Puts Debian's Neovim of one release into DIR, unpacked, not installed, and writes DIR/nvim,
# which runs it: the oldest Neovim the plugin supports (0.10, Debian 13 "trixie"), to run the
# suite on, on a machine of any Debian release.
#
#   clients/nvim/tests/debian-nvim.sh DIR [SUITE]      (SUITE: trixie by default)
#
# apt-get works in DIR alone (its own sources list, package lists and cache; the system's apt
# state is not touched) and only downloads; dpkg-deb unpacks. The binary runs with the release's
# own C library and loader, through DIR/nvim, so it needs nothing newer from the system.
set -euo pipefail

dir="${1:?usage: debian-nvim.sh DIR [SUITE]}"
suite="${2:-trixie}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
apt="$dir/apt"
root="$dir/root"
rm -rf "$apt" "$root"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$root"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
  > "$apt/sources.list"
: > "$apt/status"
opts=(
  -o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o "Dir::State::Status=$apt/status"
  -o APT::Sandbox::User=root
)
apt-get "${opts[@]}" -qq update
# Neovim and what it links against, with the C library they were built for.
(cd "$apt/debs" && apt-get "${opts[@]}" -qq download \
  neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 libluajit-5.1-common libmsgpack-c2 \
  libtree-sitter0.22 libunibilium4 libuv1t64 libvterm0 lua-lpeg lua-luv)
for deb in "$apt/debs"/*.deb; do
  dpkg-deb -x "$deb" "$root"
done
rm -rf "$apt"

lib="$root/usr/lib/x86_64-linux-gnu"
cat > "$dir/nvim" <<EOF
#!/bin/sh
# Debian $suite's Neovim, run by its own loader with its own libraries (written by debian-nvim.sh).
VIMRUNTIME='$root/usr/share/nvim/runtime' exec '$lib/ld-linux-x86-64.so.2' --library-path '$lib' '$root/usr/bin/nvim' "\$@"
EOF
chmod +x "$dir/nvim"
"$dir/nvim" --version | head -1
