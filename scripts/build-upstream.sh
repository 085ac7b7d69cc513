#!/usr/bin/env bash
# Build the schemes' own programs (the authors' Copa, Sprout, Verus; the authors' PCC-Vivace
# binaries) as external reference programs for `accelbrake emulate --upstream`.
#
#   scripts/build-upstream.sh [SOURCE_DIR]
#
# SOURCE_DIR holds the four source snapshots as tarballs (the commits the Pantheon harness pins):
#   genericCC-d0153f8e594a.tar.gz  venkatarun95/genericCC @ d0153f8e594aa89e93b032143cedbdfe58e562f4
#   sprout-366e35c6178b.tar.gz     keithw/sprout         @ 366e35c6178b01e31d4a46ad18c74f9415f19a26
#   verus-d4b447ea74c6.tar.gz      yzaki/verus           @ d4b447ea74c6c60a261149af2629562939f9a494
#   vivace-2baf86211435.tar.gz     StanfordSNR/vivace    @ 2baf86211435ae071a32f96b7d8c504587f5d7f4
# (each a `git archive --prefix=NAME/` of that commit: genericCC/, sprout/, verus/, vivace/).
#
# The programs are installed into $ACCELBRAKE_UPSTREAM_DIR, by default
# ${XDG_DATA_HOME:-~/.local/share}/accelbrake/upstream, where the CLI looks for them. Nothing of
# theirs enters the project's tree. Patches applied (patches/upstream/, each needed by a modern
# compiler only; the programs' behaviour is unchanged):
#   verus-integral-milliseconds.patch: boost >= 1.67 accepts only integers in
#     boost::posix_time::milliseconds; older boost converted the double argument to long, which
#     the patch now writes out.
# Build settings that differ from the authors' makefiles, with the reason:
#   genericCC: its makefile builds every source with -Werror, including files the sender does not
#     use and that g++ 12 no longer compiles (cubiccc.cc): we compile the sender's and receiver's
#     own objects (the makefile's `sender` and `receiver` targets) without -Werror.
#   Verus: Debian's libalglib has a newer interface than the headers Verus includes from its
#     bundled copy (lib/alglib): we link the bundled copy's sources, which match its headers.
# Pantheon's MTU patches for Sprout and Verus are NOT applied: they make room for Pantheon's own
# tunnel, which our emulated link does not have.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
src="${1:-}"
if [ -z "$src" ]; then
    if [ -d "$here/../shared/upstream" ]; then src="$here/../shared/upstream"; fi
fi
need() {
    cat >&2 <<EOF
build-upstream: error: $1
Give a folder holding these four tarballs (each \`git archive --prefix=NAME/ COMMIT\` of a public
repository): UPSTREAM_SRC=DIR make upstream
  genericCC-d0153f8e594a.tar.gz  from github.com/venkatarun95/genericCC at d0153f8e594aa89e93b032143cedbdfe58e562f4
  sprout-366e35c6178b.tar.gz     from github.com/keithw/sprout at 366e35c6178b01e31d4a46ad18c74f9415f19a26
  verus-d4b447ea74c6.tar.gz      from github.com/yzaki/verus at d4b447ea74c6c60a261149af2629562939f9a494
  vivace-2baf86211435.tar.gz     from github.com/StanfordSNR/vivace at 2baf86211435ae071a32f96b7d8c504587f5d7f4
EOF
    exit 2
}
[ -n "$src" ] || need "no source folder given"
[ -d "$src" ] || need "source folder '$src' does not exist"
for t in genericCC-d0153f8e594a sprout-366e35c6178b verus-d4b447ea74c6 vivace-2baf86211435; do
    [ -f "$src/$t.tar.gz" ] || need "'$src/$t.tar.gz' is missing"
done

dest="${ACCELBRAKE_UPSTREAM_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/accelbrake/upstream}"
work="$dest/build"
rm -rf "$work"
mkdir -p "$work" "$dest"
jobs="${JOBS:-2}"

echo "build-upstream: sources from $src, programs into $dest"
for t in genericCC-d0153f8e594a sprout-366e35c6178b verus-d4b447ea74c6 vivace-2baf86211435; do
    tar xzf "$src/$t.tar.gz" -C "$work"
done

# Copa (genericCC): the objects of its makefile's `sender` and `receiver` targets.
(
    cd "$work/genericCC"
    protoc --cpp_out=. protobufs-default/dna.proto 2>/dev/null
    flags=(-DHAVE_CONFIG_H -std=c++11 -pthread -O2 -I./protobufs-default -I./udt -I.)
    objs=()
    for s in random memory memoryrange rat whisker whiskertree udp-socket traffic-generator remycc \
        markoviancc estimators rtt-window; do
        g++ "${flags[@]}" -c "$s.cc" -o "$s.o"
        objs+=("$s.o")
    done
    g++ -O2 -I. -c protobufs-default/dna.pb.cc -o protobufs-default/dna.pb.o
    g++ "${flags[@]}" -c sender.cc -o sender.o
    g++ "${flags[@]}" -c receiver.cc -o receiver.o
    g++ "${objs[@]}" sender.o protobufs-default/dna.pb.o -o sender -ljemalloc -lm -pthread -lprotobuf
    g++ receiver.o udp-socket.o -o receiver -pthread
    mkdir -p "$dest/copa"
    install -m 755 sender receiver "$dest/copa/"
)
echo "build-upstream: copa ok"

# Sprout: as its README says.
(
    cd "$work/sprout"
    ./autogen.sh >/dev/null 2>&1
    ./configure --enable-examples >/dev/null
    make -j"$jobs" >/dev/null
    mkdir -p "$dest/sprout"
    install -m 755 src/examples/sproutbt2 "$dest/sprout/"
    install -m 644 src/examples/sprout.model "$dest/sprout/"
)
echo "build-upstream: sprout ok"

# Verus: one compiler patch; linked with its bundled alglib.
(
    cd "$work/verus"
    patch -s -p1 <"$here/patches/upstream/verus-integral-milliseconds.patch"
    mkdir -p alglib-build
    for f in lib/alglib/src/*.cpp; do
        g++ -O2 -w -c "$f" -o "alglib-build/$(basename "$f" .cpp).o"
    done
    ar rcs alglib-build/libalglib-bundled.a alglib-build/*.o
    ./bootstrap.sh >/dev/null 2>&1
    ./configure >/dev/null
    make -j"$jobs" -C src \
        verus_server_LDADD="-lpthread $PWD/alglib-build/libalglib-bundled.a -lboost_system" >/dev/null
    mkdir -p "$dest/verus"
    install -m 755 src/verus_server src/verus_client "$dest/verus/"
)
echo "build-upstream: verus ok"

# PCC-Vivace: the authors' prebuilt binaries with their libudt.so (run with LD_LIBRARY_PATH).
(
    cd "$work/vivace"
    for side in sender receiver; do
        mkdir -p "$dest/pcc-vivace/$side"
        install -m 755 "$side/vivace_$side" "$side/libudt.so" "$dest/pcc-vivace/$side/"
    done
)
echo "build-upstream: pcc-vivace ok"

rm -rf "$work"
{
    echo "# accelbrake upstream programs, built by scripts/build-upstream.sh"
    echo "source $src"
    echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$dest/BUILT"
echo "build-upstream: done: $dest"
