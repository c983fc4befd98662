#!/bin/bash
# The README is executable: every command line of README.md's code blocks (every command of a
# <setup>/<teardown> in its XML blocks, and every `netsweep COMMAND ... -OPTION` example in its
# text) is run here, in README order, in a scratch directory — against agents of our own on
# loopback (HOST, SENDER), a lab with our own prefix, fixtures for its files (my-matrix.xml,
# nightly.db, index.json ...), durations shortened — or it is listed with its reason in
# tests/integration/readme_exceptions.txt. A README line that
# is neither, or that stops working, fails here naming its README line; so does an exception
# that no README line matches any more. Each matrix (or pair) example in an XML block must load.
#
# Adding a README line: if a rule below already takes it (netsweep probe HOST ..., netsweep
# cost ..., netsweep run my-matrix.xml ..., sqlite3 netsweep.db ...) it is run as it is; else
# add a rule to rule_for() (and its fixture to seed()), or list the line in
# readme_exceptions.txt with its reason. DEVELOPERS.md describes the mechanism.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
root=$(cd "$here/../.." && pwd)
readme=${README:-$root/README.md}
exceptions=$here/readme_exceptions.txt
for tool in sqlite3 jq timeout; do
	command -v "$tool" >/dev/null || { skip "README commands" "$tool is not installed: NOTHING CHECKED"; exit 0; }
done
tmp=$(mktemp -d)
pids=()
labp=nsrd$$ # our lab prefix: `lab down` removes only our namespaces
cleanup() {
	[ -d "$tmp/home" ] && [ "$(id -u)" = 0 ] &&
		NETSWEEP_LAB_DIR=$tmp/lab "$NETSWEEP" lab down --prefix "$labp" >/dev/null 2>&1
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
export NETSWEEP_IMDS=0 NETSWEEP_GNUPLOT=none NETSWEEP_LAB_DIR=$tmp/lab NETSWEEP_LAB_PREFIX=$labp
export NETSWEEP_LAB_RATE=m4.large=436M # run --provision lab: the catalog has no figure for it
unset NETSWEEP_PSK_FILE NETSWEEP_DB
# a matrix's <kubernetes> pairs (On Kubernetes): a stand-in kubectl answers with the recorded
# cluster of tests/fixtures/kubernetes (no API server here); matrices load with --dry-run
printf '#!/bin/sh\ncase "$2" in pods) cat "%s/pods.json";; nodes) cat "%s/nodes.json";; *) exit 1;; esac\n' \
	"$root/tests/fixtures/kubernetes" "$root/tests/fixtures/kubernetes" >"$tmp/kubectl"
chmod +x "$tmp/kubectl"
export NETSWEEP_KUBECTL=$tmp/kubectl

# readme_lines FILE: "LINE<TAB>KIND<TAB>TEXT": KIND "cmd" for a command line of a code block
# (shell and untagged blocks; "$ " prompts dropped, "\" continuations joined, "# comments" and
# comment lines left out), for the command of an XML block's <setup>/<teardown>, and for a
# `netsweep COMMAND ...` span of the text that has an option (`netsweep probe HOST -t 60m
# --until sustained`, joined when it wraps; `netsweep run` alone is a name, not a line); "matrix"
# for the line opening an XML block that holds a whole matrix, or a pair (then wrapped in a
# matrix of one case), TEXT the file it was written to.
readme_lines() {
	awk -v dir="$tmp" '
	function emit(n, t) { sub(/^[ \t]+/, "", t); sub(/[ \t]+$/, "", t); if (t != "") printf "%d\tcmd\t%s\n", n, t }
	# a paragraph of text: its `netsweep COMMAND ... -OPTION ...` spans are command lines too
	function prose(   s, off, c, k, nl) {
		s = para; off = 0
		while (match(s, /`netsweep [a-z][^`]*`/)) {
			c = substr(s, RSTART + 1, RLENGTH - 2)
			nl = substr(para, 1, off + RSTART - 1); k = gsub(/\n/, "", nl)
			gsub(/[ \t\n]+/, " ", c)
			if (c ~ / -/) emit(pstart + k, c)
			off += RSTART + RLENGTH - 1; s = substr(s, RSTART + RLENGTH)
		}
		para = ""
	}
	!inb && !/^```/ {
		if ($0 ~ /^[ \t]*$/) prose(); else { if (para == "") pstart = NR; para = para $0 "\n" }
		next
	}
	END { prose() }
	/^```/ {
		if (!inb) { prose(); inb = 1; lang = substr($0, 4); start = NR + 1; xml = ""; next }
		inb = 0
		if (lang == "xml" && xml ~ /^[ \t\n]*(<\?xml[^>]*>[ \t\n]*)?<matrix[ >]/) {
			f = dir "/readme-matrix-" start ".xml"; printf "%s", xml > f; close(f)
			printf "%d\tmatrix\t%s\n", start, f
		} else if (lang == "xml" && xml ~ /^[ \t\n]*<pair[ >]/) { # a pair: inside a matrix of one case
			f = dir "/readme-matrix-" start ".xml"
			printf "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<matrix name=\"readme-pair\">\n<pairs>\n%s</pairs>\n" \
				"<axes><axis name=\"protocol\"><value>tcp</value></axis></axes>\n</matrix>\n", xml > f
			close(f)
			printf "%d\tmatrix\t%s\n", start, f
		}
		next
	}
	lang == "xml" {
		xml = xml $0 "\n"; s = $0
		while (match(s, /<(setup|teardown)[^>]*>[^<]*<\//)) {
			c = substr(s, RSTART, RLENGTH); sub(/^<[^>]*>/, "", c); sub(/<\/$/, "", c)
			emit(NR, c); s = substr(s, RSTART + RLENGTH)
		}
		next
	}
	lang !~ /^(|sh|bash|shell|console|sh-session)$/ { next }
	{
		line = $0
		if (cont != "") { sub(/^[ \t]+/, "", line); line = cont " " line; n = cn } else n = NR
		if (line ~ /\\$/) { sub(/[ \t]*\\$/, "", line); cont = line; cn = n; next }
		cont = ""
		sub(/^[ \t]*\$ /, "", line)
		if (line ~ /^[ \t]*#/) next
		sub(/[ \t]+#.*$/, "", line)
		emit(n, line)
	}' "$1"
}

# exception_reason TEXT: the reason readme_exceptions.txt gives for the command, else nothing.
exception_reason() {
	awk -v want="$1" '
	/^[ \t]*(#|$)/ { next }
	{ i = index($0, "  #"); c = i ? substr($0, 1, i - 1) : $0; r = i ? substr($0, i + 3) : ""
	  sub(/[ \t]+$/, "", c); sub(/^[ \t]+/, "", r)
	  if (c == want) { print (r == "" ? "(no reason given)" : r); exit } }' "$exceptions"
}

# rule_for TEXT: the name of the rule that runs the line, nothing when none takes it. A rule
# runs only what stays on this host: our own agents, our own lab, files in the scratch folder.
rule_for() {
	case $1 in
	"netsweep key ~/"*) echo key ;;
	"netsweep agent "*) echo agent ;;
	"export NETSWEEP_"[A-Z_]*=*) echo export ;;
	"netsweep probe "*|"netsweep search "*|"netsweep health "*) [[ " $1 " == *" HOST "* ]] && echo net ;;
	*"--help") [[ $1 == "netsweep "* ]] && echo local ;;
	"netsweep lab "*|"netsweep run "*" --lab "*|"netsweep run "*" --provision lab"*) echo lab ;;
	"netsweep run data/matrices/"*" --dry-run"*|"netsweep run my-matrix.xml"*) echo local ;;
	"netsweep hostinfo"*|"netsweep cost"*|"netsweep nicstats "*|"netsweep catalog import "*) echo local ;;
	"netsweep runs "*|"netsweep report "*|"netsweep db merge "*|"netsweep export "*|"netsweep site "*|"netsweep db prune "*|"netsweep plan "*) echo local ;;
	"sqlite3 "*.db" \"select "*) echo local ;;
	esac
}

# subst TEXT: the line as this test runs it: our agents for HOST and SENDER, short tests.
subst() {
	local s=" $1 "
	s=${s// --peer HOST / --peer 127.0.0.1 }
	s=${s// HOST / 127.0.0.1:$host_port }
	s=${s// SENDER / 127.0.0.1:$sender_port }
	s=$(sed -E -e 's/ (-t|--time) [0-9]+[smh]? / \1 1 /g' -e 's/ -n [0-9]+[KMGT] / -n 100M /g' \
		-e 's/ -B 10\.0\.1\.5 / -B 127.0.0.1 /g' -e "s/ --cport 40000 / --cport $cport /g" \
		-e 's/ --steady [0-9]+[smh]? / --steady 0.5 -i 0.1 /g' <<<"$s")
	case $s in
	" netsweep probe "*)
		[[ $s == *" -t "* || $s == *" --time "* || $s == *" -n "* || $s == *" -k "* ]] || s="$s -t 1 " ;;
	" netsweep search "*)
		s="$s --initial-duration 0.2 --final-duration 0.2 --min-pps 1k --max-pps 20k --width 20% " ;;
	" netsweep nicstats eth0 "*)
		s=${s// eth0 / $nic } ;;
	" netsweep lab "*)
		s="$s --prefix $labp " ;;
	" netsweep run my-matrix.xml "*"--provision lab"*)
		s=${s// my-matrix.xml / my-lab-matrix.xml } ;;
	esac
	s=${s# }; echo "${s% }"
}

# seed: the files README lines name, made by real runs before the lines run: my-matrix.xml (a
# priced pair c5n on our own agent), nightly.db with runs night-1 and night-2, tokyo.db and
# virginia.db, netsweep.db; the price lists of tests/fixtures as index.json, types.json,
# spot.json ...; data/ a copy whose m4-family.xml and incast.xml take 1 s per case.
seed() {
	mkdir -p "$tmp/home" "$tmp/work" "$tmp/lab"
	cd "$tmp/work" || return 1
	cp -r "$root/data" data &&
		sed -i -e 's/<value>300s<\/value>/<value>1s<\/value>/' -e 's/cooldown="5s"/cooldown="0s"/' \
			data/matrices/m4-family.xml &&
		sed -i -e 's/<value>5s<\/value>/<value>1s<\/value>/' data/matrices/incast.xml || return 1
	cp "$root/tests/fixtures/aws/offer-ec2-us-east-1.json" index.json
	cp "$root/tests/fixtures/aws/describe-instance-types.json" types.json
	cp "$root/tests/fixtures/aws/spot-price-history.json" spot.json
	cp "$root/tests/fixtures/azure/retail-prices-page1.json" azure-p1.json
	cp "$root/tests/fixtures/azure/retail-prices-page2.json" azure-p2.json
	cp "$root/tests/fixtures/gcp/skus-compute-engine.json" skus.json
	cp "$root/tests/fixtures/scaleway/products-servers-fr-par-1.json" products-fr-par-1.json
	local axes='<axes>
    <axis name="protocol"><value>tcp</value><value>udp</value></axis>
    <axis name="rate"><value>50M</value></axis>
    <axis name="duration"><value>0.3s</value></axis>
  </axes>'
	printf '%s\n' '<?xml version="1.0" encoding="UTF-8"?>' \
		'<matrix name="my-matrix" repeats="1" order="as-written" cooldown="0s" case-timeout="15s">' \
		'  <description>README test: a priced pair on our loopback agent, TCP and paced UDP</description>' \
		"  <pairs><pair name=\"c5n\" instance-type=\"c5n.18xlarge\" region=\"us-east-1\" agent=\"127.0.0.1:$own_port\" psk-file=\"$tmp/own.key\"/></pairs>" \
		"  $axes" '</matrix>' >my-matrix.xml
	printf '%s\n' '<?xml version="1.0" encoding="UTF-8"?>' \
		'<matrix name="my-lab-matrix" repeats="1" order="as-written" cooldown="0s" case-timeout="15s">' \
		'  <description>README test: one pair written for EC2, run in the lab</description>' \
		'  <pairs><pair name="m4.large" instance-type="m4.large" region="ap-northeast-1">' \
		'    <setup>data/provision/aws-ec2.sh setup</setup><teardown>data/provision/aws-ec2.sh teardown</teardown>' \
		'  </pair></pairs>' \
		'  <axes><axis name="duration"><value>0.5s</value></axis></axes>' '</matrix>' >my-lab-matrix.xml
	"$NETSWEEP" run my-matrix.xml --db nightly.db --label night-1 --quiet &&
		"$NETSWEEP" run my-matrix.xml --db nightly.db --label night-2 --quiet &&
		cp nightly.db tokyo.db &&
		"$NETSWEEP" run my-matrix.xml --db virginia.db --label virginia --quiet &&
		"$NETSWEEP" run my-matrix.xml --db netsweep.db --quiet
}

# start_agent TEXT: the README's agent line in the background, twice, each on a port of its
# own: HOST, and SENDER with --delegate (as the README's --from line says it needs).
start_agent() {
	local extra=()
	eval "set -- ${1#netsweep agent }"
	for role in host sender; do
		[ "$role" = sender ] && extra=(--delegate)
		mkdir -p "$tmp/$role"
		loopback_agent "$tmp/$role" "$@" "${extra[@]}" 2>&1 >/dev/null
		pids+=("$AGENT_PID")
		[ -n "$AGENT_PORT" ] || return 1
		printf -v "${role}_port" '%s' "$AGENT_PORT"
	done
}

# run_line RULE TEXT: runs it; 0 when it did what the README says, else 1 with why on stdout
# (run it in this shell, not in $(...): an agent line starts a daemon and sets the ports).
run_line() {
	local rule=$1 line=$2 cmd rc
	cmd=$(subst "$line")
	case $rule in
	agent) start_agent "$cmd"; return ;;
	export) eval "$cmd"; return ;;
	net) [ -n "$host_port" ] || { echo "no README agent line ran before it (HOST)"; return 1; } ;;
	esac
	if grep -qE '([0-9]+\.){3}[0-9]+' <<<"${cmd//127.0.0.1/}"; then
		echo "'$cmd' names an address beyond loopback: give it a substitution in subst()"
		return 1
	fi
	timeout -k 5 90 bash -o pipefail -c "$cmd" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	# --fail-on-regression exits 1 when a case fell by more: what it is for, not a failure
	[ "$rc" = 1 ] && [[ $cmd == *" --fail-on-regression "* ]] && grep -q "fell by more than" "$tmp/err" && rc=0
	if [ "$rc" != 0 ]; then
		echo "ran '$cmd': exit $rc: $(tail -n 3 "$tmp/err" | tr '\n' ' ')"
		return 1
	fi
	if [[ $cmd == *" --json"* ]] && ! jq -e . "$tmp/out" >/dev/null 2>&1; then
		echo "ran '$cmd': stdout is not JSON: $(head -c 200 "$tmp/out")"
		return 1
	fi
	# what it says it writes (-o PATH, > PATH) is there and not empty
	local f
	for f in $(grep -oE '(^| )(-o|>) [^ ]+' <<<"$cmd" | awk '{ print $2 }'); do
		if [ -d "$f" ]; then [ -n "$(ls -A "$f")" ] && continue
		elif [ -s "$f" ]; then continue; fi
		echo "ran '$cmd': it wrote nothing to $f"
		return 1
	done
	if [[ $cmd == "sqlite3 "* ]] && [ ! -s "$tmp/out" ]; then
		echo "ran '$cmd': the query returned no rows on the seeded database"
		return 1
	fi
	if [ "$rule" = key ]; then
		local f=${cmd#netsweep key }
		f=${f%% *}; f=${f/#\~/$HOME}
		[ "$(stat -c %a "$f" 2>/dev/null)" = 600 ] || { echo "ran '$cmd': $f is not mode 0600"; return 1; }
	fi
	return 0
}

# The mechanism itself: a line no rule knows, or one that would reach beyond this host, is
# taken by no rule (and so fails below unless it is an exception).
bad=
for probe_line in "netsweep frobnicate --all" "netsweep probe 192.0.2.10 -t 10" \
	"netsweep run data/matrices/c5n-100g.xml" "netsweep lab2 up" "rm -rf build"; do
	[ -n "$(rule_for "$probe_line")" ] && bad="$bad '$probe_line'"
done
[ -z "$bad" ] && pass "README rules: unknown lines and lines beyond this host are taken by no rule" ||
	fail "README rules: lines taken that must not be:$bad"

readme_lines "$readme" >"$tmp/lines" || { fail "README lines" "could not read $readme"; finish; exit; }
n=$(awk -F'\t' '$2 == "cmd"' "$tmp/lines" | wc -l)
[ "$n" -ge 10 ] && pass "README: $n command lines found in its code blocks" ||
	fail "README: command lines found in its code blocks" "only $n: is the extraction broken?"

# Our own agent, with a key of its own, for my-matrix.xml's pair; then the fixtures.
"$NETSWEEP" key "$tmp/own.key" >/dev/null 2>&1 || { fail "README fixtures: netsweep key"; finish; exit; }
loopback_agent "$tmp" --psk-file "$tmp/own.key" 2>"$tmp/own.err"
pids+=("$AGENT_PID")
own_port=$AGENT_PORT
[ -n "$own_port" ] || { fail "README fixtures: an agent on loopback" "$(cat "$tmp/own.err")"; finish; exit; }
if ! seed >"$tmp/seed.log" 2>&1; then
	fail "README fixtures" "$(tail -n 3 "$tmp/seed.log")"
	finish; exit
fi
export HOME=$tmp/home PATH="$(dirname "$NETSWEEP"):$PATH"
# --cport's ports: below the kernel's ephemeral range (no connection of anyone else's takes
# them meanwhile), and 16 in a row free now.
free_cport() {
	local low p
	read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || low=32768
	for _ in $(seq 20); do
		p=$((10000 + RANDOM % (low - 10000 - 16)))
		ss -Htan "( sport >= :$p and sport < :$((p + 16)) )" 2>/dev/null | grep -q . || { echo "$p"; return; }
	done
	echo "$p"
}
host_port= sender_port= cport=$(free_cport)
nic=eth0
ip link show eth0 >/dev/null 2>&1 ||
	nic=$(ip -o route show default 2>/dev/null | sed -n 's/.* dev \([^ ]*\).*/\1/p' | head -n 1)

while IFS=$'\t' read -r ln kind text; do
	where="README.md:$ln"
	if [ "$kind" = matrix ]; then
		if out=$("$NETSWEEP" run "$text" --dry-run 2>&1 >/dev/null); then
			pass "$where: the XML example loads as a matrix (run --dry-run)"
		else
			fail "$where: the XML example does not load as a matrix" "$(head -n 2 <<<"$out")"
		fi
		continue
	fi
	reason=$(exception_reason "$text")
	if [ -n "$reason" ]; then
		if [ "$reason" = "(no reason given)" ]; then
			fail "$where: '$text' is excepted without a reason" "give one after '  #' in tests/integration/readme_exceptions.txt"
		else
			echo "not run: $where: $text ($reason)"
		fi
		continue
	fi
	rule=$(rule_for "$text")
	if [ -z "$rule" ]; then
		fail "$where: no test runs '$text'" "cover it: a rule in rule_for() of tests/integration/readme_commands.sh (with its fixture in seed()), or the line exactly as README.md has it (without its # comment) in tests/integration/readme_exceptions.txt, then '  # ' and the reason it cannot run"
		continue
	fi
	if [ "$rule" = lab ] && [ "$(id -u)" != 0 ]; then
		skip "$where: '$text'" "netsweep lab needs root: NOT RUN"
		continue
	fi
	missing=
	for tool in $(grep -oE '(^|[^|]) \| +[A-Za-z0-9_.-]+' <<<"$text" | awk '{ print $NF }'); do
		command -v "$tool" >/dev/null || missing="$missing $tool"
	done
	if [ -n "$missing" ]; then
		skip "$where: '$text'" "not installed:$missing: NOT RUN"
		continue
	fi
	if [ "$rule" = local ] && [[ $text == "netsweep nicstats "* ]] && [ -z "$nic" ]; then
		skip "$where: '$text'" "this host has no eth0 and no default route's interface: NOT RUN"
		continue
	fi
	if run_line "$rule" "$text" >"$tmp/why"; then
		pass "$where: $text"
	else
		fail "$where: '$text' does not work" "$(cat "$tmp/why")"
	fi
done <"$tmp/lines"

# Every exception still names a README line.
while IFS= read -r entry; do
	grep -qxF "$entry" <(cut -f3 "$tmp/lines") ||
		fail "readme_exceptions.txt: '$entry' is no README command line any more" "remove it, or make it the line README.md now has"
done < <(grep -v '^[[:space:]]*\(#\|$\)' "$exceptions" | sed 's/  #.*//; s/[[:space:]]*$//')
finish
