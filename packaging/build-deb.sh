#!/usr/bin/env bash
# Turns a staging tree laid out by `make install PREFIX=/usr DESTDIR=STAGE` into a Debian
# package in OUT, the way debhelper would but with dpkg-deb alone: the binary stripped, manual
# pages and changelog compressed, copyright and lintian overrides added, Depends computed by
# dpkg-shlibdeps from the binary's shared libraries, then lintian, which must report nothing
# that packaging/debian/lintian-overrides does not explain.
#
# usage: packaging/build-deb.sh STAGE OUT
set -euo pipefail
stage=$(realpath "$1")
out=$(realpath -m "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
here=$root/packaging/debian

# The version is the server's own, as the binary says it: "wharf 0.1.0 (protocol 0.1)".
version=$("$stage/usr/bin/wharf" --version | awk '{print $2}')
architecture=$(dpkg --print-architecture)
maintainer=$(sed -n 's/^Maintainer: //p' "$here/control")
package=wharf
doc=$stage/usr/share/doc/$package

# What debhelper's dh_strip does: no symbols, no comment or note sections.
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/wharf"

# Manual pages compressed, reproducibly (no name or time stamp in the gzip header).
find "$stage/usr/share/man" -type f ! -name '*.gz' -exec gzip -9n {} +

# copyright in the machine-readable format, the licence text taken from LICENSE.
install -d "$doc"
{
    cat "$here/copyright"
    echo "License: MIT"
    sed -e '1,/^Permission/{/^Permission/!d}' -e 's/^$/./' -e 's/^/ /' "$root/LICENSE"
} > "$doc/copyright"

# A native package's changelog: one entry for this version, dated by the last commit so that
# two builds of one commit are identical.
date=$(git -C "$root" log -1 --format=%cD 2>/dev/null || date -R)
{
    echo "$package ($version) unstable; urgency=medium"
    echo
    echo "  * Wharf $version, packaged from its source tree; its history is in"
    echo "    CHANGELOG.md there."
    echo
    echo " -- $maintainer  $date"
} | gzip -9n > "$doc/changelog.gz"

install -D -m 0644 "$here/lintian-overrides" "$stage/usr/share/lintian/overrides/$package"

# Depends: dpkg-shlibdeps wants a debian/control naming the package; it gets one in a
# scratch directory.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$package" "$package" > "$scratch/debian/control"
depends=$(cd "$scratch" && dpkg-shlibdeps -O "$stage/usr/bin/wharf" 2>"$scratch/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p') || {
    cat "$scratch/shlibdeps.log" >&2
    exit 1
}
[ -n "$depends" ] || { echo "dpkg-shlibdeps found no dependencies" >&2; cat "$scratch/shlibdeps.log" >&2; exit 1; }

install -d "$stage/DEBIAN"
(cd "$stage" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
installed_size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
{
    echo "Package: $package"
    echo "Version: $version"
    echo "Architecture: $architecture"
    grep -v '^Description:' "$here/control" | sed '/^ /d'
    echo "Installed-Size: $installed_size"
    echo "Depends: $depends"
    sed -n '/^Description:/,$p' "$here/control"
} > "$stage/DEBIAN/control"

# Every directory 0755 and every file 0644 but the binary, whatever the umask was.
find "$stage" -type d -exec chmod 0755 {} +
find "$stage" -type f ! -path "$stage/usr/bin/*" -exec chmod 0644 {} +

mkdir -p "$out"
deb=$out/${package}_${version}_${architecture}.deb
rm -f "$deb"
SOURCE_DATE_EPOCH=$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s) \
    dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"

# lintian runs as root here (CI does); --allow-root says that is meant.
lintian --allow-root --fail-on error,warning,info --display-info "$deb"
