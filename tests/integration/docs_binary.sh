#!/bin/bash
# The documents say what the binary does, with every list derived from the code, not copied:
# the man page names every command of the command table (runner/core/main.c) and every
# environment variable the sources read (getenv/secure_getenv); `netsweep CMD --help` (or
# CMD SUB --help for a command with subcommands) mentions every long option CMD's option
# tables accept (struct option arrays, the macros of shared entries they use, and options
# compared by hand with strcmp); README's Debian package list is mk/deps.sh's.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
ROOT=$(cd "$HERE/../.." && pwd)
MAN=$ROOT/packaging/netsweep.1
SRC_DIRS=("$ROOT/lib" "$ROOT/runner" "$ROOT/report")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# --- commands: the table's names, each a heading (.B NAME) of the man page's COMMANDS
cmds=$(sed -n 's/^[[:space:]]*{"\([a-z][a-z-]*\)", \(cmd_[a-z_]*\),.*/\1 \2/p' "$ROOT/runner/core/main.c")
if [ "$(wc -l <<<"$cmds")" -lt 10 ]; then fail "commands from the command table" "read only: $cmds"; finish; exit; fi
sed -n '/^\.SH COMMANDS/,/^\.SH /p' "$MAN" >"$T/commands"
missing=""
while read -r name _; do
	grep -q "^\.B $name\b" "$T/commands" || missing="$missing $name"
done <<<"$cmds"
n=$(wc -l <<<"$cmds")
if [ -z "$missing" ]; then pass "the man page has all $n commands of the command table"
else fail "the man page has every command of the command table" "missing:$missing"; fi

# --- environment: every NETSWEEP_* (and any other) variable the sources read, but PATH
# (the library's are read once, by lib/settings.c's var() and is(), for main)
{ grep -rhoE '(secure_)?getenv\("[A-Za-z_0-9]+"\)' --include='*.c' --include='*.h' "${SRC_DIRS[@]}"
  grep -hoE '\b(var|is)\("[A-Za-z_0-9]+"' "$ROOT/lib/settings.c" | sed 's/$/)/'; } |
	sed 's/.*("\(.*\)")/\1/' | sort -u | grep -vx PATH >"$T/env"
sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$MAN" >"$T/envsec"
missing=""
while read -r v; do
	grep -q "^\.B[RI]* .*\b$v\b" "$T/envsec" || missing="$missing $v"
done <"$T/env"
if [ "$(wc -l <"$T/env")" -ge 5 ] && [ -z "$missing" ]; then
	pass "the man page's ENVIRONMENT has all $(wc -l <"$T/env") variables the code reads"
else
	fail "the man page's ENVIRONMENT has every variable the code reads" "missing:$missing (read: $(tr '\n' ' ' <"$T/env"))"
fi

# --- options: each command's long options, from the file defining cmd_FN
NETSWEEP_BIN=$NETSWEEP
[ -x "$NETSWEEP_BIN" ] || { fail "--help of every command" "no binary at $NETSWEEP_BIN"; finish; exit; }
# options_of FILE: the long option names of FILE's option tables and hand-compared options
options_of() {
	local f=$1 m def
	sed -n 's/.*{"\([a-z][a-z0-9-]*\)", *\(no\|required\|optional\)_argument.*/\1/p' "$f"
	grep -oE 'strn?cmp\([^;]*"--[a-z][a-z0-9-]*"' "$f" | grep -oE '"--[a-z][a-z0-9-]*"' |
		sed 's/^"--\(.*\)"$/\1/'
	# macros of shared entries (PROBE_LONGOPTS_SHARED): the file defining them
	for m in $(grep -oE '\b[A-Z][A-Z_]*LONGOPTS[A-Z_]*\b' "$f" | sort -u); do
		def=$(grep -rl "#define $m\b" "${SRC_DIRS[@]}" | head -1)
		[ -n "$def" ] && sed -n "/#define $m\b/,/^[^\\\\]*\$/p" "$def" |
			sed -n 's/.*{"\([a-z][a-z0-9-]*\)", *\(no\|required\|optional\)_argument.*/\1/p'
	done
}
bad="" checked=0 total=0
while read -r name fn; do
	file=$(grep -rlE "^int $fn\(" --include='*.c' "${SRC_DIRS[@]}" | head -1)
	[ -n "$file" ] || { bad="$bad $name(no $fn)"; continue; }
	options_of "$file" | sort -u | grep -vx help >"$T/opts.$name"
	"$NETSWEEP_BIN" "$name" --help >"$T/help.$name" 2>&1
	# a command with subcommands: their --help too (the words after "netsweep NAME " in usage)
	for sub in $(sed -n "s/.*netsweep $name \([a-z][a-z]*\)\b.*/\1/p" "$T/help.$name" | sort -u); do
		"$NETSWEEP_BIN" "$name" "$sub" --help >>"$T/help.$name" 2>&1
	done
	checked=$((checked + 1))
	while read -r o; do
		[ -n "$o" ] || continue
		total=$((total + 1))
		grep -q -- "--$o\b" "$T/help.$name" || bad="$bad $name:--$o"
	done <"$T/opts.$name"
done <<<"$cmds"
if [ -z "$bad" ] && [ "$total" -ge 50 ]; then
	pass "--help of each of the $checked commands mentions every long option it accepts ($total)"
else
	fail "--help of every command mentions every long option it accepts" "missing:${bad:- none} ($total options read)"
fi

# --- README's Debian packages are mk/deps.sh's (its base list and what `test`/`deb` add)
want=$({ sed -n '/^PKGS="/,/"$/p' "$ROOT/mk/deps.sh" | sed 's/^PKGS=//'
	sed -n 's/.*PKGS="\$PKGS \([^"]*\)".*/\1/p' "$ROOT/mk/deps.sh"; } | tr -d '"' | tr ' \t' '\n\n' | grep . | sort -u)
readme=$(tr '\n' ' ' <"$ROOT/README.md" | sed -n 's/.*Both call `mk\/deps.sh`\(.*\)prints the `apt-get install` line.*/\1/p' |
	grep -oE '`[^`]*`' | tr -d '`' | tr ' ' '\n' | grep -E '^[a-z0-9][a-z0-9.+-]+$' | sort -u)
if [ "$(wc -l <<<"$want")" -ge 10 ] && [ "$readme" = "$want" ]; then
	pass "README's Debian package list is mk/deps.sh's ($(wc -l <<<"$want") packages)"
else
	fail "README's Debian package list is mk/deps.sh's" "only in deps.sh: $(comm -13 <(echo "$readme") <(echo "$want") | tr '\n' ' '); only in README: $(comm -23 <(echo "$readme") <(echo "$want") | tr '\n' ' ')"
fi
finish
