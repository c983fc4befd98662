#!/bin/bash
# The lab's key: `lab up` given no key makes its own (DIR/PREFIX.psk, mode 0600), starts its
# agents with it and names it as psk_file (top level, each pair, the state file); `run --lab`
# finds it there with no NETSWEEP_PSK_FILE set, and the agent refuses a runner without it;
# `lab down` removes it with the last pair. Given a key, the lab uses that one, makes none
# and leaves it in place.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
netns_need_netsweep "lab: its own key"
unset NETSWEEP_PSK_FILE
export NETSWEEP_IMDS=0 NETSWEEP_LAB_DIR=$NETNS_TMP/lab
P=nstkey
lab() { "$NETNS_NETSWEEP" lab "$1" --prefix "$P" "${@:2}"; }
trap 'lab down >/dev/null 2>&1; netns_cleanup' EXIT
KEY=$NETSWEEP_LAB_DIR/$P.psk J=$NETNS_TMP/lab.json M=$NETNS_TMP/m.xml DB=$NETNS_TMP/k.db
cat >"$M" <<X
<matrix name="lab-key" case-timeout="20s">
  <pairs><pair name="m4.large" instance-type="m4.large" region="us-east-1" agent="192.0.2.7:5301"/></pairs>
  <axes><axis name="duration"><value>1s</value></axis></axes>
</matrix>
X
if ! lab up --rate m4.large=200M m4.large >"$J" 2>"$J.err"; then
	fail "lab up with no key" "$(head -2 "$J.err")"; finish; exit
fi
mode=$(stat -c '%a %U' "$KEY" 2>/dev/null)
ns=$(netns_json "$J" '$.pairs[0].namespace')
named="$(netns_json "$J" '$.lab.psk_file') $(netns_json "$J" '$.pairs[0].psk_file') $(netns_json "$NETSWEEP_LAB_DIR/$ns.json" '$.psk_file')"
if [ "$mode" = "600 root" ] && [ "$named" = "$KEY $KEY $KEY" ]; then
	pass "lab up with no key: its own key, mode 0600, named in the JSON and the state file"
else
	fail "lab up with no key: its own key" "mode '$mode', named: $named"
fi
grep -q "probe them with --psk-file $KEY" "$J.err" && pass "lab up says which key it made" ||
	fail "lab up says which key it made" "$(cat "$J.err")"
pid=$(netns_json "$J" '$.pairs[0].agent_pid')
if tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--psk-file $KEY"; then pass "the lab's agent runs with that key"
else fail "the lab's agent runs with that key" "$(tr '\0' ' ' <"/proc/$pid/cmdline")"; fi
if "$NETNS_NETSWEEP" run "$M" --lab "$J" --db "$DB" --quiet 2>"$DB.err" &&
   [ "$(sqlite3 "$DB" "SELECT count(*) FROM v_results WHERE status = 'ok' AND emulated = 1")" = 1 ]; then
	pass "run --lab with no key set: the lab's key from the JSON"
else
	fail "run --lab with no key set: the lab's key from the JSON" "$(head -2 "$DB.err")"
fi
# the key really guards the agent: a probe without it is refused
agent=$(netns_json "$J" '$.pairs[0].agent')
expect_exit "a probe without the lab's key is refused" 1 "$NETNS_NETSWEEP" probe "${agent%:*}" -t 0.5
expect_exit "a probe with the lab's key runs" 0 "$NETNS_NETSWEEP" probe "${agent%:*}" -t 0.5 --psk-file "$KEY"
lab down >/dev/null 2>&1
if [ ! -e "$KEY" ] && ! ip netns list | grep -q "^$P-"; then pass "lab down removes the lab's key"
else fail "lab down removes the lab's key" "$(ls "$NETSWEEP_LAB_DIR")"; fi

# given a key: that one, none made, and it stays
USER_KEY=$NETNS_TMP/mine.key
"$NETNS_NETSWEEP" key "$USER_KEY" >/dev/null
if NETSWEEP_PSK_FILE=$USER_KEY lab up --rate m4.large=200M m4.large >"$J" 2>"$J.err"; then
	if [ "$(netns_json "$J" '$.pairs[0].psk_file')" = "$USER_KEY" ] && [ ! -e "$KEY" ] &&
	   ! grep -q "no key given" "$J.err"; then
		pass "lab up with NETSWEEP_PSK_FILE: that key, none of its own"
	else
		fail "lab up with NETSWEEP_PSK_FILE: that key, none of its own" "$(netns_json "$J" '$.pairs[0].psk_file'); $(ls "$NETSWEEP_LAB_DIR")"
	fi
	lab down >/dev/null 2>&1
	[ -s "$USER_KEY" ] && pass "lab down leaves a given key alone" || fail "lab down leaves a given key alone"
else
	fail "lab up with NETSWEEP_PSK_FILE" "$(head -2 "$J.err")"
fi

# run --provision lab --psk-file K (no NETSWEEP_PSK_FILE): the hook gets K as the pair's key,
# so the lab's agent proves K and the lab makes no key of its own
PDB=$NETNS_TMP/p.db
if NETSWEEP_LAB_PREFIX=$P NETSWEEP_LAB_RATE=m4.large=200M "$NETNS_NETSWEEP" run "$M" --provision lab \
	--psk-file "$USER_KEY" --db "$PDB" --quiet 2>"$PDB.err"; then
	got=$(sqlite3 "$PDB" "SELECT json_extract(output, '\$.psk_file') FROM hooks WHERE kind = 'setup'")
	ok=$(sqlite3 "$PDB" "SELECT count(*) FROM v_results WHERE status = 'ok' AND emulated = 1")
	if [ "$got" = "$USER_KEY" ] && [ "$ok" = 1 ] && [ ! -e "$KEY" ]; then
		pass "run --provision lab --psk-file: the hook's lab uses that key"
	else
		fail "run --provision lab --psk-file: the hook's lab uses that key" "setup named '$got', $ok ok"
	fi
else
	fail "run --provision lab --psk-file" "$(head -2 "$PDB.err")"
fi
finish
