#!/bin/sh
# make install / make uninstall (and make deb's staging): one list of what
# goes where, so uninstall removes exactly what install put.
#
#   sh contrib/packaging/install.sh install|uninstall
#
# Folders and the build come from the Makefile, in the environment:
# DESTDIR BUILD VERSION bindir mandir pkgdatadir sysconfdir slurmlibdir
# luamoddir systemdunitdir (and spooldir, named in the manuals and the
# units). The site's configuration (the policy, the plugstack fragment)
# is written only when absent, and removed only when unchanged.
set -eu
action=${1:-}
case $action in
install | uninstall) ;;
*)
	echo "autosize: install.sh: expected 'install' or 'uninstall', got '$action'" >&2
	exit 2
	;;
esac
for v in BUILD VERSION bindir mandir pkgdatadir sysconfdir slurmlibdir luamoddir systemdunitdir; do
	eval "val=\${$v:-}"
	# shellcheck disable=SC2154
	case $val in
	'')
		echo "autosize: install.sh: $v is not set (run it through make install)" >&2
		exit 2
		;;
	*[!A-Za-z0-9/._+-]*)
		echo "autosize: make $action: $v='$val' has characters the installed files cannot quote (expected letters, digits, / . _ + -)" >&2
		exit 2
		;;
	esac
done
D=${DESTDIR:-}
policy=$sysconfdir/autosize/autosize.yaml
fragment=$sysconfdir/plugstack.conf.d/autosize.conf
have_spank=0
have_lua=0
[ -f "$BUILD/spank_autosize.so" ] && have_spank=1
[ -f "$BUILD/autosize.so" ] && have_lua=1

# The installed text of a shipped file: the Makefile's folders put in
# (man pages and the example policy use @name@; job_submit.lua's settings
# block is rewritten by key, so the source file stays usable as it is).
subst() {
	sed -e "s|@VERSION@|$VERSION|g" -e "s|@sysconfdir@|$sysconfdir|g" \
		-e "s|@pkgdatadir@|$pkgdatadir|g" \
		-e "s|@slurmlibdir@|$slurmlibdir|g" \
		-e "s|@luamoddir@|$luamoddir|g" -e "s|@bindir@|$bindir|g" \
		-e "s|@spooldir@|${spooldir:-/var/spool/slurm-autosize}|g" \
		-e "s|@policy@|$policy|g" "$1"
}
lua_settings() {
	sed -e "s|^\([[:space:]]*cpath = \)\"[^\"]*\",|\1\"$luamoddir/?.so\",|" \
		-e "s|^\([[:space:]]*policy = \)\"[^\"]*\",|\1\"$policy\",|" \
		-e "s|^\([[:space:]]*limits_cli = \)\"[^\"]*\",|\1\"$bindir/autosize\",|" \
		-e "s|/etc/slurm/autosize/|$sysconfdir/autosize/|g" "$1"
}
example_policy() {
	sed -e "s|/etc/slurm/autosize/|$sysconfdir/autosize/|g" \
		-e "s|/usr/share/slurm-autosize/|$pkgdatadir/|g" etc/autosize.yaml
}
plugstack_fragment() {
	cat <<FRAG
# slurm-autosize's SPANK plugin (man spank_autosize): sbatch, salloc and
# srun --model-params, --train-tokens, ... and the layout in every task's
# environment. Shipped commented out: uncomment the line below on every
# submit host and compute node (all need the package) after writing the
# policy ($policy; check it with \`autosize check-config\`).
#optional $slurmlibdir/spank_autosize.so policy=$policy
FRAG
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/autosize-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
# put MODE DEST GENERATOR ARGS...: write what GENERATOR prints to DEST.
put() {
	mode=$1 dest=$2
	shift 2
	"$@" >"$tmp/out"
	install -d "$D$(dirname "$dest")"
	install -m "$mode" "$tmp/out" "$D$dest"
	n=$((n + 1))
}
# remove MODE DEST GENERATOR ARGS...: the same list, undone.
remove() {
	dest=$2
	if [ -e "$D$dest" ]; then
		rm -f "$D$dest"
		n=$((n + 1))
	fi
}
# A file of the site's: installed when absent, kept when present;
# uninstalled only when it is still what install wrote.
config() {
	dest=$1
	shift
	"$@" >"$tmp/conf"
	if [ "$action" = install ]; then
		if [ -e "$D$dest" ]; then
			if cmp -s "$tmp/conf" "$D$dest"; then
				echo "install: $(shown "$dest") is the shipped one: kept"
			else
				echo "install: kept your $(shown "$dest") (not overwritten; the shipped example is in $D$pkgdatadir/)"
			fi
		else
			install -d "$D$(dirname "$dest")"
			install -m 0644 "$tmp/conf" "$D$dest"
			echo "install: wrote $(shown "$dest")"
		fi
	elif [ -e "$D$dest" ]; then
		if cmp -s "$tmp/conf" "$D$dest"; then
			rm -f "$D$dest"
			n=$((n + 1))
		else
			echo "uninstall: kept your edited $(shown "$dest")"
		fi
	fi
}
copy() { cat "$1"; }
# shown DEST: where a file is, as this run wrote it: under DESTDIR, the
# staged path and the one it will have once the stage is installed.
shown() {
	if [ -n "$D" ]; then
		echo "$D$1 ($1 once installed)"
	else
		echo "$1"
	fi
}

if [ "$action" = install ]; then
	file=put
else
	file=remove
fi
man_files="man/autosize.1.in man/autosize.yaml.5.in man/spank_autosize.8.in"

$file 0755 "$bindir/autosize" copy "$BUILD/autosize"
$file 0644 "$pkgdatadir/gpus.yaml" copy etc/gpus.yaml
$file 0644 "$pkgdatadir/models.yaml" copy etc/models.yaml
$file 0644 "$pkgdatadir/perf.yaml" copy etc/perf.yaml
$file 0644 "$pkgdatadir/plan-json.md" copy doc/plan-json.md
$file 0644 "$pkgdatadir/autosize.yaml" example_policy
for m in $man_files; do
	page=$(basename "$m" .in)
	$file 0644 "$mandir/man${page##*.}/$page" subst "$m"
done
if [ $have_spank = 1 ]; then
	$file 0755 "$slurmlibdir/spank_autosize.so" copy "$BUILD/spank_autosize.so"
fi
if [ $have_lua = 1 ]; then
	$file 0755 "$luamoddir/autosize.so" copy "$BUILD/autosize.so"
	$file 0644 "$sysconfdir/autosize/job_submit.lua" lua_settings etc/job_submit.lua
fi
# the spool's flush timer, for compute nodes that may sit idle (shipped,
# not enabled: systemctl enable --now autosize-spool-flush.timer)
for u in service timer; do
	$file 0644 "$systemdunitdir/autosize-spool-flush.$u" subst \
		"contrib/packaging/systemd/autosize-spool-flush.$u.in"
done
config "$policy" example_policy
if [ $have_spank = 1 ]; then
	config "$fragment" plugstack_fragment
fi

if [ "$action" = uninstall ]; then
	for d in "$pkgdatadir" "$sysconfdir/autosize" "$luamoddir"; do
		rmdir "$D$d" 2>/dev/null || true
	done
	echo "uninstall: $n files removed"
else
	echo "install: $n files under ${D:-/}"
fi
