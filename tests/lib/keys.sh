# Readers of the contract documents in schemas/ (source it): the "keys" lists of the JSON
# documents and the column tables of schemas/views.md, and the key paths of real JSON output.

# doc_keys FILE: the paths of FILE's ```keys block, one "path<TAB>mark" a line (mark: "?" a key
# the tests cannot produce, "*" one whose content another document describes, else "").
# Braces expand as in the shell; a line with anything else than a path is reported on stderr.
doc_keys() {
	local file=$1 line path mark in=0 p
	local -a paths
	while IFS= read -r line; do
		if [ "$in" = 0 ]; then [ "$line" = '```keys' ] && in=1; continue; fi
		[ "$line" = '```' ] && break
		line=${line%%#*}
		read -r path mark <<<"$line"
		[ -n "$path" ] || continue
		if ! [[ $path =~ ^([A-Za-z0-9_{},]|\[\])([A-Za-z0-9_.{},]|\[\])*$ ]]; then
			echo "$file: not a key path: '$path'" >&2
			continue
		fi
		set -f
		eval "paths=($path)"
		set +f
		for p in "${paths[@]}"; do printf '%s\t%s\n' "$p" "$mark"; done
	done <"$file"
}

# json_keys OPAQUE FILE...: every key path of the JSON documents, "." nesting and "[]" for the
# elements of an array of objects; an array of scalars, null, a scalar, an empty object and a
# key named in OPAQUE (a JSON array of paths) end a path.
json_keys() {
	local opaque=$1; shift
	jq -r --argjson opaque "$opaque" '
	def flat($p):
	  if ($p != "" and ($opaque | index([$p]))) then $p
	  elif type == "object" and length > 0 then
	    to_entries[] | .key as $k | .value | flat(if $p == "" then $k else $p + "." + $k end)
	  elif type == "array" and length > 0 and (map(type == "object") | any) then
	    .[] | select(type == "object") | flat($p + "[]")
	  else $p end;
	flat("")' "$@" | sort -u
}

# schema_keys FILE: the property paths of a JSON Schema, as json_keys writes them.
schema_keys() {
	jq -r '
	def sp($p):
	  if (.properties | type) == "object" then
	    .properties | to_entries[] | .key as $k | .value | sp(if $p == "" then $k else $p + "." + $k end)
	  elif (.items | type) == "object" and (.items.properties | type) == "object" then
	    .items | sp($p + "[]")
	  else $p end;
	sp("")' "$1" | sort -u
}

# doc_views FILE: "view<TAB>column" for every row of every view's table in schemas/views.md;
# a row `v_x.*` stands for every column of view v_x listed before it.
doc_views() {
	awk -F'|' '
	/^## `v_[a-z_0-9]*`/ { view = $0; sub(/^## `/, "", view); sub(/`.*/, "", view); next }
	/^## / { view = ""; next }
	view != "" && /^\| `[^`]*` \|/ {
		col = $2; gsub(/[ `]/, "", col)
		if (col ~ /\.\*$/) {
			src = col; sub(/\.\*$/, "", src)
			for (i = 1; i <= n[src]; i++) { print view "\t" cols[src, i]; cols[view, ++n[view]] = cols[src, i] }
		} else {
			print view "\t" col; cols[view, ++n[view]] = col
		}
	}' "$1"
}
