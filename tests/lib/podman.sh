# Helpers for the tests that run netsweep's image under podman (source it after check.sh).
# podman_ready DIR: podman works here, as this user, with a configuration of the test's own
# in DIR (CONTAINERS_CONF, exported): open-file and process limits the sandbox lets it set
# (podman's defaults raise them, which needs CAP_SYS_RESOURCE), and the first runtime of
# crun, runc that starts a container (crun refuses a cgroup v1/v2 hybrid with controllers in
# v2). Returns 1 with PODMAN_WHY set when none does, for the caller's SKIP line.
# The probe container is the image itself (IMAGE, built by the caller): nothing is pulled.
podman_ready() {
	local dir=$1 rt out
	PODMAN_WHY=
	if ! command -v podman >/dev/null 2>&1; then
		PODMAN_WHY="podman is not installed (apt-get install podman catatonit)"
		return 1
	fi
	local nofile nproc
	nofile=$(ulimit -Hn) nproc=$(ulimit -Hu)
	[ "$nofile" = unlimited ] && nofile=16384
	[ "$nproc" = unlimited ] && nproc=4096
	# at most these: a limit equal to a high hard one is refused in some sandboxes too
	[ "$nofile" -gt 16384 ] && nofile=16384
	[ "$nproc" -gt 4096 ] && nproc=4096
	for rt in crun runc; do
		command -v "$rt" >/dev/null 2>&1 || continue
		printf '[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=%s:%s"]\n[engine]\nruntime = "%s"\n' \
			"$nofile" "$nofile" "$nproc" "$nproc" "$rt" >"$dir/containers.conf"
		export CONTAINERS_CONF="$dir/containers.conf"
		if out=$(podman run --rm --entrypoint /usr/bin/netsweep "$IMAGE" key --help 2>&1); then
			PODMAN_RUNTIME=$rt
			return 0
		fi
		PODMAN_WHY="$PODMAN_WHY$rt: $(printf '%s\n' "$out" | grep -v 'level=' | tail -n 1); "
	done
	PODMAN_WHY="no OCI runtime starts a container here (${PODMAN_WHY:-neither crun nor runc is installed})"
	return 1
}

# podman_quiet ARGS...: podman without its log lines about healthcheck timers (no systemd here).
podman_quiet() {
	podman "$@" 2> >(grep -v 'level=' >&2)
}
