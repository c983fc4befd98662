#!/bin/sh
# embed.sh SYMBOL FILE: writes C source that holds FILE's bytes as a NUL-terminated string
# `const char SYMBOL[]`, so that the binary carries its schemas instead of looking for them.
set -eu
sym=$1 file=$2
printf '/* Generated from %s by mk/embed.sh; do not edit. */\n' "$file"
printf 'const char %s[] = {\n' "$sym"
od -An -v -tx1 "$file" | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'
printf '0x00};\n'
printf 'const unsigned long %s_len = sizeof(%s) - 1;\n' "$sym" "$sym"
