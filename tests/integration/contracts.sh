#!/bin/bash
# The public contracts are held: every view of a real results database (a new one, and the
# frozen version-1 database migrated by a run) has exactly the columns schemas/views.md
# documents, and the JSON of probe --json, search --json and report.json has exactly the keys
# of the "Every key" lists in schemas/probe-result.md, search-result.md, report-json.md
# (report.json: and of report.schema.json), runs-json.md (runs --json), plan-json.md (plan --json) and hostinfo.md. A rename or an undocumented addition fails here,
# naming the view/column or key and the file to edit. v_cost_ranking's names from before
# store version 8 still answer a query on a migrated database.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../lib/keys.sh"
root=$(cd "$here/../.." && pwd)
for tool in sqlite3 jq; do
	command -v "$tool" >/dev/null || { skip "contracts" "$tool is not installed: NOTHING CHECKED"; exit 0; }
done
tmp=$(mktemp -d)
agent=
trap '[ -n "$agent" ] && kill "$agent" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
export NETSWEEP_IMDS=0 NETSWEEP_GNUPLOT=none
unset NETSWEEP_PSK_FILE NETSWEEP_DB # our own keyless agent, our own databases

loopback_agent "$tmp" 2>"$tmp/agent.err"
agent=$AGENT_PID port=$AGENT_PORT
[ -n "$port" ] || { fail "agent on loopback" "$(cat "$tmp/agent.err")"; finish; exit; }

# Two priced pairs (prices from the default catalog) on our agent, TCP and paced UDP: every
# cost view has rows, the report ranks and, against the first run, compares.
cat >"$tmp/contracts.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<matrix name="contracts" repeats="1" order="as-written" cooldown="0s" case-timeout="15s">
  <description>contracts test: two priced pairs, TCP and paced UDP, 0.3 s each</description>
  <pairs>
    <pair name="small" instance-type="m4.large" region="ap-northeast-1" agent="127.0.0.1:$port"
          price-basis="sender" link-speed="10G"/>
    <pair name="big" instance-type="m4.xlarge" region="ap-northeast-1" agent="127.0.0.1:$port"
          price-basis="pair" link-speed="10G"/>
  </pairs>
  <axes>
    <axis name="protocol"><value>tcp</value><value>udp</value></axis>
    <axis name="rate"><value>50M</value></axis>
    <axis name="length"><value>1024</value></axis>
    <axis name="duration"><value>0.3s</value></axis>
  </axes>
</matrix>
EOF
new=$tmp/new.db old=$tmp/old.db
sqlite3 "$old" <"$root/tests/fixtures/store_v1.sql"
for db in "$new" "$new" "$old"; do
	if ! "$NETSWEEP" run "$tmp/contracts.xml" --db "$db" --quiet >"$tmp/run.log" 2>&1; then
		fail "a run on loopback into $(basename "$db")" "$(tail -3 "$tmp/run.log")"
		finish; exit
	fi
done

# has_below KEY FILE: FILE names a key inside KEY (KEY.x or KEY[]...).
has_below() { awk -v p="$1" 'index($0, p ".") == 1 || index($0, p "[") == 1 { f = 1 } END { exit !f }' "$2"; }

# compare WHAT DOCFILE ACTUAL DOCUMENTED [OPTIONAL]: files of sorted names; every name in ACTUAL
# must be DOCUMENTED, every DOCUMENTED one (but the OPTIONAL) must be in ACTUAL. One FAIL per
# difference, naming it and the file to edit; one PASS when there is none.
compare() {
	local what=$1 doc=$2 actual=$3 documented=$4 optional=${5:-/dev/null} bad=0 k
	while IFS= read -r k; do
		# a null where the document lists an object's keys is that object, documented
		has_below "$k" "$documented" && continue
		fail "$what: '$k' is not documented" "add it to $doc (and say what it means)"
		bad=1
	done < <(comm -23 "$actual" "$documented")
	while IFS= read -r k; do
		grep -qxF "$k" "$optional" && continue
		has_below "$k" "$actual" && continue
		fail "$what: '$k' is documented but missing" "$doc lists it and the output has no such key: a rename keeps the old name as an alias (and says so in $doc and README.md's Upgrading); else remove it from $doc"
		bad=1
	done < <(comm -13 "$actual" "$documented")
	[ "$bad" = 0 ] && pass "$what: exactly the documented $(wc -l <"$documented") names"
}

# --- the views -------------------------------------------------------------------------------
doc_views "$root/schemas/views.md" | sort -u >"$tmp/views.doc"
for db in "$new" "$old"; do
	name="views of a new database"
	[ "$db" = "$old" ] && name="views of a version-1 database migrated by run"
	sqlite3 -separator $'\t' "$db" "SELECT m.name, c.name FROM sqlite_master m, pragma_table_info(m.name) c
		WHERE m.type = 'view' ORDER BY 1, 2" | sort -u >"$tmp/views.db"
	if [ ! -s "$tmp/views.db" ]; then fail "$name" "no views read from $db"; continue; fi
	bad=0
	while IFS=$'\t' read -r v c; do
		if grep -q "^$v"$'\t' "$tmp/views.doc"; then
			fail "$name: column $v.$c is not in schemas/views.md" "add the row | \`$c\` | unit | meaning | to its table under ## \`$v\`"
		else
			fail "$name: view $v is not in schemas/views.md" "add a section ## \`$v\` with a table of its columns"
		fi
		bad=1
	done < <(comm -23 "$tmp/views.db" "$tmp/views.doc")
	while IFS=$'\t' read -r v c; do
		fail "$name: schemas/views.md documents $v.$c, which the database lacks" "a rename keeps the old name as an alias column (a new step in lib/sql/store_schema.c, marked deprecated in schemas/views.md, README.md's Upgrading); else remove the row"
		bad=1
	done < <(comm -13 "$tmp/views.db" "$tmp/views.doc")
	[ "$bad" = 0 ] && pass "$name: exactly the $(wc -l <"$tmp/views.db") columns of schemas/views.md"
done
# Every CREATE VIEW of the schema file is documented (also one no database has yet).
while read -r v; do
	grep -q "^$v"$'\t' "$tmp/views.doc" || fail "store.sql: view $v is not in schemas/views.md" "add a section ## \`$v\`"
done < <(sed -n 's/^CREATE VIEW IF NOT EXISTS \([a-z_0-9]*\).*/\1/p' "$root/schemas/store.sql")

# Every contract file is in README.md's table of contracts, where users look for them.
missing=
for f in "$root"/schemas/*; do
	f=schemas/${f##*/}
	awk '/^### Contracts/ { t = 1; next } t && /^#/ { t = 0 } t' "$root/README.md" | grep -qF "\`$f\`" ||
		missing="$missing $f"
done
[ -z "$missing" ] && pass "README.md's table of contracts names every file of schemas/" ||
	fail "README.md's table of contracts lacks$missing" "add a row | \`FILE\` | what it describes | under ### Contracts"

# The names v_cost_ranking had before store version 8, deprecated aliases since version 11.
got=$(sqlite3 "$old" "SELECT count(*), sum(mean_mbps = mbps AND mean_mbps_per_usd_hour = mbps_per_usd_hour
	AND results >= 1) FROM v_cost_ranking WHERE run_id = (SELECT max(id) FROM runs)" 2>&1)
if [ "$got" = "2|2" ]; then
	pass "v_cost_ranking: a query on mean_mbps, mean_mbps_per_usd_hour, results works on a migrated database"
else
	fail "v_cost_ranking: the names of before version 8 on a migrated database" "$got (want 2 rows, aliases equal)"
fi

# --- the JSON documents ----------------------------------------------------------------------
# doc_lists DOC: the documented key paths in $tmp/doc.keys, the optional ones in $tmp/doc.opt.
doc_lists() {
	doc_keys "$root/schemas/$1" 2>"$tmp/doc.err" >"$tmp/doc.tsv"
	[ -s "$tmp/doc.err" ] && fail "schemas/$1: its keys list" "$(head -1 "$tmp/doc.err")"
	cut -f1 "$tmp/doc.tsv" | sort -u >"$tmp/doc.keys"
	awk -F'\t' '$2 == "?"' "$tmp/doc.tsv" | cut -f1 | sort -u >"$tmp/doc.opt"
	opaque=$(awk -F'\t' '$2 == "*" { printf "%s\"%s\"", n++ ? "," : "", $1 }' "$tmp/doc.tsv")
	opaque="[$opaque]"
	# Each listed name is also explained in the document's text: a word inside a `code span`
	# outside the list (`name`, `{a, name}`, `x.name`), or a `…tail` it ends with.
	awk '/^```keys$/ { skip = 1 } !skip { print } skip && /^```$/ { skip = 0 }' "$root/schemas/$1" |
		grep -o '`[^`]*`' >"$tmp/doc.spans"
	tr -c 'a-z0-9_\n' '\n' <"$tmp/doc.spans" | sort -u >"$tmp/doc.words"
	sed -n 's/^`…\([a-z0-9_]*\)`$/\1/p' "$tmp/doc.spans" | sort -u >"$tmp/doc.tails"
	local k leaf tail found
	while IFS= read -r k; do
		leaf=${k##*.}; leaf=${leaf%%\[*}
		grep -qxF "$leaf" "$tmp/doc.words" && continue
		found=0
		while read -r tail; do [[ $leaf == *"$tail" ]] && found=1; done <"$tmp/doc.tails"
		[ "$found" = 1 ] && continue
		fail "schemas/$1: key '$k' is listed but its meaning is not given" "name \`$leaf\` in the document's tables or text"
	done <"$tmp/doc.keys"
}

doc_lists probe-result.md
np=0
ns_probe() { np=$((np + 1)); "$NETSWEEP" probe 127.0.0.1 -p "$port" "$@" --json >"$tmp/probe$np.json" 2>>"$tmp/probe.err"; }
ns_probe -t 0.4 -i 0.2 -P 2 --bidir &&
	ns_probe -u -b 50M -l 1024 -t 0.4 -i 0.2 --bidir &&
	ns_probe -u -b 50M -t 0.3 -R &&
	ns_probe --rr tcp -t 0.3 -i 0.1 &&
	ns_probe -u -b 20M -t 0.3 -i 0.1 --latency-probe udp --latency-idle 0.2
ok=$?
# and one that fails (nothing listens on port 1 of loopback): the error object
ns_probe -p 1 -t 0.3 --connect-timeout 1
if [ "$ok" != 0 ] || [ "$(jq -r .status "$tmp/probe$np.json")" != error ]; then
	fail "probe --json runs" "$(tail -3 "$tmp/probe.err"; jq -c '{status, error}' "$tmp/probe$np.json")"
else
	json_keys "$opaque" "$tmp"/probe*.json >"$tmp/probe.keys"
	compare "probe --json keys" schemas/probe-result.md "$tmp/probe.keys" "$tmp/doc.keys" "$tmp/doc.opt"
fi

doc_lists search-result.md
if "$NETSWEEP" search 127.0.0.1 -p "$port" --udp -l 64 --goals 0,0.5% --width 20% --min-pps 1k \
	--max-pps 20k --initial-duration 0.2 --final-duration 0.2 --json >"$tmp/search1.json" 2>"$tmp/search.err"; then
	"$NETSWEEP" search 127.0.0.1 -p 1 --udp -l 64 --connect-timeout 1 --json >"$tmp/search2.json" 2>/dev/null
	json_keys "$opaque" "$tmp"/search*.json >"$tmp/search.keys"
	compare "search --json keys" schemas/search-result.md "$tmp/search.keys" "$tmp/doc.keys" "$tmp/doc.opt"
else
	fail "search --json runs" "$(tail -3 "$tmp/search.err")"
fi

doc_lists report-json.md
if "$NETSWEEP" report --db "$new" --baseline previous -o "$tmp/report" >"$tmp/report.log" 2>&1; then
	json_keys "$opaque" "$tmp/report/report.json" >"$tmp/report.keys"
	compare "report.json keys" schemas/report-json.md "$tmp/report.keys" "$tmp/doc.keys" "$tmp/doc.opt"
else
	fail "report of the new database" "$(tail -3 "$tmp/report.log")"
fi
schema_keys "$root/schemas/report.schema.json" >"$tmp/schema.keys"
compare "report.schema.json properties" schemas/report-json.md "$tmp/schema.keys" "$tmp/doc.keys"

doc_lists hostinfo.md
if "$NETSWEEP" hostinfo --json >"$tmp/hostinfo1.json" 2>"$tmp/hostinfo.err" &&
	"$NETSWEEP" hostinfo --peer 127.0.0.1 --json >"$tmp/hostinfo2.json" 2>>"$tmp/hostinfo.err"; then
	json_keys "$opaque" "$tmp"/hostinfo*.json >"$tmp/hostinfo.keys"
	compare "hostinfo --json keys" schemas/hostinfo.md "$tmp/hostinfo.keys" "$tmp/doc.keys" "$tmp/doc.opt"
else
	fail "hostinfo --json" "$(tail -3 "$tmp/hostinfo.err")"
fi

doc_lists runs-json.md
if "$NETSWEEP" runs --db "$new" --json >"$tmp/runs.json" 2>"$tmp/runs.err"; then
	json_keys "$opaque" "$tmp/runs.json" >"$tmp/runs.keys"
	compare "runs --json keys" schemas/runs-json.md "$tmp/runs.keys" "$tmp/doc.keys" "$tmp/doc.opt"
else
	fail "runs --json of the new database" "$(tail -3 "$tmp/runs.err")"
fi

doc_lists plan-json.md
if "$NETSWEEP" plan --db "$new" --move 1TB --json >"$tmp/plan.json" 2>"$tmp/plan.err"; then
	json_keys "$opaque" "$tmp/plan.json" >"$tmp/plan.keys"
	compare "plan --json keys" schemas/plan-json.md "$tmp/plan.keys" "$tmp/doc.keys" "$tmp/doc.opt"
else
	fail "plan --json of the new database" "$(tail -3 "$tmp/plan.err")"
fi
finish
