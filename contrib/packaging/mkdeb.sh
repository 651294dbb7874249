#!/bin/sh
# make deb: a Debian package built with dpkg-deb from a staged
# `make install` (prefix=/usr, sysconfdir=/etc/slurm, Slurm's multiarch
# plugin folder).
#
#   sh contrib/packaging/mkdeb.sh BUILD VERSION [SLURM_PREFIX]  (make deb)
#
# The package is for one Slurm release, the one whose headers the build
# used (the SPANK plugin loads in no other): its version says which
# (0.2.0+slurm22.05), it depends on that release of Debian's Slurm
# plugins and Breaks every other release of them and of SchedMD's own
# packages (slurm-smd), so apt refuses it beside another Slurm and
# refuses a Slurm upgrade to another release while it is installed.
#
# Everything under /etc is a conffile: the policy, job_submit.lua and the
# plugstack fragment, whose line is commented out (Debian's plugstack.conf
# includes plugstack.conf.d/*.conf, so an active line would load the
# plugin into every sbatch and slurmstepd the moment the package lands).
# Writes BUILD/slurm-autosize_VERSION_ARCH.deb and prints its path.
set -eu
cd "$(dirname "$0")/../.."
build=${1:?BUILD}
version=${2:?VERSION}
slurm_prefix=${3:-}
slurm=$(sh contrib/slurm/release.sh $slurm_prefix) || {
	echo "autosize: make deb needs Slurm's headers (libslurm-dev, or SLURM_PREFIX=DIR)" >&2
	exit 2
}
# The first version past this release: 22.05 -> 22.06~ (the next
# release, 23.02, and every later one sort above it).
slurm_next=${slurm%.*}.$(printf '%02d' $((${slurm#*.} + 1)))~
here=contrib/packaging/debian
for tool in dpkg-deb dpkg-shlibdeps strip gzip; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "autosize: make deb needs $tool (apt-get install dpkg-dev binutils)" >&2
		exit 2
	}
done
changelog_version=$(sed -n '1s/^slurm-autosize (\([^)]*\)).*/\1/p' "$here/changelog")
if [ "$changelog_version" != "$version" ]; then
	echo "autosize: $here/changelog starts with version '$changelog_version', the Makefile says $version: add a changelog entry" >&2
	exit 2
fi
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null ||
	cc -print-multiarch)
# Staged outside the build folder (the Makefile reads every *.d there).
out=$(mktemp -d "${TMPDIR:-/tmp}/autosize-deb.XXXXXX")
trap 'rm -rf "$out"' EXIT
root=$out/root
mkdir -p "$root"
make -s --no-print-directory BUILD="$build" SLURM_PREFIX="$slurm_prefix" \
	install DESTDIR="$root" \
	prefix=/usr sysconfdir=/etc/slurm \
	slurmlibdir="/usr/lib/$multiarch/slurm-wlm" >"$out/install.log"

# Debian's conventions: stripped objects, compressed man pages and
# documentation, the copyright and changelog in /usr/share/doc.
elves=$(find "$root" -type f \( -name '*.so' -o -path '*/bin/*' \) | sort)
for f in $elves; do
	strip --strip-unneeded --remove-section=.comment \
		--remove-section=.note "$f"
done
find "$root/usr/share/man" -type f -exec gzip -9n {} +
doc=$root/usr/share/doc/slurm-autosize
install -d "$doc"
install -m 0644 "$here/copyright" "$doc/copyright"
gzip -9nc "$here/changelog" >"$doc/changelog.gz"
gzip -9nc README.md >"$doc/README.md.gz"
find "$root" -type d -exec chmod 0755 {} +
find "$root" -type f -exec chmod go-w {} +

# Depends: the libraries the objects link (dpkg-shlibdeps wants a
# debian/control beside it), plus what is loaded but not linked: Lua 5.1
# (slurmctld's job_submit/lua provides its symbols) and Slurm itself.
mkdir -p "$out/shlibs/debian"
printf 'Source: slurm-autosize\n\nPackage: slurm-autosize\nArchitecture: any\n' \
	>"$out/shlibs/debian/control"
shlibs=$(cd "$out/shlibs" && dpkg-shlibdeps -O --warnings=0 \
	$(for f in $elves; do printf ' -e%s' "$f"; done) \
	2>"$out/shlibdeps.log" |
	sed -n "s/^shlibs:Depends=//p")
[ -n "$shlibs" ] || {
	echo "autosize: dpkg-shlibdeps found no libraries" >&2
	exit 2
}
size=$(du -sk --apparent-size "$root" | cut -f1)
install -d "$root/DEBIAN"
sed -e "s|@VERSION@|$version+slurm$slurm|" -e "s|@ARCH@|$arch|" \
	-e "s|@INSTALLED_SIZE@|$size|" -e "s|@SHLIBS@|$shlibs|" \
	-e "s|@SLURM@|$slurm|g" -e "s|@SLURM_NEXT@|$slurm_next|g" \
	"$here/control.in" >"$root/DEBIAN/control"
(cd "$root" && find etc -type f | sort | sed 's|^|/|') >"$root/DEBIAN/conffiles"
(cd "$root" && find usr -type f | sort | xargs md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"
# The plugstack line the site turned on goes off while the package is
# removed (sbatch keeps working) and on again when it is back.
install -m 0755 "$here/prerm" "$here/postinst" "$root/DEBIAN/"
deb=$build/slurm-autosize_${version}+slurm${slurm}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
