#!/bin/sh
# WharfSystem is the one door to the C library for files, processes, signals, time and the
# environment: every descriptor lives in a FileDescriptor that closes exactly once, every call
# retries EINTR and reports a SystemError naming the file. This check fails when a product
# module outside WharfSystem calls the C library for anything else than memory, arithmetic and
# the C libraries it wraps (jansson, SQLite, sd-bus).
#
# It reads what the compiler produced, not the source: the undefined symbols of each module's
# object files are exactly the C functions it calls, whatever the Swift spelling, and a method
# of ours that happens to be called `read` is not one of them.
#
# Usage: Tests/lint/syscalls.sh [BUILD_DIR]   (default .build/debug; build first)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/.build/debug}
cd "$root"

# The modules the `wharf` binary is built from, WharfSystem excepted.
modules=$(ls -d Sources/*/ | sed 's|Sources/||; s|/$||' | grep -v -x \
    -e WharfSystem -e WharfTestSupport -e WharfServerTestSupport -e WharfFuzz -e wharf-docs \
    -e CJansson -e CSQLite -e CSystemBus -e CProcessSpawn -e WharfDesktopTestSupport -e WharfDocs -e wharf-docs)

# What a module may call: memory, arithmetic, pattern matching, the stack protector, the Swift
# runtime's own entry points, and the libraries it exists to wrap.
allowed='^(memcpy|memmove|memset|memcmp|memchr|strlen|malloc|calloc|realloc|free|malloc_usable_size|posix_memalign|ceil|floor|rint|round|trunc|fmod|pow|log|exp|sqrt|fnmatch|__stack_chk_fail|_swiftEmptyArrayStorage|_swiftEmptyDictionarySingleton|_swiftEmptySetSingleton|json_.*|sqlite3_.*|wharf_sd_bus_.*)$'

status=0
for module in $modules; do
    [ -d "$build/$module.build" ] || { echo "lint: $build/$module.build is missing; build first" >&2; exit 2; }
    # Only the objects of the module's current sources (a deleted file's object may linger).
    for source in $(find "Sources/$module" -name '*.swift'); do
        object="$build/$module.build/$(basename "$source").o"
        [ -f "$object" ] || continue
        # Swift's Glibc module reads `environ` through an accessor of its own (a Swift symbol,
        # $s5Glibc7environ…): named here as the C variable it reads, so it is caught too.
        calls=$(nm -u --format=just-symbols "$object" | sed 's/^\$s5Glibc7environ.*/environ/' |
            grep -v -E '^_?\$s|^swift_|^\$' | grep -v -E "$allowed" || true)
        if [ -n "$calls" ]; then
            echo "$source calls $(echo "$calls" | tr '\n' ' ')"
            status=1
        fi
    done
done
if [ $status -ne 0 ]; then
    echo "lint: C library calls outside WharfSystem: add what is missing to WharfSystem and call that" >&2
fi
exit $status
